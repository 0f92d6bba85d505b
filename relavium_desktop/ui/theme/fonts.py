"""The two shipped typefaces: Inter for the interface, JetBrains Mono for code, paths and terminals.

The design is drawn in these two faces; shipping them (both under the SIL Open
Font License, texts beside the files in ``fonts/``) makes the window look the
same on every desktop instead of falling back to whatever sans the system has.
They are registered with Qt once per process (``QFontDatabase`` is process
wide), from :meth:`Theme.apply` before the first paint; the files are small
static weights so the cost stays a few milliseconds (measured with the
start-up probe's "fonts" phase).

Sizes stay relative to the desktop's body size: this module only names
families, never a size, so Settings -> Appearance -> text size keeps working.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from relavium_desktop.ui.qt import QFont, QFontDatabase, QWidget

UI_FAMILY: Final = "Inter"
MONO_FAMILY: Final = "JetBrains Mono"
FONTS_DIR: Final = Path(__file__).resolve().parent / "fonts"
FONT_FILES: Final = (
    "Inter-Regular.otf",
    "Inter-Medium.otf",
    "Inter-SemiBold.otf",
    "Inter-Bold.otf",
    "JetBrainsMono-Regular.ttf",
    "JetBrainsMono-Bold.ttf",
)
# JetBrains Mono draws "->", "!=" and "==" as one glyph through these OpenType
# features; in code and paths every character must stay visible as typed.
LIGATURE_FEATURES: Final = ("calt", "liga", "dlig")

_loaded: list[str] = []  # families registered in this process (QFontDatabase is per process)


def load_fonts() -> tuple[str, ...]:
    """Register the shipped font files with Qt, once per process; the families now available.

    A file that cannot be read or parsed is skipped (the app then falls back
    to the desktop's fonts) rather than stopping the start.
    """
    if _loaded:
        return tuple(_loaded)
    families: set[str] = set()
    for name in FONT_FILES:
        font_id = QFontDatabase.addApplicationFont(str(FONTS_DIR / name))
        if font_id >= 0:
            families.update(QFontDatabase.applicationFontFamilies(font_id))
    _loaded.extend(sorted(families))
    return tuple(_loaded)


def without_ligatures(font: QFont) -> QFont:
    """``font`` with the ligature features turned off (a copy)."""
    plain = QFont(font)
    for tag in LIGATURE_FEATURES:
        plain.setFeature(QFont.Tag(tag), 0)
    return plain


def mono_font(point_size: int = 0) -> QFont:
    """JetBrains Mono without ligatures, at ``point_size`` (0: the application's body size).

    For views that set a font by hand (log views, diff blocks) instead of the
    stylesheet's ``mono`` variant or ``code``/``terminal`` surfaces.
    """
    load_fonts()
    font = QFont(MONO_FAMILY)
    font.setStyleHint(QFont.StyleHint.Monospace)
    font.setFixedPitch(True)
    if point_size > 0:
        font.setPointSize(point_size)
    else:
        from relavium_desktop.ui.qt import QApplication

        body = QApplication.font().pointSize()
        if body > 0:
            font.setPointSize(body)
    return without_ligatures(font)


def mark_mono(widget: QWidget) -> None:
    """Turn ligatures off on ``widget``'s own font; the stylesheet then supplies the mono family.

    Qt style sheets cannot switch OpenType features, but a sheet's font is
    resolved on top of the widget's font, so the features set here survive.
    """
    widget.setFont(without_ligatures(widget.font()))
