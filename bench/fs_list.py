"""Recursive list_directory (floors applied) against ``find DIR`` and the bare stat walk.

Builds a 100,000-file tree (every file with its own nanosecond mtime, as in
a real tree, so timestamp formatting is not flattered by a cache) and prints
the median of several interleaved runs of:

* ``find DIR`` and ``find DIR -printf`` with size/type/mtime (one stat per
  entry in C), both writing to /dev/null;
* the bare descriptor walk in Python without and with one ``fstatat`` per
  entry (``os.scandir(fd)``, ``os.stat(name, dir_fd=fd,
  follow_symlinks=False)``, ``os.open(O_DIRECTORY|O_NOFOLLOW, dir_fd=fd)``):
  the second is the floor for any Python lister that must report
  ``sizeBytes`` and ``lastModified``, because Linux ``getdents`` carries only
  the type;
* the same stat walk with each directory's stats split over a 2-thread pool
  (``os.stat`` releases the GIL), to show whether threads would help here;
* the real ``list_directory`` (descriptor walk, floor pruning, entry dicts,
  sorting), recursive, without and with a glob.

Ratios are against ``find DIR`` (acceptance target <= 2x) and against the
stat floor (how much per-entry Python work the lister adds on top of the
unavoidable stat).

    .venv/bin/python bench/fs_list.py [--files 100000] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import stat
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from relavium_desktop.host.fs import PathPolicy, lister

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def build_tree(root: Path, files: int) -> None:
    per_dir = 100
    stamp = 1_600_000_000_000_000_000  # ns; each file one µs and a few ns apart
    for d in range(files // per_dir):
        sub = root / f"d{d // 50:03d}" / f"s{d:05d}"
        sub.mkdir(parents=True)
        for f in range(per_dir):
            path = sub / f"file{f:03d}.txt"
            path.touch()
            stamp += 1_000_037
            os.utime(path, ns=(stamp, stamp))
    # A few floor-denied folders to prune.
    for name in (".ssh", ".aws", "node_modules/.relavium"):
        (root / name).mkdir(parents=True, exist_ok=True)
        (root / name / "secret").touch()


def fd_walk(root: Path, *, with_stat: bool) -> int:
    """The bare descriptor walk: scandir each directory fd, optionally one fstatat per entry."""
    count = 0
    stack = [os.open(root, _DIR_FLAGS)]
    lstat = os.stat
    while stack:
        fd = stack.pop()
        try:
            with os.scandir(fd) as it:
                for entry in it:
                    count += 1
                    if with_stat:
                        is_dir = stat.S_ISDIR(lstat(entry.name, dir_fd=fd, follow_symlinks=False).st_mode)
                    else:
                        is_dir = entry.is_dir(follow_symlinks=False)
                    if is_dir:
                        stack.append(os.open(entry.name, _DIR_FLAGS, dir_fd=fd))
        finally:
            os.close(fd)
    return count


def fd_walk_threaded(root: Path, pool: ThreadPoolExecutor) -> int:
    """The stat walk with each directory's stats split in two halves, one on a pool thread."""

    def stat_all(fd: int, names: list[str]) -> list[os.stat_result]:
        return [os.stat(name, dir_fd=fd, follow_symlinks=False) for name in names]

    count = 0
    stack = [os.open(root, _DIR_FLAGS)]
    while stack:
        fd = stack.pop()
        try:
            with os.scandir(fd) as it:
                names = [entry.name for entry in it]
            half = len(names) // 2
            other = pool.submit(stat_all, fd, names[half:])
            stats = stat_all(fd, names[:half]) + other.result()
            for name, st in zip(names, stats, strict=True):
                count += 1
                if stat.S_ISDIR(st.st_mode):
                    stack.append(os.open(name, _DIR_FLAGS, dir_fd=fd))
        finally:
            os.close(fd)
    return count


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="relavium-bench-") as tmp, ThreadPoolExecutor(1) as pool:
        root = Path(tmp) / "tree"
        root.mkdir()
        t0 = time.perf_counter()
        build_tree(root, args.files)
        print(f"built {args.files} files in {time.perf_counter() - t0:.1f}s")
        policy = PathPolicy.create(root, tier="sandboxed")
        listed = len(lister.list_directory(policy, ".", recursive=True, glob=None)["entries"])
        walked = fd_walk(root, with_stat=True)
        print(f"entries listed: {listed} (floors pruned {walked - listed} of {walked} walked)")

        cases: dict[str, Callable[[], object]] = {
            "find DIR": lambda: subprocess.run(["find", str(root)], stdout=subprocess.DEVNULL, check=True),
            # find doing the per-entry stat work list_directory must do (size, type, mtime).
            "find DIR -printf size/type/mtime": lambda: subprocess.run(
                ["find", str(root), "-printf", "%P %y %s %T@\n"], stdout=subprocess.DEVNULL, check=True
            ),
            "python fd walk, no stat": lambda: fd_walk(root, with_stat=False),
            "python fd walk + fstatat (floor)": lambda: fd_walk(root, with_stat=True),
            "  same, stats on 2 threads": lambda: fd_walk_threaded(root, pool),
            "list_directory recursive": lambda: lister.list_directory(policy, ".", recursive=True, glob=None),
            "list_directory recursive, glob": lambda: lister.list_directory(
                policy, ".", recursive=True, glob="**/file00?.txt"
            ),
        }
        for fn in cases.values():  # warm the dentry/inode caches for all alike
            fn()
        times: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(args.runs):  # interleaved so load changes hit all cases alike
            for name, fn in cases.items():
                start = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - start)
        med = {name: statistics.median(t) for name, t in times.items()}
        for name, value in med.items():
            print(f"{name:36s} median {value * 1000:8.1f} ms")
        find, floor, listing = (
            med["find DIR"],
            med["python fd walk + fstatat (floor)"],
            med["list_directory recursive"],
        )
        print(f"ratio list_directory / find DIR            {listing / find:5.2f}x (target <= 2x)")
        print(
            f"ratio list_directory / find -printf        {listing / med['find DIR -printf size/type/mtime']:5.2f}x"
        )
        print(f"ratio list_directory / python stat floor   {listing / floor:5.2f}x")
        print(f"ratio python stat floor / find DIR         {floor / find:5.2f}x (the stat syscall alone)")


if __name__ == "__main__":
    main()
