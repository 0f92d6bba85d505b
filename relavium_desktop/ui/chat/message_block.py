"""One message in the transcript: who said it, its text, and what can be done with it.

The look follows the design: a user's message is a soft bubble on the right
(the plain text they typed); an answer is plain text beside a small app
mark, so a long answer reads like a document.  Neither has a "You" /
"Assistant" title (the role is the block's accessible name).

While an answer streams it is rendered as Markdown block by block
(``stream_render.StreamRender``): finished blocks are drawn once, the open
one as far as it parses, so no raw fence or table pipe ever flashes, and
``finish`` only finalises the open block.  An answer opened from history is
rendered in one go (``render_text``): Markdown prose in text views and each
top-level fenced block as a ``CodeBlock``.

The actions (Copy; Edit and resend on the last question; Regenerate on the
last answer) are small icon buttons under the message, asked for with
signals; the transcript decides which message shows which, and the chat view
carries them out.  An answer that was cut off (the app was killed, the
stream died, the user stopped it) says so under its text, with Try again (a
regenerate) while it is the last answer.
"""

from __future__ import annotations

from typing import Any

from relavium_desktop.ui.chat import look
from relavium_desktop.ui.chat.code_block import CodeBlock
from relavium_desktop.ui.chat.rich_text import FittedText
from relavium_desktop.ui.qt import (
    QApplication,
    QFontMetrics,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSize,
    Qt,
    QTextCursor,
    QTimer,
    QToolButton,
    QVBoxLayout,
    QWidget,
    Signal,
)
from relavium_desktop.ui.theme import set_variant
from relavium_desktop.ui.theme.tokens import SPACE_1, SPACE_2, SPACE_3, SPACE_4, SPACE_6

ROLE_TITLES = {"user": "You", "assistant": "Assistant"}
BUBBLE_MAX_WIDTH = 560  # the design's user bubble: at most this wide, right-aligned in the reading column
MARK_SIZE = SPACE_6 - SPACE_1  # the answer's app mark: a 28 px soft-accent square
MARK_ICON = SPACE_4
ACTION_ICON = SPACE_4


def _warm_markdown() -> None:
    from relavium_desktop.ui.chat import stream_render
    from relavium_desktop.ui.chat.markdown import render_inline

    del stream_render
    render_inline("")
    QTimer.singleShot(0, _warm_highlighting)  # its own turn of the loop: two shorter stalls, not one


def _warm_highlighting() -> None:
    from relavium_desktop.ui.chat.highlight import warm

    warm()


class _BubbleText(FittedText):
    """The user's text: asks for the width of its longest line, so a short question makes a small bubble."""

    natural_width = 0

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        return QSize(self.natural_width, hint.height()) if self.natural_width else hint


