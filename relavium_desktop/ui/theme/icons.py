"""Named icons, tinted with a palette role (no emoji, no image files of our own).

The glyphs come from one set, Phosphor (MIT licensed), the font file
qtawesome ships -- a maintained library, so no icon files of ours.  Only that
one font is loaded, on the first icon asked for (never before the first
paint), and the glyphs are drawn here: importing qtawesome itself would bring
qtpy (which resolves every Qt class up front) and load all twelve of its
bundled fonts and their character maps, ~0.1 s and several MB for the five
icons a window shows.  Icons are cached per name and colour, so a view that
asks for the same icon on every repaint gets the same QIcon back.
"""

from __future__ import annotations

import importlib.util
import json
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from relavium_desktop.ui.theme.palette import Palette

if TYPE_CHECKING:
    from relavium_desktop.ui.qt import QIcon, QPixmap

# Our name -> the qtawesome glyph; the list views may ask for.
GLYPHS: dict[str, str] = {
    "tool": "ph.wrench",
    "file": "ph.file",
    "folder": "ph.folder",
    "terminal": "ph.terminal-window",
    "globe": "ph.globe",
    "search": "ph.magnifying-glass",
    "git": "ph.git-branch",
    "clipboard": "ph.clipboard-text",
    "bell": "ph.bell",
    "plug": "ph.puzzle-piece",  # MCP servers: Phosphor 1.3 has no plug glyph
    "agent": "ph.robot",
    "image": "ph.image",
    "copy": "ph.copy",
    "edit": "ph.pencil-simple",
    "regenerate": "ph.arrows-clockwise",
    "check": "ph.check",
    "x": "ph.x",
    "warning": "ph.warning",
    "info": "ph.info",
    "play": "ph.play",
    "stop": "ph.stop",
    "pause": "ph.pause",
    "chevron-right": "ph.caret-right",
    "chevron-down": "ph.caret-down",
    "settings": "ph.gear",
    "chat": "ph.chat-circle",
    "workflow": "ph.flow-arrow",
    "history": "ph.clock-counter-clockwise",
    "refresh": "ph.arrow-clockwise",
    "add": "ph.plus",
    "trash": "ph.trash",
    "lock": "ph.lock",
    "zoom-in": "ph.magnifying-glass-plus",
    "zoom-out": "ph.magnifying-glass-minus",
    "fit": "ph.corners-out",
    "clock": "ph.clock",
    "money": "ph.currency-dollar",
    "shield": "ph.shield",  # the top bar's mode chip
    "paperclip": "ph.paperclip",  # the composer's attach button
    "arrow-up": "ph.arrow-up",  # the composer's send button
}

_cache: dict[tuple[str, str, str], QIcon] = {}
PIXMAP_SIZES = (12, 16, 20, 24, 32, 48, 64)


def icon(name: str, palette: Palette, role: str = "text") -> QIcon:
    """The icon ``name`` drawn in ``palette[role]`` (disabled: in ``muted``)."""
    glyph = GLYPHS.get(name)
    if glyph is None:
        raise KeyError(f"no icon named {name!r}; one of {sorted(GLYPHS)}")
    colour = palette[role]
    key = (name, colour, palette["muted"])
    cached = _cache.get(key)
    if cached is not None:
        return cached
    from relavium_desktop.ui.qt import QIcon

    family, codes = _phosphor()
    char = chr(codes[glyph])
    # Drawn once into pixmaps at the sizes the app uses: nothing is ever asked to paint
    # into a zero-sized pixmap (a widget not laid out yet), which Qt reports as a warning.
    made = QIcon()
    for px in PIXMAP_SIZES:
        made.addPixmap(_glyph_pixmap(family, char, px, colour), QIcon.Mode.Normal)
        made.addPixmap(_glyph_pixmap(family, char, px, palette["muted"]), QIcon.Mode.Disabled)
    _cache[key] = made
    return made


def _font_dir() -> Path:
    """qtawesome's fonts folder, found without importing qtawesome (nor qtpy)."""
    spec = importlib.util.find_spec("qtawesome")
    if spec is None or spec.origin is None:
        raise RuntimeError("the qtawesome package (its Phosphor icon font) is not installed")
    return Path(spec.origin).parent / "fonts"


@cache
def _phosphor() -> tuple[str, dict[str, int]]:
    """(font family, glyph name -> code point) of the Phosphor font, registered with Qt once."""
    from relavium_desktop.ui.qt import QFontDatabase

    fonts = _font_dir()
    ttf = max(fonts.glob("phosphor-[0-9]*.ttf"))
    charmap = fonts / ttf.name.replace("phosphor-", "phosphor-charmap-").replace(".ttf", ".json")
    font_id = QFontDatabase.addApplicationFont(str(ttf))
    families = QFontDatabase.applicationFontFamilies(font_id) if font_id >= 0 else []
    if not families:
        raise RuntimeError(f"the icon font {ttf.name} could not be loaded")
    names = {glyph.removeprefix("ph.") for glyph in GLYPHS.values()}
    table = json.loads(charmap.read_text(encoding="utf-8"))
    return families[0], {f"ph.{n}": int(table[n], 16) for n in names}


def _glyph_pixmap(family: str, char: str, px: int, colour: str) -> QPixmap:
    """One glyph, centred in a ``px`` square, its height 7/8 of it (room for the font's bearing)."""
    from relavium_desktop.ui.qt import QColor, QFont, QPainter, QPixmap, Qt

    pixmap = QPixmap(px, px)
    pixmap.fill(Qt.GlobalColor.transparent)
    font = QFont(family)
    font.setPixelSize(max(1, round(0.875 * px)))
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    painter.setFont(font)
    painter.setPen(QColor(colour))
    painter.drawText(pixmap.rect(), Qt.AlignmentFlag.AlignCenter, char)
    painter.end()
    return pixmap
