"""The GUI entry point explains a missing display instead of Qt's abort text."""

from __future__ import annotations

import os
import subprocess
import sys

from relavium_desktop.app import display_problem


def test_display_problem_rules() -> None:
    assert display_problem({}, "linux") is not None
    assert display_problem({"DISPLAY": ":0"}, "linux") is None
    assert display_problem({"WAYLAND_DISPLAY": "wayland-0"}, "linux") is None
    assert display_problem({"QT_QPA_PLATFORM": "offscreen"}, "linux") is None
    assert display_problem({}, "darwin") is None


def test_headless_launch_exits_2_with_a_clear_message(relavium_home: object) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    proc = subprocess.run(
        [sys.executable, "-m", "relavium_desktop"], env=env, capture_output=True, text=True, timeout=60,
        check=False,
    )
    assert proc.returncode == 2
    assert "no graphical display" in proc.stderr and "xvfb-run" in proc.stderr
    assert "Qt platform plugin" not in proc.stderr
