"""Time from process start to the main window's first paint.

    .venv/bin/python bench/startup.py [RUNS] [--bundle PATH]

Starts ``python -m relavium_desktop`` RUNS times (default 7) with
RELAVIUM_STARTUP_PROBE=1: the app prints the CLOCK_MONOTONIC time of its
first paint and quits.  The baseline, measured in the same run, is a bare
PySide6 QMainWindow doing the same.  Prints medians and the ratio; target:
the app's median ≤ 0.5 s.  Uses the current DISPLAY, else the offscreen
platform.

``--bundle PATH`` (the folder ``packaging/build`` made, e.g. dist/relavium,
or its ``relavium-desktop``) also times the bundled launcher, interleaved with
the same baseline, and prints its size: what an installed user waits for.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BARE = r"""
import time
from PySide6.QtWidgets import QApplication, QMainWindow
from PySide6.QtCore import QTimer
class W(QMainWindow):
    done = False
    def paintEvent(self, e):
        super().paintEvent(e)
        if not self.done:
            self.done = True
            print(f"relavium-first-paint {time.monotonic():.6f}", flush=True)
            QTimer.singleShot(0, app.quit)
app = QApplication([])
w = W(); w.resize(1100, 700); w.show()
app.exec()
"""


def _measure(argv: list[str], env: dict[str, str]) -> float:
    start = time.monotonic()
    out = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60, check=True).stdout
    for line in out.splitlines():
        if line.startswith("relavium-first-paint "):
            return float(line.split()[1]) - start
    raise RuntimeError(f"no first-paint line from {argv}: {out!r}")


def _bundle_launcher(path: str) -> tuple[Path, Path]:
    """(launcher, bundle folder) from either the folder or the launcher itself."""
    given = Path(path).resolve()
    launcher = given / "relavium-desktop" if given.is_dir() else given
    if not os.access(launcher, os.X_OK):
        raise SystemExit(f"startup.py: no executable relavium-desktop at {launcher}")
    return launcher, launcher.parent


def _size_mb(folder: Path) -> float:
    total = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
    return total / 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("runs", nargs="?", type=int, default=7)
    parser.add_argument("--bundle", help="the PyInstaller bundle folder (or its relavium-desktop)")
    args = parser.parse_args()
    runs = args.runs
    bundle = _bundle_launcher(args.bundle) if args.bundle else None
    env = dict(os.environ, RELAVIUM_STARTUP_PROBE="1")
    if not env.get("DISPLAY"):
        env["QT_QPA_PLATFORM"] = "offscreen"
    app_times: list[float] = []
    bare_times: list[float] = []
    bundle_times: list[float] = []
    with tempfile.TemporaryDirectory() as home:
        env["RELAVIUM_HOME"] = home
        _measure([sys.executable, "-m", "relavium_desktop"], env)  # warm the OS file cache
        if bundle:
            _measure([str(bundle[0])], env)
        for _ in range(runs):
            bare_times.append(_measure([sys.executable, "-c", BARE], env))
            app_times.append(_measure([sys.executable, "-m", "relavium_desktop"], env))
            if bundle:
                bundle_times.append(_measure([str(bundle[0])], env))
    app_med, bare_med = statistics.median(app_times), statistics.median(bare_times)
    print(f"platform: {env.get('QT_QPA_PLATFORM') or 'DISPLAY=' + env['DISPLAY']}; runs: {runs}")
    print(f"bare PySide6 window,      first paint: median {bare_med * 1000:.0f} ms")
    print(f"relavium-desktop (venv),  first paint: median {app_med * 1000:.0f} ms  (target ≤ 500 ms)")
    print(f"ratio app/bare: {app_med / bare_med:.2f}")
    if bundle:
        bundle_med = statistics.median(bundle_times)
        print(f"bundled relavium-desktop, first paint: median {bundle_med * 1000:.0f} ms  ({bundle[0]})")
        print(f"ratio bundle/bare: {bundle_med / bare_med:.2f}; bundle/app: {bundle_med / app_med:.2f}")
        print(f"bundle size: {_size_mb(bundle[1]):.0f} MB ({bundle[1]})")
    return 0 if app_med <= 0.5 else 1


if __name__ == "__main__":
    sys.exit(main())
