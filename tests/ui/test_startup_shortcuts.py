"""Two start-up shortcuts keep the behaviour they replace.

* ``parse_args([])`` (every plain start) returns the defaults without building
  the argument parser; they must be exactly the parser's own defaults.
* ``run_app`` asks Qt for the Fusion style on the QApplication's command line
  (so Python never builds the QStyle class before the first paint); the app
  must still run on Fusion, and a QApplication made elsewhere (tests, benches)
  still gets it from the theme.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from relavium_desktop.ui.shell import argument_parser, parse_args


def test_a_start_without_arguments_gets_the_parsers_own_defaults() -> None:
    assert vars(parse_args([])) == vars(argument_parser().parse_args([]))
    assert parse_args(["--hidden"]).hidden is True  # arguments still go through the parser


FUSION_CHECK = r"""
import os
from relavium_desktop.application.paths import AppPaths
from relavium_desktop.ui import shell, startup_probe

mark = startup_probe.mark

def style_at(phase):
    mark(phase)
    if phase == "qt-init":  # the QApplication is made, the theme's style sheet not set yet
        from relavium_desktop.ui.qt import QApplication
        print("style:", QApplication.instance().style().name(), flush=True)
        os._exit(0)

startup_probe.mark = style_at
shell.run_app(["relavium-desktop"], AppPaths.from_environment())
"""


def test_the_real_start_runs_on_fusion(relavium_home: Path) -> None:
    env = dict(os.environ, RELAVIUM_HOME=str(relavium_home), RELAVIUM_STARTUP_PROBE="1", QT_QPA_PLATFORM="offscreen",
               QT_STYLE_OVERRIDE="windows")  # a desktop asking for another style: the app's choice wins
    done = subprocess.run([sys.executable, "-c", FUSION_CHECK], env=env, capture_output=True, text=True, timeout=120,
                          check=False)
    assert "style: fusion" in done.stdout.lower(), done.stdout + done.stderr


def test_a_window_on_another_qapplication_gets_fusion_from_the_theme(make_window, qapp) -> None:
    make_window()
    sheet = qapp.styleSheet()  # with a style sheet, style() is Qt's style-sheet style over the real one
    qapp.setStyleSheet("")
    try:
        assert qapp.style().name().lower() == "fusion"
    finally:
        qapp.setStyleSheet(sheet)
