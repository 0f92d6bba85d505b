"""Recursive list_directory (floors applied) against ``find DIR`` on a 100,000-file tree.

Prints the median of several runs of each, measured in the same process run,
and their ratio (target: list_directory <= 2x find).  ``find`` writes to
/dev/null; list_directory runs the real host code (descriptor walk, floor
pruning, one fstatat per entry) without the registry's model-facing bounding.

    .venv/bin/python bench/fs_list.py [--files 100000] [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from relavium_desktop.host.fs import PathPolicy, lister


def build_tree(root: Path, files: int) -> None:
    per_dir = 100
    for d in range(files // per_dir):
        sub = root / f"d{d // 50:03d}" / f"s{d:05d}"
        sub.mkdir(parents=True)
        for f in range(per_dir):
            (sub / f"file{f:03d}.txt").touch()
    # A few floor-denied folders to prune.
    for name in (".ssh", ".aws", "node_modules/.relavium"):
        (root / name).mkdir(parents=True, exist_ok=True)
        (root / name / "secret").touch()


def timed(fn: object, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        out.append(time.perf_counter() - start)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="relavium-bench-") as tmp:
        root = Path(tmp) / "tree"
        root.mkdir()
        t0 = time.perf_counter()
        build_tree(root, args.files)
        print(f"built {args.files} files in {time.perf_counter() - t0:.1f}s")
        policy = PathPolicy.create(root, tier="sandboxed")
        count = len(lister.list_directory(policy, ".", recursive=True, glob=None)["entries"])

        def run_find() -> None:
            subprocess.run(["find", str(root)], stdout=subprocess.DEVNULL, check=True)

        def run_find_stat() -> None:
            # find doing the same per-entry stat work list_directory must do (size, mtime, type).
            subprocess.run(["find", str(root), "-printf", "%P %y %s %T@\n"], stdout=subprocess.DEVNULL, check=True)

        def run_list() -> None:
            lister.list_directory(policy, ".", recursive=True, glob=None)

        # Interleave warm-ups so both see a warm dentry cache.
        run_find()
        run_list()
        run_find_stat()
        find_times, stat_times, list_times = [], [], []
        for _ in range(args.runs):  # interleaved so load changes hit all three alike
            find_times += timed(run_find, 1)
            stat_times += timed(run_find_stat, 1)
            list_times += timed(run_list, 1)
        f, fs, ls = (statistics.median(t) for t in (find_times, stat_times, list_times))
        print(f"entries listed: {count}")
        print(f"find DIR                          median {f * 1000:8.1f} ms")
        print(f"find DIR -printf size/type/mtime  median {fs * 1000:8.1f} ms")
        print(f"list_directory recursive          median {ls * 1000:8.1f} ms")
        print(f"ratio list_directory / find          {ls / f:.2f}x (target <= 2x)")
        print(f"ratio list_directory / find -printf  {ls / fs:.2f}x")


if __name__ == "__main__":
    main()
