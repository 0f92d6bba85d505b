"""The chat transcript: message blocks and tool-call cards in a scroll area.

Streaming cost is the point of this module.  Re-rendering a message's
Markdown per token is quadratic in the message length, so tokens are
buffered and appended as plain text with one cursor insert per ~30 ms
(a single-shot QTimer coalesces them); the Markdown is rendered once, when
the message is complete.  Nothing here touches the engine: the chat view
feeds it events.
"""

from __future__ import annotations

import json
from typing import Any

from relavium_desktop.ui.qt import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QScrollArea,
    QSizePolicy,
    Qt,
    QTextBrowser,
    QTextCursor,
    QTimer,
    QVBoxLayout,
    QWidget,
    Signal,
)

FLUSH_MS = 30
CARD_ARGS_CHARS = 600
CARD_RESULT_CHARS = 4_000
ROLE_TITLES = {"user": "You", "assistant": "Assistant"}


class MessageBlock(QFrame):
    """One message; grows with its text and never scrolls on its own."""

    def __init__(self, role: str, text: str = "", *, markdown: bool = True) -> None:
        super().__init__()
        self.role = role
        self.setObjectName(f"{role}Message")
        self._raw: list[str] = [text] if text else []
        self.complete = False
        self.heading = QLabel(ROLE_TITLES.get(role, role.title()))
        font = self.heading.font()
        font.setBold(True)
        self.heading.setFont(font)
        self.body = QTextBrowser()
        self.body.setOpenExternalLinks(True)
        self.body.setFrameShape(QFrame.Shape.NoFrame)
        self.body.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.body.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.body.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.body.document().documentLayout().documentSizeChanged.connect(self._fit)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addWidget(self.heading)
        layout.addWidget(self.body)
        if text:
            if markdown:
                self.body.setMarkdown(text)
            else:
                self.body.setPlainText(text)
        self._fit()

    @property
    def text(self) -> str:
        return "".join(self._raw)

    def append(self, chunk: str) -> None:
        """Append streamed text at the end: one cursor insert, no re-layout of what came before."""
        self._raw.append(chunk)
        cursor = QTextCursor(self.body.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(chunk)

    def finish(self) -> None:
        """Render the whole message's Markdown once, now that it is complete."""
        if self.complete:
            return
        self.complete = True
        self.body.setMarkdown(self.text)

    def shown_text(self) -> str:
        return self.body.toPlainText()

    def _fit(self, *_: object) -> None:
        height = int(self.body.document().size().height()) + 4
        self.body.setFixedHeight(max(height, 20))


class ToolCard(QFrame):
    """A tool call: tool, masked arguments, status, bounded result, spill link."""

    def __init__(self, tool_id: str, tool_input: Any) -> None:
        super().__init__()
        self.setObjectName("toolCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.tool_id = tool_id
        from relavium_desktop.engine.tools.masking import clip

        self.status = "running"
        self.title = QLabel(f"🔧 {tool_id}")
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.status_label = QLabel("running…")
        self.status_label.setObjectName("toolStatus")
        self.args_label = QLabel(clip(_render_args(tool_input), CARD_ARGS_CHARS))
        self.args_label.setObjectName("toolArgs")
        self.args_label.setWordWrap(True)
        self.args_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.result_view = QPlainTextEdit()
        self.result_view.setObjectName("toolResult")
        self.result_view.setReadOnly(True)
        self.result_view.setMaximumHeight(140)
        self.result_view.setVisible(False)
        self.spill_link = QLabel()
        self.spill_link.setObjectName("spillLink")
        self.spill_link.setOpenExternalLinks(True)
        self.spill_link.setVisible(False)
        top = QHBoxLayout()
        top.addWidget(self.title)
        top.addStretch(1)
        top.addWidget(self.status_label)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.addLayout(top)
        layout.addWidget(self.args_label)
        layout.addWidget(self.result_view)
        layout.addWidget(self.spill_link)

    def set_result(self, event: dict[str, Any]) -> None:
        from relavium_desktop.engine.tools.masking import clip, mask_text

        if event.get("success"):
            self.status = "done"
            self.status_label.setText("done")
            summary = str(event.get("outputSummary") or "")
        else:
            error = event.get("error") or {}
            code = str(error.get("code", "tool_failed"))
            self.status = "cancelled" if code == "cancelled" else "failed"
            reason = f" ({error['reason']})" if error.get("reason") else ""
            self.status_label.setText(f"{code}{reason}")
            summary = mask_text(str(error.get("message", "")))
        if summary:
            self.result_view.setPlainText(clip(mask_text(summary), CARD_RESULT_CHARS))
            self.result_view.setVisible(True)
        spill = event.get("spill")
        if isinstance(spill, dict) and spill.get("path"):
            from relavium_desktop.ui.qt import QUrl

            url = QUrl.fromLocalFile(str(spill["path"])).toString()
            self.spill_link.setText(f'<a href="{url}">Full output ({int(spill.get("bytes", 0)):,} bytes)</a>')
            self.spill_link.setVisible(True)

    def cancel(self) -> None:
        if self.status == "running":
            self.status = "cancelled"
            self.status_label.setText("cancelled")


def _render_args(tool_input: Any) -> str:
    from relavium_desktop.engine.tools.masking import mask_text, mask_value

    masked = mask_value(tool_input)
    if isinstance(masked, dict) and set(masked) == {"preview"}:
        return str(masked["preview"])
    try:
        return json.dumps(masked, ensure_ascii=False, indent=None)
    except (TypeError, ValueError):
        return mask_text(str(masked))


class Transcript(QScrollArea):
    """The ordered blocks of one session; owns the streaming buffer and its timer."""

    flushed = Signal(int)  # characters appended by one coalesced flush

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("transcript")
        self.setWidgetResizable(True)
        self._inner = QWidget()
        self._column = QVBoxLayout(self._inner)
        self._column.setContentsMargins(8, 8, 8, 8)
        self._column.addStretch(1)
        self.setWidget(self._inner)
        self.blocks: list[QWidget] = []
        self._pending: list[str] = []
        self._current: MessageBlock | None = None
        self._open_cards: list[ToolCard] = []
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(FLUSH_MS)
        self._timer.timeout.connect(self.flush)
        self.verticalScrollBar().rangeChanged.connect(self._follow)
        self._stick = True
        self.verticalScrollBar().valueChanged.connect(self._scrolled)

    # -- blocks -----------------------------------------------------------------

    def _add(self, widget: QWidget) -> None:
        self._column.insertWidget(self._column.count() - 1, widget)
        self.blocks.append(widget)

    def clear(self) -> None:
        self._timer.stop()
        self._pending.clear()
        self._current = None
        self._open_cards.clear()
        for widget in self.blocks:
            self._column.removeWidget(widget)
            widget.deleteLater()
        self.blocks.clear()

    def add_message(self, role: str, text: str) -> MessageBlock:
        self.end_stream()
        block = MessageBlock(role, text, markdown=role == "assistant")
        block.complete = True
        self._add(block)
        return block

    def add_card(self, tool_id: str, tool_input: Any) -> ToolCard:
        self.end_stream()
        card = ToolCard(tool_id, tool_input)
        self._add(card)
        self._open_cards.append(card)
        return card

    def messages(self) -> list[MessageBlock]:
        return [b for b in self.blocks if isinstance(b, MessageBlock)]

    def cards(self) -> list[ToolCard]:
        return [b for b in self.blocks if isinstance(b, ToolCard)]

    def plain_text(self) -> str:
        """The conversation as a person reads it: messages, and each tool call with its outcome."""
        parts: list[str] = []
        for block in self.blocks:
            if isinstance(block, MessageBlock):
                parts.append(block.shown_text())
            elif isinstance(block, ToolCard):
                parts.append(f"{block.tool_id}: {block.status_label.text()}")
                if block.result_view.isVisibleTo(block):
                    parts.append(block.result_view.toPlainText())
        return "\n".join(parts)

    # -- streaming ----------------------------------------------------------------

    def stream(self, token: str) -> None:
        """Buffer a token; the timer appends the buffer in one insert."""
        self._pending.append(token)
        if not self._timer.isActive():
            self._timer.start()

    def flush(self) -> None:
        self._timer.stop()
        if not self._pending:
            return
        chunk = "".join(self._pending)
        self._pending.clear()
        if self._current is None:
            self._current = MessageBlock("assistant")
            self._add(self._current)
        self._current.append(chunk)
        self.flushed.emit(len(chunk))

    def end_stream(self) -> None:
        """Flush what is buffered and render the streamed message's Markdown."""
        self.flush()
        if self._current is not None:
            self._current.finish()
            self._current = None

    def tool_result(self, event: dict[str, Any]) -> None:
        # Calls are dispatched one at a time, so results arrive in call order.
        card = self._open_cards.pop(0) if self._open_cards else None
        if card is None or card.tool_id != event.get("toolId"):
            card = self.add_card(str(event.get("toolId", "?")), {})
            self._open_cards.remove(card)
        card.set_result(event)

    def cancel_open_cards(self) -> None:
        for card in self._open_cards:
            card.cancel()
        self._open_cards.clear()

    # -- scrolling ------------------------------------------------------------------

    def _scrolled(self, value: int) -> None:
        bar = self.verticalScrollBar()
        self._stick = value >= bar.maximum() - 8

    def _follow(self, _min: int, maximum: int) -> None:
        if self._stick:
            self.verticalScrollBar().setValue(maximum)
