"""Named icons, tinted with a palette role (no emoji, no image files of our own).

The glyphs come from one set, Phosphor (MIT licensed), in qtawesome's
bundled icon fonts -- a maintained library, so no icon files of ours; qtawesome is
imported on the first request, never before the first paint: it loads font
files.  Icons are cached per name and colour, so a view that asks for
the same icon on every repaint gets the same QIcon back.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from relavium_desktop.ui.theme.palette import Palette

if TYPE_CHECKING:
    from relavium_desktop.ui.qt import QIcon

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
    # qtawesome finds its Qt binding through qtpy; name ours so it never picks another one installed.
    os.environ.setdefault("QT_API", "pyside6")
    import qtawesome

    from relavium_desktop.ui.qt import QIcon, QSize

    source: QIcon = qtawesome.icon(glyph, color=colour, color_disabled=palette["muted"])
    # Drawn once into pixmaps at the sizes the app uses: the font engine behind the
    # source icon is then never asked for a zero-sized pixmap (a widget not laid out
    # yet), which Qt reports as a paint-device warning.
    made = QIcon()
    for px in PIXMAP_SIZES:
        for mode in (QIcon.Mode.Normal, QIcon.Mode.Disabled):
            made.addPixmap(source.pixmap(QSize(px, px), mode), mode)
    _cache[key] = made
    return made
