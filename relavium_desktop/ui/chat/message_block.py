"""One message in the transcript: who said it, its text, and what can be done with it.

While an answer streams, tokens are appended as plain text to one text view
(a cursor insert per coalesced flush, nothing before it re-laid out).  When
the message is complete it renders itself once: Markdown prose in text
views and each top-level fenced block as a ``CodeBlock``.  A user's message
stays the plain text they typed.

The actions (Copy; Edit and resend on the last question; Regenerate on the
last answer) are asked for with signals; the transcript decides which
message shows which, and the chat view carries them out.  An answer that was
cut off (the app was killed, the stream died, the user stopped it) says so
under its text, with Try again (a regenerate) while it is the last answer.
"""

from __future__ import annotations

from typing import Any

from relavium_desktop.ui.chat import look
from relavium_desktop.ui.chat.code_block import CodeBlock
from relavium_desktop.ui.chat.rich_text import FittedText
from relavium_desktop.ui.qt import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTextCursor,
    QToolButton,
    QVBoxLayout,
    QWidget,
    Signal,
)

ROLE_TITLES = {"user": "You", "assistant": "Assistant"}


class MessageBlock(QFrame):
    edit_requested = Signal()
    regenerate_requested = Signal()

    def __init__(self, role: str, text: str = "", *, markdown: bool = True, theme: Any = None) -> None:
        super().__init__()
        self.role = role
        self.setObjectName(f"{role}Message")
        self._theme = theme
        self._markdown = markdown
        self._raw: list[str] = [text] if text else []
        self._has_links = False
        self.complete = False
        if role == "user":
            look.surface(self, "card")
        self.heading = QLabel(ROLE_TITLES.get(role, role.title()))
        font = self.heading.font()
        font.setBold(True)
        self.heading.setFont(font)
        look.tone(self.heading, "muted")
        self.copy_button = self._action("copy", "Copy this message", self.copy)
        # Edit and Regenerate exist on one message each at a time: built when first offered.
        self._edit_button: QToolButton | None = None
        self._regenerate_button: QToolButton | None = None
        self._header = header = QHBoxLayout()
        header.setContentsMargins(0, 0, 0, 0)
        header.addWidget(self.heading)
        header.addStretch(1)
        header.addWidget(self.copy_button)
        self._column = QVBoxLayout(self)
        self._column.setContentsMargins(6, 4, 6, 4)
        self._column.setSpacing(4)
        self._column.addLayout(header)
        self.parts: list[QWidget] = []
        self.attachments: QWidget | None = None
        self.body = FittedText()
        self._add_part(self.body)
        self.cut_off_note: QWidget | None = None  # "Answer cut off — Try again", once marked
        self.try_again_button: QPushButton | None = None
        if text:
            self.render_text()

    def _action(self, icon_name: str, tip: str, slot: Any) -> QToolButton:
        button = QToolButton()
        button.setObjectName(f"{icon_name}Message")
        button.setAutoRaise(True)
        button.setToolTip(tip)
        button.setIcon(look.themed_icon(icon_name, self._theme, "muted"))
        button.clicked.connect(slot)
        return button

    @property
    def edit_button(self) -> QToolButton:
        if self._edit_button is None:
            self._edit_button = self._action("edit", "Edit and resend", self.edit_requested.emit)
            self._edit_button.setVisible(False)
            self._header.insertWidget(self._header.count() - 1, self._edit_button)
        return self._edit_button

    @property
    def regenerate_button(self) -> QToolButton:
        if self._regenerate_button is None:
            self._regenerate_button = self._action("regenerate", "Regenerate this answer",
                                                   self.regenerate_requested.emit)
            self._regenerate_button.setVisible(False)
            self._header.insertWidget(self._header.count() - 1, self._regenerate_button)
        return self._regenerate_button

    def add_attachments(self, row: QWidget) -> None:
        """The message's attached images (``thumbnails.ThumbnailRow``), above its text."""
        self.attachments = row
        self._column.insertWidget(1, row)
        if not self.text:
            self.body.setVisible(False)  # an image sent without words: no empty text box

    def _add_part(self, widget: QWidget) -> None:
        self._column.addWidget(widget)
        self.parts.append(widget)

    @property
    def text(self) -> str:
        return "".join(self._raw)

    def set_actions(self, *, edit: bool = False, regenerate: bool = False) -> None:
        if edit or self._edit_button is not None:
            self.edit_button.setVisible(edit)
        if regenerate or self._regenerate_button is not None:
            self.regenerate_button.setVisible(regenerate)

    @property
    def cut_off(self) -> bool:
        return self.cut_off_note is not None

    def mark_cut_off(self) -> None:
        """Say under the text that this answer was cut off, with Try again (asks for the answer anew)."""
        if self.cut_off_note is not None:
            return
        note = QWidget()
        note.setObjectName("cutOffNote")
        row = QHBoxLayout(note)
        row.setContentsMargins(0, 0, 0, 0)
        label = QLabel("Answer cut off")
        label.setToolTip("The answer stopped before it was finished; what arrived is kept.")
        look.tone(label, "muted")
        button = QPushButton("Try again")
        button.setObjectName("tryAgainCutOff")
        button.setAutoDefault(False)
        button.setToolTip("Ask for this answer again")
        button.clicked.connect(self.regenerate_requested.emit)
        row.addWidget(label)
        row.addWidget(button)
        row.addStretch(1)
        self.cut_off_note, self.try_again_button = note, button
        self._column.addWidget(note)

    def append(self, chunk: str) -> None:
        """Append streamed text at the end: one cursor insert, no re-layout of what came before."""
        self._raw.append(chunk)
        cursor = QTextCursor(self.body.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(chunk)

    def finish(self) -> None:
        """Render the whole message once, now that it is complete."""
        if self.complete:
            return
        self.complete = True
        self.render_text()

    def render_text(self) -> None:
        """Lay the text out: Markdown prose and code blocks, or the plain text a user typed."""
        from relavium_desktop.ui.chat.markdown import Prose, segments

        for widget in self.parts[1:]:
            self._column.removeWidget(widget)
            widget.deleteLater()
        del self.parts[1:]
        if not self._markdown:
            self.body.setPlainText(self.text)
            return
        # A QTextDocument bakes the link colour in when the HTML is read: give it the palette's.
        palette = look.palette_of(self._theme)
        link = f'<a style="color: {palette["link"]}" href='
        table = f'<table bordercolor="{palette["muted"]}" border="1"'
        pieces = segments(self.text)
        # Links and tables carry palette colours in their HTML: a theme switch renders them again.
        self._has_links = any(isinstance(p, Prose) and ("<a href=" in p.html or "<table" in p.html) for p in pieces)
        if not pieces or not isinstance(pieces[0], Prose):
            self.body.clear()
            self.body.setVisible(False)
        for index, piece in enumerate(pieces):
            if isinstance(piece, Prose):
                view = self.body if index == 0 else FittedText()
                view.setHtml(piece.html.replace("<a href=", link).replace('<table border="1"', table))
                view.setVisible(True)
                if view is not self.body:
                    self._add_part(view)
            else:
                self._add_part(CodeBlock(piece.code, piece.language, theme=self._theme))
        if self.cut_off_note is not None:  # the note stays under the text
            self._column.removeWidget(self.cut_off_note)
            self._column.addWidget(self.cut_off_note)

    def repaint_theme(self) -> None:
        if self.attachments is not None:
            self.attachments.repaint_theme()  # type: ignore[attr-defined]
        for name, button in (("copy", self.copy_button), ("edit", self._edit_button),
                             ("regenerate", self._regenerate_button)):
            if button is not None:
                button.setIcon(look.themed_icon(name, self._theme, "muted"))
        if self._has_links:
            self.render_text()  # its links were coloured for the old palette
            return
        for part in self.parts:
            if isinstance(part, CodeBlock):
                part.repaint_theme()

    def code_blocks(self) -> list[CodeBlock]:
        return [p for p in self.parts if isinstance(p, CodeBlock)]

    def copy(self) -> None:
        """The message as written (Markdown source for an answer), which pastes well anywhere."""
        QApplication.clipboard().setText(self.text)

    def shown_text(self) -> str:
        shown: list[str] = []
        for part in self.parts:
            if isinstance(part, CodeBlock):
                shown.append(part.plain_text())
            elif part.isVisibleTo(self) or part is self.body:
                text = part.toPlainText()  # type: ignore[attr-defined]
                shown.append(text.rstrip() if self.complete and self._markdown else text)
        return "\n".join(s for s in shown if s)
