"""run_command streaming bench: 1 GiB of stdout with bounded memory.

Runs the same command (a Python one-liner printing N bytes of a fixed line) two ways in the same
process and the same run, on plain asyncio (the CLI) and under qasync (the
app: a QApplication with the offscreen platform and ``qasync.QEventLoop``):

* baseline: a bare asyncio read loop over the command's stdout pipe
  (``create_subprocess_exec`` + ``read(65536)``, bytes discarded);
* relavium: ``run_command`` through the full registry pipeline into the real
  ProcessHost, which keeps head + tail and streams the full stream to a
  spill file in the run's output store.

It prints the median throughput of each, their ratio (target >= 0.5), the
peak RSS of the process (target <= 100 MB) and checks the spill file's
SHA-256 against the bytes the command was known to print.  Each loop mode
runs in its own child process so each peak RSS is that mode's own.

    .venv/bin/python bench/run_command_stream.py            # both modes, 1 GiB, 3 repeats
    .venv/bin/python bench/run_command_stream.py --mode qasync --bytes 268435456
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

LINE = b"relavium-stream-bench 0123456789abcdefghijklmnopqrstuvwxyz"
GIB = 1024 * 1024 * 1024


# One producer process writing 4 MiB blocks of whole lines: fast enough that the
# reading side, not the producer, is what the bench measures.
PRODUCER = (
    "import sys\n"
    "line = sys.argv[1].encode() + b'\\n'\n"
    "block = memoryview(line * (4194304 // len(line)))\n"
    "left = int(sys.argv[2])\n"
    "out = sys.stdout.buffer\n"
    "while left:\n"
    "    n = min(left, len(block))\n"
    "    out.write(block[:n])\n"
    "    left -= n\n"
    "out.flush()\n"
)


def argv(total: int) -> list[str]:
    # The interpreter by absolute path: run_command takes a path as that file.
    return [sys.executable, "-c", PRODUCER, LINE.decode(), str(total)]


def expected_sha256(total: int) -> str:
    block = (LINE + b"\n") * (1024 * 1024 // (len(LINE) + 1))  # whole lines, ~1 MiB
    digest = hashlib.sha256()
    left = total
    while left:
        piece = block[: min(left, len(block))]
        digest.update(piece)
        left -= len(piece)
    return digest.hexdigest()


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(4 * 1024 * 1024):
            digest.update(chunk)
    return digest.hexdigest()


def peak_rss_mb() -> float:
    # ru_maxrss is KiB on Linux, bytes on macOS.
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


async def baseline_once(total: int) -> float:
    started = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        *argv(total), stdout=subprocess.PIPE, stdin=subprocess.DEVNULL
    )
    assert proc.stdout is not None
    seen = 0
    while chunk := await proc.stdout.read(65536):
        seen += len(chunk)
    await proc.wait()
    elapsed = time.perf_counter() - started
    if seen != total:
        raise SystemExit(f"baseline read {seen} bytes, expected {total}")
    return elapsed


async def relavium_once(total: int, registry: Any, ctx: Any, call: Any) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    outcome = await registry.dispatch(call, ctx)
    elapsed = time.perf_counter() - started
    if not outcome.ok:
        raise SystemExit(f"run_command failed: {outcome.error}")
    return elapsed, outcome.result


async def bench(total: int, repeat: int, home: Path) -> dict[str, Any]:
    from relavium_desktop.application.tools import tool_registry
    from relavium_desktop.engine.host import ToolHost
    from relavium_desktop.engine.tools.tooldef import ToolCall, ToolDispatchContext, ToolPolicy
    from relavium_desktop.host.output_store import FileOutputStore
    from relavium_desktop.host.process import ProcessHost, workspace_cwd_resolver

    store = FileOutputStore(home / "runs")
    host = ToolHost(
        process=ProcessHost(store=store, resolve_cwd=workspace_cwd_resolver(home)), output_store=store
    )
    registry = tool_registry(host, home=home)
    cmd = argv(total)
    policy = ToolPolicy(allowed_commands=(shlex.join(cmd),))
    call = ToolCall("run_command", {"command": cmd[0], "args": cmd[1:]})
    want = expected_sha256(total)
    rss_before = peak_rss_mb()

    base_s: list[float] = []
    ours_s: list[float] = []
    for i in range(repeat):
        base_s.append(await baseline_once(total))
        ctx = ToolDispatchContext(
            run_id=f"bench-{i}", node_id="bench", granted_tool_ids=frozenset({"run_command"}), policy=policy
        )
        elapsed, result = await relavium_once(total, registry, ctx, call)
        ours_s.append(elapsed)
        spill = result["stdoutSpill"]
        got = file_sha256(Path(spill["path"]))
        if spill["bytes"] != total or got != want:
            raise SystemExit(f"spill mismatch: {spill['bytes']} bytes, sha256 {got} != {want}")
        await store.reclaim(ctx.run_id)

    base_med = statistics.median(base_s)
    ours_med = statistics.median(ours_s)
    return {
        "bytes": total,
        "repeat": repeat,
        "baseline_MBps": total / base_med / 1e6,
        "relavium_MBps": total / ours_med / 1e6,
        "ratio": base_med / ours_med,
        "rss_after_imports_MB": rss_before,
        "peak_rss_MB": peak_rss_mb(),
        "spill_sha256_ok": True,
    }


def run_mode(mode: str, total: int, repeat: int) -> dict[str, Any]:
    home = Path(tempfile.mkdtemp(prefix="relavium-bench-"))
    os.environ["RELAVIUM_HOME"] = str(home)
    try:
        if mode == "asyncio":
            return asyncio.run(bench(total, repeat, home))
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        import qasync
        from PySide6.QtWidgets import QApplication

        app = QApplication.instance() or QApplication([])
        loop = qasync.QEventLoop(app)
        asyncio.set_event_loop(loop)
        with loop:
            result: dict[str, Any] = loop.run_until_complete(bench(total, repeat, home))
        return result
    finally:
        shutil.rmtree(home, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", choices=["both", "asyncio", "qasync"], default="both")
    parser.add_argument("--bytes", type=int, default=GIB)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="(internal) print one JSON line")
    args = parser.parse_args()

    if args.mode != "both":
        result = run_mode(args.mode, args.bytes, args.repeat)
        print(json.dumps(result) if args.json else result)
        return

    print(f"run_command stream bench: {args.bytes:,} bytes of stdout, median of {args.repeat}")
    print(f"{'loop':8} {'baseline MB/s':>14} {'relavium MB/s':>14} {'ratio':>6} {'peak RSS MB':>12}  spill")
    failed = False
    for mode in ("asyncio", "qasync"):
        proc = subprocess.run(
            [sys.executable, __file__, "--mode", mode, "--bytes", str(args.bytes),
             "--repeat", str(args.repeat), "--json"],
            capture_output=True, text=True, check=False,
        )
        if proc.returncode != 0:
            print(f"{mode:8} FAILED: {proc.stderr.strip()[-400:]}")
            failed = True
            continue
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        ok = r["ratio"] >= 0.5 and r["peak_rss_MB"] <= 100
        failed |= not ok
        print(
            f"{mode:8} {r['baseline_MBps']:14.0f} {r['relavium_MBps']:14.0f} {r['ratio']:6.2f} "
            f"{r['peak_rss_MB']:12.1f}  sha256 ok   (RSS after imports {r['rss_after_imports_MB']:.1f} MB)"
        )
    print("targets: ratio >= 0.50, peak RSS <= 100 MB:", "met" if not failed else "NOT met")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
