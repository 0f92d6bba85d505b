"""PySide6's per-import source scan no longer keeps module sources in linecache (idle memory)."""

from __future__ import annotations

import subprocess
import sys

from relavium_desktop.ui.pyside_import_scan import mentions_pyside

CHILD = """
import sys, linecache
from relavium_desktop.ui import pyside_import_scan
import PySide6.QtCore
if sys.argv[1] == "install":
    assert pyside_import_scan.install(), "PySide6 no longer has the hook this module replaces"
import relavium_desktop.ui.theme.palette as palette, relavium_desktop.ui.qt as qt
print(palette.__file__ in linecache.cache, qt.__file__ in linecache.cache)
print(sys.modules["shibokensupport.feature"].pyside_feature_dict.get("relavium_desktop.ui.qt"))
"""


def run_child(mode: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", CHILD, mode], capture_output=True, text=True, timeout=60,
                          check=True)
    return done.stdout.split()


def test_modules_imported_after_qt_stay_out_of_linecache_with_the_same_verdict() -> None:
    # Without the replacement PySide6 reads each new module through linecache (this is what it fixes).
    assert run_child("plain") == ["True", "True", "0"]
    # With it nothing is cached, and qt.py (which names PySide6) still gets PySide6's "uses PySide" verdict (0).
    assert run_child("install") == ["False", "False", "0"]


def test_the_scan_reads_the_source_file() -> None:
    import relavium_desktop.ui.qt as qt
    import relavium_desktop.ui.theme.palette as palette

    assert mentions_pyside(qt) and not mentions_pyside(palette)
    assert not mentions_pyside(sys)  # no source file: as PySide6's own scan answers
