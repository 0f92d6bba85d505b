"""Colouring a unified diff in a QPlainTextEdit, line by line, from the palette.

Added lines get the ``diff_add`` roles and removed lines ``diff_remove``
across the full width of the view (a block background, which QPlainTextEdit
paints edge to edge), hunk headers the ``info`` colour and file headers
``muted``; the text itself is never changed, so copying it still gives a
diff.  Called again after a theme switch, it recolours in place.
"""

from __future__ import annotations

from relavium_desktop.ui.qt import (
    QBrush,
    QColor,
    QPlainTextEdit,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
)
from relavium_desktop.ui.theme.palette import Palette


def line_roles(line: str) -> tuple[str | None, str]:
    """(background role or None, text role) for one line of a unified diff."""
    if line.startswith(("+++ ", "--- ")):
        return None, "muted"
    if line.startswith("+"):
        return "diff_add_bg", "diff_add_text"
    if line.startswith("-"):
        return "diff_remove_bg", "diff_remove_text"
    if line.startswith("@@"):
        return None, "info"
    return None, "code_text"


def colour_diff(view: QPlainTextEdit, palette: Palette) -> None:
    """Give every line of ``view``'s diff its colours from ``palette``."""
    document = view.document()
    cursor = QTextCursor(document)
    cursor.beginEditBlock()
    block = document.firstBlock()
    while block.isValid():
        background, text = line_roles(block.text())
        cursor.setPosition(block.position())
        cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
        block_format = QTextBlockFormat()
        if background is not None:
            block_format.setBackground(QBrush(QColor(palette[background])))
        cursor.setBlockFormat(block_format)
        char_format = QTextCharFormat()
        char_format.setForeground(QBrush(QColor(palette[text])))
        cursor.mergeCharFormat(char_format)
        block = block.next()
    cursor.endEditBlock()
