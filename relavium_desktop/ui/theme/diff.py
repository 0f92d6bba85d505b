"""Colouring a unified diff in a QPlainTextEdit, line by line, from the palette.

Added lines get the ``diff_add`` roles and removed lines ``diff_remove``
across the full width of the view (a block background, which QPlainTextEdit
paints edge to edge), hunk headers the ``info`` colour and file headers
``muted``; the text itself is never changed, so copying it still gives a
diff.  Called again after a theme switch, it recolours in place.
:class:`DiffView` adds the old and new line numbers in a gutter beside the text.
"""

from __future__ import annotations

from relavium_desktop.ui.qt import (
    QBrush,
    QColor,
    QPainter,
    QPaintEvent,
    QPlainTextEdit,
    QRect,
    QResizeEvent,
    QSize,
    Qt,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QWidget,
)
from relavium_desktop.ui.theme.palette import Palette
from relavium_desktop.ui.theme.tokens import SPACE_1, SPACE_2


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
    if isinstance(view, DiffView):
        view.set_palette(palette)


def line_numbers(lines: list[str]) -> list[tuple[int | None, int | None]]:
    """(old, new) line numbers of each line of a unified diff; None where a side has no line.

    Hunk headers (``@@ -12,31 +12,9 @@``) set the counters; a diff without one
    (a new file: only ``+`` lines) counts the new side from 1.  Header lines
    (``---``/``+++``, ``@@``, notes in brackets) get no numbers.
    """
    old, new = 1, 1
    numbers: list[tuple[int | None, int | None]] = []
    for index, line in enumerate(lines):
        if not line and index == len(lines) - 1:  # after the diff's final newline: no line of the file
            numbers.append((None, None))
        elif line.startswith("@@"):
            old, new = _hunk_start(line, old, new)
            numbers.append((None, None))
        elif line.startswith(("+++ ", "--- ", "new file: ", "(")):
            numbers.append((None, None))
        elif line.startswith("+"):
            numbers.append((None, new))
            new += 1
        elif line.startswith("-"):
            numbers.append((old, None))
            old += 1
        else:
            numbers.append((old, new))
            old += 1
            new += 1
    return numbers


def _hunk_start(header: str, old: int, new: int) -> tuple[int, int]:
    """The first old and new line numbers of a hunk header, or the counters as they were."""
    parts = header.split()
    try:
        return int(parts[1][1:].split(",")[0]), int(parts[2][1:].split(",")[0])
    except (IndexError, ValueError):
        return old, new


def change_counts(diff: str) -> tuple[int, int]:
    """(added, removed) line counts of a unified diff, headers not counted."""
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith(("+++ ", "--- ")):
            continue
        if line.startswith("+"):
            added += 1
        elif line.startswith("-"):
            removed += 1
    return added, removed


class DiffView(QPlainTextEdit):
    """A read-only diff with a gutter of old and new line numbers in the faint colour.

    The numbers are painted beside the text, not put into it, so selecting and
    copying still gives the diff itself.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self._palette: Palette | None = None
        self._numbers: list[tuple[int | None, int | None]] = []
        self.gutter = _Gutter(self)
        self.blockCountChanged.connect(lambda _count: self._renumber())
        self.updateRequest.connect(self._scrolled)
        self._renumber()

    def numbers(self) -> list[tuple[int | None, int | None]]:
        """The (old, new) numbers the gutter shows, one per line of the diff."""
        return list(self._numbers)

    def gutter_width(self) -> int:
        digits = max(2, len(str(max((n or 0 for pair in self._numbers for n in pair), default=0))))
        return 2 * (self.fontMetrics().horizontalAdvance("9") * digits + SPACE_2) + SPACE_1

    def set_palette(self, palette: Palette) -> None:
        self._palette = palette
        self.gutter.update()

    def _renumber(self) -> None:
        self._numbers = line_numbers(self.toPlainText().split("\n"))
        self.setViewportMargins(self.gutter_width(), 0, 0, 0)
        self.gutter.update()

    def _scrolled(self, rect: QRect, dy: int) -> None:
        if dy:
            self.gutter.scroll(0, dy)
        else:
            self.gutter.update(0, rect.y(), self.gutter.width(), rect.height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        area = self.contentsRect()
        self.gutter.setGeometry(QRect(area.left(), area.top(), self.gutter_width(), area.height()))

    def paint_gutter(self, event: QPaintEvent) -> None:
        painter = QPainter(self.gutter)
        palette = self._palette
        if palette is not None:
            painter.fillRect(event.rect(), QColor(palette["code_bg"]))
            painter.setPen(QColor(palette["faint"]))
        column = (self.gutter_width() - SPACE_1) // 2
        block = self.firstVisibleBlock()
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        height = self.fontMetrics().height()
        while block.isValid() and top <= event.rect().bottom():
            index = block.blockNumber()
            if index < len(self._numbers):
                for side, number in enumerate(self._numbers[index]):
                    if number is not None:
                        painter.drawText(
                            QRect(side * column, top, column - SPACE_2, height),
                            int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
                            str(number),
                        )
            top += round(self.blockBoundingRect(block).height())
            block = block.next()
        painter.end()


class _Gutter(QWidget):
    """The strip left of a :class:`DiffView` its line numbers are painted on."""

    def __init__(self, view: DiffView) -> None:
        super().__init__(view)
        self._view = view

    def sizeHint(self) -> QSize:
        return QSize(self._view.gutter_width(), 0)

    def paintEvent(self, event: QPaintEvent) -> None:
        self._view.paint_gutter(event)
