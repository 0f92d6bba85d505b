"""Time from process start to the main window's first paint.

    .venv/bin/python bench/startup.py [RUNS]

Starts ``python -m relavium_desktop`` RUNS times (default 7) with
RELAVIUM_STARTUP_PROBE=1: the app prints the CLOCK_MONOTONIC time of its
first paint and quits.  The baseline, measured in the same run, is a bare
PySide6 QMainWindow doing the same.  Prints medians and the ratio; target:
the app's median ≤ 0.5 s.  Uses the current DISPLAY, else the offscreen
platform.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time

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


def main() -> int:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    env = dict(os.environ, RELAVIUM_STARTUP_PROBE="1")
    if not env.get("DISPLAY"):
        env["QT_QPA_PLATFORM"] = "offscreen"
    app_times, bare_times = [], []
    with tempfile.TemporaryDirectory() as home:
        env["RELAVIUM_HOME"] = home
        _measure([sys.executable, "-m", "relavium_desktop"], env)  # warm the OS file cache
        for _ in range(runs):
            bare_times.append(_measure([sys.executable, "-c", BARE], env))
            app_times.append(_measure([sys.executable, "-m", "relavium_desktop"], env))
    app_med, bare_med = statistics.median(app_times), statistics.median(bare_times)
    print(f"platform: {env.get('QT_QPA_PLATFORM') or 'DISPLAY=' + env['DISPLAY']}; runs: {runs}")
    print(f"bare PySide6 window, first paint: median {bare_med * 1000:.0f} ms")
    print(f"relavium-desktop,   first paint: median {app_med * 1000:.0f} ms  (target ≤ 500 ms)")
    print(f"ratio app/bare: {app_med / bare_med:.2f}")
    return 0 if app_med <= 0.5 else 1


if __name__ == "__main__":
    sys.exit(main())
