"""A fenced code block in the transcript: language, highlighted code, a Copy button.

Copy puts the exact code on the clipboard (the fence's content, not the
rendered text), which is what a person pastes into a terminal or editor.
While an answer streams, an unclosed fence is one of these growing a line at
a time (``set_code``): it is never shown as raw backticks.  Only the new
lines are lexed and appended (a growing fence highlighted whole on every
flush cost tens of milliseconds each); once the fence is closed, ``settle``
lexes it whole in slices between events and redraws only the lines that
came out differently (a string spanning lines).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from relavium_desktop.ui.chat import look
from relavium_desktop.ui.chat.highlight import highlight_html
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
from relavium_desktop.ui.theme.tokens import SPACE_1, SPACE_2, SPACE_3

if TYPE_CHECKING:
    from relavium_desktop.ui.chat.highlight import Look, Run, SlicedLex

COPIED_MS = 1_500
SETTLE_SLICE_S = 0.003  # a closed fence is lexed whole in slices of about this much CPU


class CodeBlock(QFrame):
    def __init__(self, code: str, language: str = "", *, theme: Any = None, filename: str = "") -> None:
        super().__init__()
        self.setObjectName("codeBlock")
        self.code = code
        self.language = language
        self._filename = filename
        self._theme = theme
        self._shown: list[Run] | None = None  # what streaming appended, as runs; None: drawn whole
        self._rough = False  # appended pieces were lexed on their own: ``settle`` checks them
        self._settling: SlicedLex | None = None
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
        layout.setSpacing(SPACE_1)
        layout.addLayout(header)
        layout.addWidget(self.view)
        self.repaint_theme()

    def set_code(self, code: str) -> None:
        """Show ``code`` instead: a streaming fence that grew gets only its new part lexed and appended.

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
        """The fence is closed: lex it whole, a slice per event-loop turn, and redraw the lines that differ."""
        from relavium_desktop.ui.chat.highlight import SlicedLex

        if not self._rough or self._settling is not None:
            return
        lexer = self._lexer()
        if lexer is None:
            self._rough = False
            return
        self._settling = SlicedLex(self.code, lexer, look.code_style(self._theme))
        QTimer.singleShot(0, self, self._settle_step)

    @property
    def settled(self) -> bool:
        """Every line looks as the whole fence highlights (no appended piece waits for ``settle``)."""
        return not self._rough and self._settling is None

    def _lexer(self) -> Any:
        from relavium_desktop.ui.chat.highlight import MAX_HIGHLIGHT_CHARS, lexer_for

        return lexer_for(self.language, self._filename) if len(self.code) <= MAX_HIGHLIGHT_CHARS else None

    def _settle_step(self) -> None:
        from relavium_desktop.ui.chat.highlight import split_lines

        lexing = self._settling
        if lexing is None or self._shown is None:
            return
        if not lexing.step(SETTLE_SLICE_S):
            QTimer.singleShot(0, self, self._settle_step)
            return
        self._settling, self._rough = None, False
        whole, shown = split_lines(lexing.result), split_lines(self._shown)
        self._shown = lexing.result
        first = next((n for n, (a, b) in enumerate(zip(whole, shown, strict=True)) if a != b), None)
        if first is None:
            return
        if self.code.endswith("\n"):
            whole.pop()  # the last newline ends the last line; it opens no block
        cursor = QTextCursor(self.view.document().findBlockByNumber(first))
        cursor.beginEditBlock()
        cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        for index, line in enumerate(whole[first:]):
            if index:
                cursor.insertBlock()
            for piece_look, text in line:
                cursor.insertText(text, self._format(piece_look))
        cursor.endEditBlock()

    def _append(self, added: str) -> None:
        """Lex ``added`` (the lines a streaming fence grew by) on its own and append it to the view."""
        from relavium_desktop.ui.chat.highlight import runs

        assert self._shown is not None
        self._rough = self._rough or bool(self.code)
        self.code += added
        lexer = self._lexer()
        style = look.code_style(self._theme)
        pieces = runs(lexer.get_tokens(added) if lexer is not None else [(None, added)], style)
        self._shown.extend(pieces)
        cursor = QTextCursor(self.view.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.beginEditBlock()  # one layout for the whole piece
        if len(self._shown) == len(pieces):
            block, char = _pre_formats(look.palette_of(self._theme)["code_text"])
            cursor.setBlockFormat(block)
            cursor.setBlockCharFormat(char)
        elif self._ends_line:
            cursor.insertBlock()
        self._ends_line = added.endswith("\n")
        if self._ends_line:  # the document keeps no trailing newline: the next piece starts its line
            last_look, last_text = pieces[-1]
            pieces[-1] = (last_look, last_text[:-1])
        for piece_look, text in pieces:
            if text:
                cursor.insertText(text, self._format(piece_look))
        cursor.endEditBlock()

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
        self._rough, self._settling = False, None
        if self._shown is not None:  # streaming: drawn again as one piece, then it keeps growing
            code, self.code, self._shown, self._ends_line = self.code, "", [], False
            self.view.clear()
            if code:
                self._append(code)
            return
        style = look.code_style(self._theme)
        colour = look.palette_of(self._theme)["code_text"]
        self.view.setHtml(
            highlight_html(self.code, self.language, style=style, filename=self._filename, colour=colour)
        )

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
    return QTextBlockFormat(cursor.blockFormat()), QTextCharFormat(cursor.charFormat())
