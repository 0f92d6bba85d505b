"""The chat transcript: message blocks and tool-call cards in a scroll area.

Streaming cost is the point of this module.  Re-rendering a message's
Markdown per token is quadratic in the message length, so tokens are
buffered and appended as plain text with one cursor insert per ~30 ms
(a single-shot QTimer coalesces them); the message renders its Markdown
once, when it is complete.  Nothing before the streaming block is touched.

Opening a long session costs what the screen shows: history is kept as
block recipes, the last ``HISTORY_PAGE`` are built at once and earlier ones
as the reader scrolls towards the top -- one per event-loop turn, into a
small page that is inserted above when full (the scroll position is held).  Pages keep a long column cheap to lay out: the scroll
area's layout moves a few hundred pages, not thousands of blocks.  Nothing here touches the engine's
policy: the chat view feeds it events and carries out the message actions
it asks for (``edit_requested``, ``regenerate_requested``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from relavium_desktop.ui.chat.message_block import ROLE_TITLES, MessageBlock
from relavium_desktop.ui.chat.tool_cards import ToolCard
from relavium_desktop.ui.qt import QEvent, QObject, QScrollArea, QTimer, QVBoxLayout, QWidget, Signal

if TYPE_CHECKING:
    from relavium_desktop.engine.llm.messages import Message

__all__ = ["ROLE_TITLES", "MessageBlock", "ToolCard", "Transcript"]

FLUSH_MS = 30
HISTORY_PAGE = 30  # blocks built when a session opens
EARLIER_PAGE = 4  # blocks per page inserted above while scrolling up
EARLIER_MARGIN_PX = 1200  # start building earlier blocks this close to the top


class Transcript(QScrollArea):
    """The ordered blocks of one session; owns the streaming buffer and its timer."""

    flushed = Signal(int)  # characters appended by one coalesced flush
    edit_requested = Signal(str)  # the last question's text, to put back in the composer
    regenerate_requested = Signal()

    def __init__(self, theme: Any = None) -> None:
        super().__init__()
        self.setObjectName("transcript")
        self.setWidgetResizable(True)
        # Text views sit on their block's surface (a card, code, a terminal) without a box of their own.
        self.setStyleSheet("#transcript QTextBrowser { background: transparent; border: none; padding: 0; }")
        self.theme = theme
        self._inner = QWidget()
        self._inner.setObjectName("transcriptColumn")
        self._column = QVBoxLayout(self._inner)
        self._column.setContentsMargins(12, 8, 12, 8)
        self._column.setSpacing(8)
        self._column.addStretch(1)
        self.setWidget(self._inner)
        self.blocks: list[QWidget] = []
        self._unbuilt: list[Callable[[], QWidget]] = []  # older history, oldest first
        self._pages: list[QWidget] = []  # containers of history blocks, in the column
        self._next_page: list[QWidget] = []  # built, not yet inserted (newest last)
        self._anchor: QWidget | None = None  # the page the reader sees while pages go in above it
        self._hold = _HoldPlace(self.verticalScrollBar(), self)
        self._pending: list[str] = []
        self._current: MessageBlock | None = None
        self._open_cards: list[ToolCard] = []
        self._actions_enabled = True
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(FLUSH_MS)
        self._timer.timeout.connect(self.flush)
        self._earlier = QTimer(self)
        self._earlier.setSingleShot(True)
        self._earlier.setInterval(0)
        self._earlier.timeout.connect(self._build_earlier)
        self.verticalScrollBar().rangeChanged.connect(self._follow)
        self._stick = True
        self.verticalScrollBar().valueChanged.connect(self._scrolled)
        changed = getattr(theme, "changed", None)
        if changed is not None:
            changed.connect(self.repaint_theme)

    # -- blocks -----------------------------------------------------------------

    def _add(self, widget: QWidget) -> None:
        self._column.insertWidget(self._column.count() - 1, widget)
        self.blocks.append(widget)

    def clear(self) -> None:
        self._timer.stop()
        self._earlier.stop()
        self._pending.clear()
        self._current = None
        self._open_cards.clear()
        self._unbuilt.clear()
        for widget in [*self.blocks, *self._next_page, *self._pages]:
            self._column.removeWidget(widget)
            widget.deleteLater()
        self.blocks.clear()
        self._next_page.clear()
        self._pages.clear()
        self._set_anchor(None)
        self._stick = True

    def _message(self, role: str, text: str) -> MessageBlock:
        block = MessageBlock(role, text, markdown=role == "assistant", theme=self.theme)
        block.complete = True
        self._wire(block)
        return block

    def _wire(self, block: MessageBlock) -> None:
        block.edit_requested.connect(lambda: self.edit_requested.emit(block.text))
        block.regenerate_requested.connect(self.regenerate_requested.emit)

    def add_message(self, role: str, text: str) -> MessageBlock:
        self.end_stream()
        block = self._message(role, text)
        self._add(block)
        self._update_actions()
        return block

    def add_card(self, tool_id: str, tool_input: Any) -> ToolCard:
        self.end_stream()
        card = ToolCard(tool_id, tool_input, theme=self.theme)
        self._add(card)
        self._open_cards.append(card)
        return card

    def messages(self) -> list[MessageBlock]:
        return [b for b in self.blocks if isinstance(b, MessageBlock)]

    def cards(self) -> list[ToolCard]:
        return [b for b in self.blocks if isinstance(b, ToolCard)]

    @property
    def unbuilt(self) -> int:
        """History blocks not in the column yet (above what has been scrolled to)."""
        return len(self._unbuilt) + len(self._next_page)

    def plain_text(self) -> str:
        """The conversation as a person reads it: messages, and each tool call with its outcome."""
        parts: list[str] = []
        for block in self.blocks:
            if isinstance(block, MessageBlock):
                parts.append(block.shown_text())
            elif isinstance(block, ToolCard):
                parts.append(block.plain_text())
        return "\n".join(parts)

    def repaint_theme(self) -> None:
        """Icons, highlighting and generated HTML again in the new palette."""
        for block in [*self.blocks, *self._next_page]:
            block.repaint_theme()  # type: ignore[attr-defined]

    # -- history --------------------------------------------------------------------

    def show_history(self, messages: list[Message]) -> None:
        """Replace the blocks with a stored session's; only the last page is built now."""
        from relavium_desktop.engine.llm.messages import TextPart, ToolCallPart, ToolResultPart

        self.clear()
        recipes: list[Callable[[], QWidget]] = []
        for index, message in enumerate(messages):
            if message.role == "user" and message.text:
                recipes.append(partial(self._message, "user", message.text))
            elif message.role == "assistant":
                text = "".join(p.text for p in message.parts if isinstance(p, TextPart))
                if text:
                    recipes.append(partial(self._message, "assistant", text))
                # A call's result is in the tool message right after it (call ids repeat across turns
                # with some providers, so they are matched within that one message).
                after = messages[index + 1] if index + 1 < len(messages) else None
                results = {p.call_id: p for p in after.parts if isinstance(p, ToolResultPart)} \
                    if after is not None and after.role == "tool" else {}
                for call in (p for p in message.parts if isinstance(p, ToolCallPart)):
                    recipes.append(partial(self._stored_card, call, results.get(call.call_id)))
        self._unbuilt = recipes[:-HISTORY_PAGE] if len(recipes) > HISTORY_PAGE else []
        self._insert_page([recipe() for recipe in recipes[-HISTORY_PAGE:]], at_top=False)
        self._update_actions()

    def _insert_page(self, built: list[QWidget], *, at_top: bool) -> None:
        page = QWidget()
        page.setObjectName("transcriptPage")
        column = QVBoxLayout(page)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(self._column.spacing())
        for widget in built:
            column.addWidget(widget)
        if at_top:
            top = self._column.itemAt(0)  # the top page (the stretch when empty: no widget)
            self._set_anchor(top.widget() if top is not None else None)
            self._column.insertWidget(0, page)
            self._pages.insert(0, page)
            self.blocks[:0] = built
        else:
            self._column.insertWidget(self._column.count() - 1, page)
            self._pages.append(page)
            self.blocks.extend(built)

    def _stored_card(self, call: Any, result: Any) -> ToolCard:
        card = ToolCard(call.name, dict(call.args), theme=self.theme)
        if result is None:
            card.cancel()
        elif not result.is_error:
            card.set_result({"success": True, "outputSummary": result.content, "fromHistory": True})
        else:
            card.set_result({"success": False, "fromHistory": True, "error": {
                "code": result.error_code or "tool_failed", "reason": result.error_reason,
                "message": result.content}})
        return card

    def _build_earlier(self) -> None:
        """Build one earlier block per event-loop turn; every ``EARLIER_PAGE`` go in above as a page.

        One block (1-5 ms) and, every few turns, one small page to lay out
        keep each turn well inside a frame while the reader scrolls.
        """
        if self._unbuilt:
            self._next_page.insert(0, self._unbuilt.pop()())
        if self._next_page and (len(self._next_page) >= EARLIER_PAGE or not self._unbuilt):
            built, self._next_page = self._next_page, []
            self._insert_page(built, at_top=True)
        if (self._unbuilt or self._next_page) and self.verticalScrollBar().value() < EARLIER_MARGIN_PX:
            self._earlier.start()

    def build_all(self) -> None:
        """Build every history block (copy-all, search, tests)."""
        while self._unbuilt or self._next_page:
            self._build_earlier()

    # -- message actions --------------------------------------------------------------

    def set_actions_enabled(self, enabled: bool) -> None:
        """No edit or regenerate while a turn runs: there is no settled last turn to redo."""
        self._actions_enabled = enabled
        self._update_actions()

    def _update_actions(self) -> None:
        messages = self.messages()
        last_user = next((m for m in reversed(messages) if m.role == "user"), None)
        last = messages[-1] if messages else None
        for message in messages:
            message.set_actions(
                edit=self._actions_enabled and message is last_user,
                regenerate=self._actions_enabled and message is last and message.role == "assistant",
            )

    def remove_last_turn(self, *, keep_question: bool) -> None:
        """Take the last question's turn off the screen: its answer, and the question unless kept."""
        self.end_stream()
        start = next((i for i, b in reversed(list(enumerate(self.blocks)))
                      if isinstance(b, MessageBlock) and b.role == "user"), None)
        if start is None:
            return
        cut = start + 1 if keep_question else start
        for widget in self.blocks[cut:]:
            self._column.removeWidget(widget)
            widget.deleteLater()
        del self.blocks[cut:]
        self._open_cards.clear()
        self._update_actions()

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
            self._current = MessageBlock("assistant", theme=self.theme)
            self._wire(self._current)
            self._add(self._current)
            self._update_actions()
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
        if (self._unbuilt or self._next_page) and value < EARLIER_MARGIN_PX and not self._earlier.isActive():
            self._earlier.start()

    def _set_anchor(self, block: QWidget | None) -> None:
        if self._anchor is not None:
            self._anchor.removeEventFilter(self._hold)
        self._anchor = block
        if block is not None:
            block.installEventFilter(self._hold)

    def _follow(self, _min: int, maximum: int) -> None:
        if self._stick:
            self.verticalScrollBar().setValue(maximum)


class _HoldPlace(QObject):
    """Scrolls by as much as the watched block moved down, so it stays where the reader saw it."""

    def __init__(self, bar: Any, parent: QObject) -> None:
        super().__init__(parent)
        self._bar = bar

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Move:
            moved = event.pos().y() - event.oldPos().y()  # type: ignore[attr-defined]
            self._bar.setValue(self._bar.value() + moved)
        return False
