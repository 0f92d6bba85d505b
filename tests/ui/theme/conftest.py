"""A real Theme over a scratch settings file, applied to the test's QApplication."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from relavium_desktop.ui.qt import QApplication, QSettings
from relavium_desktop.ui.theme import Theme


@pytest.fixture
def theme(qapp, tmp_path: Path) -> Iterator[Theme]:
    settings = QSettings(str(tmp_path / "desktop-settings.ini"), QSettings.Format.IniFormat)
    theme = Theme(settings)
    theme.set_choice("light")
    theme.apply()
    yield theme
    theme.set_choice("light")
    theme.set_font_pt(0)
    QApplication.instance().setStyleSheet("")
