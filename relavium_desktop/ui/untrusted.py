"""Untrusted text in Qt widgets: the engine's display rule, with markers that look like markers.

What is shown is decided by :mod:`relavium_desktop.engine.display_text`
(controls escaped, bidi and invisible characters as ``⟦U+202E RLO⟧``); this
module only paints it.  A marker gets the theme's warning colours, so it
cannot be read as part of the name around it -- and a literal "⟦" that a
model typed stays ordinary text, because the pieces come from the engine,
not from searching the shown string.  Text without markers stays plain
text (no HTML is ever interpreted), so labels read back as before.
"""

from __future__ import annotations

import html
from typing import Any, Protocol

from relavium_desktop.engine.display_text import Mode, Shown, show
from relavium_desktop.ui.qt import QColor, QLabel, Qt, QTextCharFormat, QTextCursor
from relavium_desktop.ui.theme.fonts import MONO_FAMILY
from relavium_desktop.ui.theme.palette import LIGHT, Palette


class TextView(Protocol):
    """A QPlainTextEdit or QTextEdit (what the markers are painted in)."""

    def setPlainText(self, text: str) -> None: ...
    def document(self) -> Any: ...


def marked_html(shown: Shown, palette: Palette = LIGHT) -> str:
    """``shown`` as Qt rich text: text escaped, markers in the warning colours, newlines kept."""
    style = (
        f"background-color: {palette['warning_bg']}; color: {palette['warning']}; "
        f"font-weight: bold; font-family: {MONO_FAMILY}, monospace"
    )
    pieces = []
    for text, marker in shown.parts:
        escaped = html.escape(text, quote=False).replace("\n", "<br>")
        pieces.append(f'<span style="{style}">&#8201;{escaped}&#8201;</span>' if marker else escaped)
    return f'<span style="white-space: pre-wrap">{"".join(pieces)}</span>'


def set_shown(label: QLabel, shown: Shown | str, palette: Palette = LIGHT, mode: Mode = "line") -> Shown:
    """Put untrusted text on ``label``: plain text when nothing is marked, styled markers otherwise."""
    if isinstance(shown, str):
        shown = show(shown, mode)
    if shown.changed:
        label.setTextFormat(Qt.TextFormat.RichText)
        label.setText(marked_html(shown, palette))
    else:
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setText(shown.text)
    return shown


def fill_shown(view: TextView, shown: Shown | str, palette: Palette = LIGHT, mode: Mode = "block") -> Shown:
    """Put untrusted text in a text view as plain text, then colour its markers."""
    if isinstance(shown, str):
        shown = show(shown, mode)
    view.setPlainText(shown.text)
    paint_markers(view, shown, palette)
    return shown


def paint_markers(view: TextView, shown: Shown, palette: Palette = LIGHT) -> None:
    """Give the marker pieces of ``shown`` (already in ``view`` as plain text) the warning colours."""
    if not shown.changed:
        return
    fmt = QTextCharFormat()
    fmt.setBackground(QColor(palette["warning_bg"]))
    fmt.setForeground(QColor(palette["warning"]))
    cursor = QTextCursor(view.document())
    at = 0
    for text, marker in shown.parts:
        if marker:
            cursor.setPosition(at)
            cursor.setPosition(at + len(text), QTextCursor.MoveMode.KeepAnchor)
            cursor.mergeCharFormat(fmt)
        at += utf16_len(text)


def utf16_len(text: str) -> int:
    """Qt counts text positions in UTF-16 units: an emoji is two."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2