class MessageBlock(QFrame):
    edit_requested = Signal()
    regenerate_requested = Signal()

    def __init__(self, role: str, text: str = "", *, markdown: bool = True, theme: Any = None) -> None:
        super().__init__()
        self.role = role
        self.setObjectName(f"{role}Message")
        self.setAccessibleName(ROLE_TITLES.get(role, role.title()))
        self._theme = theme
        self._markdown = markdown
        self._raw: list[str] = [text] if text else []
        self._has_links = False
        self._stream: Any = None  # the StreamRender while an answer streams
        self.complete = False
        self.copy_button = self._action("copy", "Copy this message", self.copy)
        # Edit and Regenerate exist on one message each at a time: built when first offered.
        self._edit_button: QToolButton | None = None
        self._regenerate_button: QToolButton | None = None
        self._actions = actions = QHBoxLayout()
        actions.setContentsMargins(0, 0, 0, 0)
        actions.setSpacing(SPACE_1)
        self._column = QVBoxLayout()
        self._column.setContentsMargins(0, 0, 0, 0)
        self._column.setSpacing(SPACE_2)
        self._body_column = QVBoxLayout()  # the text's parts, in order
        self._body_column.setContentsMargins(0, 0, 0, 0)
        self._body_column.setSpacing(SPACE_2)
        self.parts: list[QWidget] = []
        self.attachments: QWidget | None = None
        self.body = _BubbleText() if role == "user" else FittedText()
        self.body.setAccessibleName("Message text")
        self._add_part(self.body)
        outer = QHBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(SPACE_3)
        if role == "user":
            self.bubble = QFrame()
            self.bubble.setObjectName("userBubble")
            look.surface(self.bubble, "bubble")
            inside = QVBoxLayout(self.bubble)
            inside.setContentsMargins(SPACE_3, SPACE_2, SPACE_3, SPACE_2)
            inside.addLayout(self._body_column)
            self.bubble.setMaximumWidth(BUBBLE_MAX_WIDTH)
            self._column.addWidget(self.bubble, 0, Qt.AlignmentFlag.AlignRight)
            actions.addStretch(1)
            actions.addWidget(self.copy_button)
            outer.addStretch(1)
            outer.addLayout(self._column)
        else:
            self.mark = QLabel()
            self.mark.setObjectName("answerMark")
            self.mark.setFixedSize(MARK_SIZE, MARK_SIZE)
            self.mark.setAlignment(Qt.AlignmentFlag.AlignCenter)
            self.mark.setAccessibleName("Answer")
            look.surface(self.mark, "accent-soft")
            self._paint_mark()
            self._column.addLayout(self._body_column)
            actions.addWidget(self.copy_button)
            actions.addStretch(1)
            outer.addWidget(self.mark, 0, Qt.AlignmentFlag.AlignTop)
            outer.addLayout(self._column, 1)
        self._column.addLayout(actions)
        self.cut_off_note: QWidget | None = None  # "Answer cut off — Try again", once marked
        self.try_again_button: QPushButton | None = None
        if text:
            self.render_text()
        if role == "user":
            # An answer is coming: build the Markdown parser while the model thinks, not on its first token.
            QTimer.singleShot(0, _warm_markdown)

    def _paint_mark(self) -> None:
        from relavium_desktop.ui.identity import app_icon

        self.mark.setPixmap(app_icon().pixmap(QSize(MARK_ICON, MARK_ICON)))

    def _action(self, icon_name: str, tip: str, slot: Any) -> QToolButton:
        button = QToolButton()
        button.setObjectName(f"{icon_name}Message")
        button.setAutoRaise(True)
        button.setToolTip(tip)
        button.setAccessibleName(tip)
        button.setIconSize(QSize(ACTION_ICON, ACTION_ICON))
        set_variant(button, "ghost")
        button.setIcon(look.themed_icon(icon_name, self._theme, "muted"))
        button.clicked.connect(slot)
        return button

    def _offer(self, button: QToolButton) -> None:
        """Put an action beside Copy, hidden until ``set_actions`` shows it."""
        button.setVisible(False)
        self._actions.insertWidget(self._actions.indexOf(self.copy_button) + 1, button)

    @property
    def edit_button(self) -> QToolButton:
        if self._edit_button is None:
            self._edit_button = self._action("edit", "Edit and resend", self.edit_requested.emit)
            self._offer(self._edit_button)
        return self._edit_button

    @property
    def regenerate_button(self) -> QToolButton:
        if self._regenerate_button is None:
            self._regenerate_button = self._action(
                "regenerate", "Regenerate this answer", self.regenerate_requested.emit
            )
            self._offer(self._regenerate_button)
        return self._regenerate_button

    def add_attachments(self, row: QWidget) -> None:
        """The message's attached images (``thumbnails.ThumbnailRow``), above its text."""
        self.attachments = row
        self._column.insertWidget(
            0, row, 0, Qt.AlignmentFlag.AlignRight if self.role == "user" else Qt.AlignmentFlag.AlignLeft
        )
        if not self.text:
            self.body.setVisible(False)  # an image sent without words: no empty text box
            if self.role == "user":
                self.bubble.setVisible(False)

    def _add_part(self, widget: QWidget) -> None:
        self._body_column.addWidget(widget)
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
        self._column.insertWidget(self._column.count() - 1, note)  # under the text, above the actions

    def append(self, chunk: str) -> None:
        """Append streamed text: Markdown drawn block by block, or plain text at the end."""
        self._raw.append(chunk)
        if not self._markdown:
            cursor = QTextCursor(self.body.document())
            cursor.movePosition(QTextCursor.MoveOperation.End)
            cursor.insertText(chunk)
            return
        if self._streamer().update(self.text):
            QTimer.singleShot(0, self, self._catch_up)

    def _catch_up(self) -> None:
        """Draw what a flush left for the next turn of the loop (it stopped after building a code block)."""
        if self._stream is not None and not self.complete and self._stream.update(self.text):
            QTimer.singleShot(0, self, self._catch_up)

    def _streamer(self) -> Any:
        if self._stream is None:
            from relavium_desktop.ui.chat.stream_render import StreamRender

            self._stream = StreamRender(self)
        return self._stream

    def finish(self) -> None:
        """The message is complete: finalise its open block (what came before stays as drawn)."""
        if self.complete:
            return
        self.complete = True
        if self._markdown and self._stream is not None:
            self._stream.update(self.text, final=True)
            self._stream = None

    # -- what StreamRender draws into ----------------------------------------------

    def prose_view(self) -> FittedText:
        """The text view prose goes into now: the last part, or a new one after a code block."""
        last = self.parts[-1]
        if isinstance(last, FittedText):
            last.setVisible(True)
            return last
        view = FittedText()
        self._add_part(view)
        return view

    def add_code(self, code: str, language: str) -> CodeBlock:
        if len(self.parts) == 1 and self.body.document().isEmpty():
            self.body.setVisible(False)  # the answer opens with code: no empty text box above it
        block = CodeBlock(code, language, theme=self._theme)
        self._add_part(block)
        return block

    def paint(self, markup: str) -> str:
        """Rendered HTML with links and table rules in the palette's colours (a document bakes them in)."""
        from relavium_desktop.ui.chat.markdown import paint

        if "<a " in markup or "<table" in markup:
            self._has_links = True  # a theme switch renders them again
        palette = look.palette_of(self._theme)
        return paint(markup, link=palette["link"], muted=palette["muted"], border=palette["border"])

    def render_text(self) -> None:
        """Lay the text out in one go: Markdown prose and code blocks, or the plain text a user typed."""
        from relavium_desktop.ui.chat.markdown import Prose, segments

        self._stream = None
        for widget in self.parts[1:]:
            self._body_column.removeWidget(widget)
            widget.deleteLater()
        del self.parts[1:]
        if not self._markdown:
            self.body.setPlainText(self.text)
            if self.role == "user":
                self._fit_bubble()
            return
        pieces = segments(self.text)
        if not pieces or not isinstance(pieces[0], Prose):
            self.body.clear()
            self.body.setVisible(False)
        for index, piece in enumerate(pieces):
            if isinstance(piece, Prose):
                view = self.body if index == 0 else FittedText()
                view.setHtml(self.paint(piece.html))
                view.setVisible(True)
                if view is not self.body:
                    self._add_part(view)
            else:
                self._add_part(CodeBlock(piece.code, piece.language, theme=self._theme))

    def _fit_bubble(self) -> None:
        """A short question makes a small bubble: as wide as its longest line, up to the maximum."""
        metrics = QFontMetrics(self.body.font())
        widest = max((metrics.horizontalAdvance(line) for line in self.text.split("\n")), default=0)
        margins = self.body.contentsMargins()
        slack = 2 * int(self.body.document().documentMargin()) + margins.left() + margins.right() + SPACE_2
        natural = min(widest + slack, BUBBLE_MAX_WIDTH)
        self.body.setMaximumWidth(natural)
        if isinstance(self.body, _BubbleText):
            self.body.natural_width = natural
            self.body.updateGeometry()

    def repaint_theme(self) -> None:
        if self.attachments is not None:
            self.attachments.repaint_theme()  # type: ignore[attr-defined]
        for name, button in (
            ("copy", self.copy_button),
            ("edit", self._edit_button),
            ("regenerate", self._regenerate_button),
        ):
            if button is not None:
                button.setIcon(look.themed_icon(name, self._theme, "muted"))
        if self._has_links and self.complete:
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
