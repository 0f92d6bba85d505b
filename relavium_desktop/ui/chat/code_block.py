"""A fenced code block in the transcript: language, highlighted code, a Copy button.

Copy puts the exact code on the clipboard (the fence's content, not the
rendered text), which is what a person pastes into a terminal or editor.
While an answer streams, an unclosed fence is one of these growing a line at
a time (``set_code``): it is never shown as raw backticks.  New lines are
appended as plain code and coloured a moment later, lexed and painted in
slices between events: a growing fence highlighted whole on every flush
cost tens of milliseconds each, and even a line or two of Python costs
Pygments milliseconds.  Once the fence is closed, ``settle`` lexes it
whole, again in slices, and repaints only from the first line that came
out differently (a string spanning pieces).

Every line of code is one text block with no margins of its own and the
design's line height (``CODE_LINE_HEIGHT``): Qt gives a ``<pre>`` 12 px
above and below, and a line appended as a new block copied them, so
streamed code stood a blank line apart.  The frame's layout pads the code.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from relavium_desktop.ui.chat import look
from relavium_desktop.ui.chat.highlight import Look, highlight_html
from relavium_desktop.ui.chat.rich_text import FittedText
from relavium_desktop.ui.qt import (
    QApplication,
    QBrush,
    QColor,
    QFont,
    QFrame,
    QHBoxLayout,
    QLabel,
    Qt,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTimer,
    QToolButton,
    QVBoxLayout,
)
from relavium_desktop.ui.theme import set_variant
from relavium_desktop.ui.theme.fonts import MONO_FAMILY
from relavium_desktop.ui.theme.tokens import SPACE_1, SPACE_2, SPACE_3

if TYPE_CHECKING:
    from relavium_desktop.ui.chat.highlight import Run, SlicedLex

COPIED_MS = 1_500
CODE_LINE_HEIGHT = 120  # percent of the mono face's line spacing: the design's 1.6 em at 12.8 px
SLICE_S = 0.002  # streamed code is lexed and painted in slices of about this much CPU between events
_PLAIN = Look("", bold=False, italic=False, underline=False, background="")


@dataclass(slots=True)
class _Lighting:
    """Colouring in progress: code[origin:end] lexed as one piece (``whole``: the entire fence), then painted."""

    origin: int
    end: int
    whole: bool
    lexing: SlicedLex
    painted: int = 0  # runs painted so far
    position: int = 0  # where the next run starts in the document
    at: int = 0  # nothing before this position needs painting
    lexed: bool = False

    def __post_init__(self) -> None:
        self.position = self.at = self.origin


class CodeBlock(QFrame):
    def __init__(self, code: str, language: str = "", *, theme: Any = None, filename: str = "") -> None:
        super().__init__()
        self.setObjectName("codeBlock")
        self.code = code
        self.language = language
        self._filename = filename
        self._theme = theme
        self._shown: list[Run] | None = None  # streaming: the looks painted so far; None: drawn whole
        self._lit = 0  # streaming: the code before this offset is painted (``_shown``)
        self._rough = False  # pieces were lexed apart from what came before: ``settle`` checks them
        self._closed = False  # ``settle`` was asked: the next lexing is of the whole fence
        self._job: _Lighting | None = None
        self._waking = False
        self._formats: dict[Look, QTextCharFormat] = {}
        self._ends_line = False  # the appended code ends with a newline: the next piece opens a line
        look.surface(self, "code")
        self.setAccessibleName(f"{language} code" if language else "Code")
        self.caption = QLabel(language or filename or "code")
        set_variant(self.caption, "caption")
        look.tone(self.caption, "muted")
        self.copy_button = QToolButton()
        self.copy_button.setObjectName("copyCode")
        self.copy_button.setText("Copy")
        self.copy_button.setToolTip("Copy this code")
        self.copy_button.setAccessibleName("Copy code")
        self.copy_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.copy_button.setAutoRaise(True)
        set_variant(self.copy_button, "ghost")
        self.copy_button.clicked.connect(self.copy)
        self._reset = QTimer(self)
        self._reset.setSingleShot(True)
        self._reset.setInterval(COPIED_MS)
        self._reset.timeout.connect(lambda: self.copy_button.setText("Copy"))
        self.view = FittedText(wrap=False)
        self.view.setObjectName("codeText")
        self.view.setAccessibleName("Code")
        set_variant(self.view, "mono")
        header = QHBoxLayout()
        header.setContentsMargins(0, 0, 0, 0)
        header.addWidget(self.caption)
        header.addStretch(1)
        header.addWidget(self.copy_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(SPACE_3, SPACE_1, SPACE_2, SPACE_2)
        layout.setSpacing(SPACE_2)
        layout.addLayout(header)
        layout.addWidget(self.view)
        self.repaint_theme()

    def set_code(self, code: str) -> None:
        """Show ``code`` instead: a streaming fence that grew gets only its new part appended (coloured just after).

        A block made empty and then given code is a streaming one: it grows by appends from then on.
        """
        if code == self.code:
            return
        if not self.code and self._shown is None:
            self._shown = []
        if self._shown is not None and code.startswith(self.code):
            self._append(code[len(self.code) :])
            return
        self.code = code
        self._highlight()

    def settle(self) -> None:
        """The fence is closed: lex it whole (in slices, between events) and repaint the lines that differ."""
        if self._shown is None or self.settled:
            return
        self._closed = True
        self._job = None  # a piece being lexed is covered by the whole
        self._wake()

    @property
    def settled(self) -> bool:
        """Every line looks as the whole fence highlights (nothing waits to be lexed or repainted)."""
        if self._shown is None:
            return True
        return self._job is None and not self._rough and self._lit >= len(self.code)

    def _lexer(self) -> Any:
        from relavium_desktop.ui.chat.highlight import MAX_HIGHLIGHT_CHARS, lexer_for

        return lexer_for(self.language, self._filename) if len(self.code) <= MAX_HIGHLIGHT_CHARS else None

    def _append(self, added: str) -> None:
        """Append ``added`` (the lines a streaming fence grew by) as plain code; it is coloured just after."""
        cursor = QTextCursor(self.view.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.beginEditBlock()  # one layout for the whole piece
        if not self.code:
            block, char = _pre_formats(look.palette_of(self._theme)["code_text"])
            cursor.setBlockFormat(block)
            cursor.setBlockCharFormat(char)
        elif self._ends_line:
            cursor.insertBlock()
        self.code += added
        self._ends_line = added.endswith("\n")
        text = added[:-1] if self._ends_line else added  # the document keeps no trailing newline
        if text:
            cursor.insertText(text, self._format(_PLAIN))
        cursor.endEditBlock()
        self._wake()

    def _wake(self) -> None:
        if not self._waking:
            self._waking = True
            QTimer.singleShot(0, self, self._light)

    def _light(self) -> None:
        """One slice of colouring: lex what is waiting (the new lines, or the whole once closed), then paint."""
        from relavium_desktop.ui.chat.highlight import SlicedLex

        self._waking = False
        if self._shown is None:
            return
        if self._job is None:
            lexer = self._lexer()
            whole = self._closed and (self._rough or self._lit < len(self.code))
            origin = 0 if whole else self._lit
            end = len(self.code) if whole else self.code.rfind("\n") + 1
            if lexer is None:  # no highlighting for this language: plain is final
                self._lit, self._rough, self._closed = len(self.code), False, False
                return
            if end <= origin:
                return  # a partial line waits for its end
            style = look.code_style(self._theme)
            self._job = _Lighting(origin, end, whole, SlicedLex(self.code[origin:end], lexer, style))
            self._rough = self._rough or (origin > 0 and not whole)
        job = self._job
        if not job.lexed:  # lexing and painting take turns of their own: one slice is one budget
            job.lexed = job.lexing.step(SLICE_S)
            self._wake()
            return
        if self._paint(job):
            self._job = None
            if job.whole:
                self._rough, self._closed = False, False
                self._shown = job.lexing.result
            else:
                self._shown.extend(job.lexing.result)
            self._lit = max(self._lit, job.end)
            if self._lit < self.code.rfind("\n") + 1 or (self._closed and not self.settled):
                self._wake()
            return
        self._wake()

    def _paint(self, job: _Lighting) -> bool:
        """Paint a slice of ``job``'s runs onto the code; True once all are painted."""
        result = job.lexing.result
        if job.whole and job.painted == 0 and job.at == 0:
            job.at = self._first_difference(job)
        document = self.view.document()
        cursor = QTextCursor(document)
        last = document.characterCount() - 1
        deadline = time.perf_counter() + SLICE_S
        cursor.beginEditBlock()
        while job.painted < len(result):
            piece_look, text = result[job.painted]
            start, job.position = job.position, job.position + len(text)
            job.painted += 1
            if job.position <= job.at:
                continue  # a line before the first that differs: already right
            cursor.setPosition(min(max(start, job.at), last))
            cursor.setPosition(min(job.position, last), QTextCursor.MoveMode.KeepAnchor)
            cursor.setCharFormat(self._format(piece_look))
            if job.painted % 32 == 0 and time.perf_counter() >= deadline:
                break
        cursor.endEditBlock()
        return job.painted >= len(result)

    def _first_difference(self, job: _Lighting) -> int:
        """Where the whole lexing first differs from what is painted: the start of that line."""
        from relavium_desktop.ui.chat.highlight import split_lines

        assert self._shown is not None
        whole, shown = split_lines(job.lexing.result), split_lines(self._shown)
        offset = 0
        for line, painted in zip(whole, shown, strict=False):
            if line != painted:
                return offset
            offset += sum(len(text) for _, text in line) + 1
        return offset if len(whole) > len(shown) else len(self.code) + 1

    def _format(self, piece: Look) -> QTextCharFormat:
        """The character format of a look: the code surface's text with the style's colour and weight."""
        found = self._formats.get(piece)
        if found is None:
            _, base = _pre_formats(look.palette_of(self._theme)["code_text"])
            found = QTextCharFormat(base)
            if piece.colour:
                found.setForeground(QBrush(QColor(piece.colour)))
            if piece.bold:
                found.setFontWeight(QFont.Weight.Bold)
            if piece.italic:
                found.setFontItalic(True)
            if piece.underline:
                found.setFontUnderline(True)
            if piece.background:
                found.setBackground(QBrush(QColor(piece.background)))
            self._formats[piece] = found
        return found

    def repaint_theme(self) -> None:
        """Highlight again with the current palette's style (after a light/dark switch)."""
        self._highlight()

    def _highlight(self) -> None:
        self._formats.clear()
        self._rough = False
        if self._shown is not None:  # streaming: drawn again as one piece, then it keeps growing
            code, self.code, self._shown, self._ends_line, self._lit = self.code, "", [], False, 0
            self._job, self._closed = None, False
            self.view.clear()
            if code:
                self._append(code)
            return
        style = look.code_style(self._theme)
        colour = look.palette_of(self._theme)["code_text"]
        self.view.setHtml(
            highlight_html(self.code, self.language, style=style, filename=self._filename, colour=colour)
        )
        cursor = QTextCursor(self.view.document())
        cursor.select(QTextCursor.SelectionType.Document)
        cursor.mergeBlockFormat(_line_format())
        cursor.mergeCharFormat(_mono())

    def copy(self) -> None:
        QApplication.clipboard().setText(self.code)
        self.copy_button.setText("Copied")
        self._reset.start()

    def plain_text(self) -> str:
        return self.code


@lru_cache(maxsize=4)
def _pre_formats(colour: str) -> tuple[QTextBlockFormat, QTextCharFormat]:
    """The block and character formats a ``<pre>`` in ``colour`` gets, so appended code matches drawn code."""
    reference = QTextDocument()
    reference.setHtml(f'<pre style="color: {colour}">x</pre>')
    cursor = QTextCursor(reference)
    cursor.movePosition(QTextCursor.MoveOperation.End)
    block = QTextBlockFormat(cursor.blockFormat())
    block.merge(_line_format())
    char = QTextCharFormat(cursor.charFormat())
    char.merge(_mono())
    return block, char


def _mono() -> QTextCharFormat:
    """The shipped mono face for code: a ``<pre>`` asks for "monospace", which the desktop resolves its own way."""
    face = QTextCharFormat()
    face.setFontFamilies([MONO_FAMILY])
    return face


def _line_format() -> QTextBlockFormat:
    """A code line's spacing: no block margins (the frame pads the code), the design's line height."""
    line = QTextBlockFormat()
    line.setTopMargin(0)
    line.setBottomMargin(0)
    line.setLineHeight(CODE_LINE_HEIGHT, QTextBlockFormat.LineHeightTypes.ProportionalHeight.value)
    return line
