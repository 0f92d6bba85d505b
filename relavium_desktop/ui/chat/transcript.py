"""The chat transcript: message blocks and tool-call cards in a scroll area.

Streaming cost is the point of this module.  Re-rendering a message's
Markdown per token is quadratic in the message length, so tokens are
buffered and appended as plain text with one cursor insert per ~30 ms
(a single-shot QTimer coalesces them); the message renders its Markdown
once, when it is complete.  Nothing before the streaming block is touched.

Opening a long session costs what the screen shows: history is kept as
block recipes, the last ``HISTORY_PAGE`` are built at once and earlier ones
as the reader scrolls towards the top -- one per event-loop turn, into a
small page that is inserted above when full (the scroll position is held).
Pages keep a long column cheap to lay out (the scroll area's layout moves a
few hundred pages, not thousands of blocks), and pages far from the screen
release their widgets and are built again when scrolled back to
(``history_pages.py``), so memory follows what is near the screen.

Nothing here touches the engine's policy: the chat view feeds it events
and carries out the message actions it asks for (``edit_requested``,
``regenerate_requested``, and the undo requests: a write card's Undo and Redo,
a user message's "Undo changes since this message").
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from relavium_desktop.ui.chat.history_pages import HistoryPage, Recipe
from relavium_desktop.ui.qt import QEvent, QFrame, QObject, QScrollArea, QTimer, QVBoxLayout, QWidget, Signal
from relavium_desktop.ui.theme.tokens import PAD_MAIN, READING_WIDTH, SPACE_2, SPACE_3, SPACE_5

if TYPE_CHECKING:
    from relavium_desktop.engine.llm.messages import Message
    from relavium_desktop.ui.chat.message_block import ROLE_TITLES, MessageBlock
    from relavium_desktop.ui.chat.tool_cards import ToolCard
    from relavium_desktop.ui.qt import QImage

    # One attachment of a user's message: handle, mime type, name, and its thumbnail when already made.
    Attached = tuple[str, str, str, QImage | None]

__all__ = ["ROLE_TITLES", "MessageBlock", "ToolCard", "Transcript"]


def __getattr__(name: str) -> Any:
    """The block classes load with the first block (Markdown, highlighting, the tool cards' renderers:
    ~20 ms), not with the empty transcript a chat page shows before its first paint."""
    if name in ("ROLE_TITLES", "MessageBlock"):
        from relavium_desktop.ui.chat import message_block

        return getattr(message_block, name)
    if name == "ToolCard":
        from relavium_desktop.ui.chat.tool_cards import ToolCard

        return ToolCard
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

FLUSH_MS = 30
UNDO_SINCE = "Undo changes since this message"
HISTORY_PAGE = 30  # blocks built when a session opens
EARLIER_PAGE = 4  # blocks per page inserted above while scrolling up
EARLIER_MARGIN_PX = 1200  # start building earlier blocks this close to the top
KEEP_SCREENS = 3  # pages further than this many screens from the view are released
PAGER_MS = 100  # while the reader scrolls, pages are looked at this often
RELEASE_STEP = 4  # pages released per look, so letting go never stalls a frame


class Transcript(QScrollArea):
    """The ordered blocks of one session; owns the streaming buffer and its timer."""

    flushed = Signal(int)  # characters appended by one coalesced flush
    edit_requested = Signal(str)  # the last question's text, to put back in the composer
    regenerate_requested = Signal()
    card_undo_requested = Signal(str)  # a write's checkpoint id
    card_redo_requested = Signal(str)  # an undo's checkpoint id
    undo_since_requested = Signal(object)  # the user MessageBlock whose turn and later turns to undo

    def __init__(self, theme: Any = None) -> None:
        super().__init__()
        self.setObjectName("transcript")
        self.setWidgetResizable(True)
        # Text views sit on their block's surface (a card, code, a terminal) without a box of their own.
        self.setStyleSheet("#transcript QTextBrowser { background: transparent; border: none; padding: 0; }")
        self.theme = theme
        # Reads an attachment's bytes in the open session's media scope (set by the chat view).
        self.load_media: Callable[[str], Awaitable[bytes]] | None = None
        # The chat's UndoService (application/undo.py), for write cards' diffs and Undo (set by the chat view).
        self.undo_service: Callable[[], Any] | None = None
        self.undone: dict[str, str] = {}  # write checkpoint id -> the undo that took it back, while it stands
        self._inner = QWidget()
        self._inner.setObjectName("transcriptColumn")
        self._column = QVBoxLayout(self._inner)
        # The top stays at the grid's smallest step: the place-holding while pages go in above is tuned to it.
        self._column.setContentsMargins(PAD_MAIN, SPACE_2, PAD_MAIN, SPACE_5)
        self._column.setSpacing(SPACE_3)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self._column.addStretch(1)
        self.setWidget(self._inner)
        self._live: list[QWidget] = []  # blocks of this sitting, after the history pages
        self._unbuilt: list[Recipe] = []  # older history, oldest first
        self._pages: list[HistoryPage] = []  # stored history, in column order
        self._next_page: list[tuple[Recipe, QWidget]] = []  # built, not yet inserted (newest last)
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
        self._pager = QTimer(self)
        self._pager.setSingleShot(True)
        self._pager.setInterval(PAGER_MS)
        self._pager.timeout.connect(self._page)
        self.verticalScrollBar().rangeChanged.connect(self._follow)
        self._stick = True
        self.verticalScrollBar().valueChanged.connect(self._scrolled)
        changed = getattr(theme, "changed", None)
        if changed is not None:
            changed.connect(self.repaint_theme)

    # -- the reading column ---------------------------------------------------------

    def viewportEvent(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self._centre_column()
        return super().viewportEvent(event)

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        self._centre_column()

    def _centre_column(self) -> None:
        """Keep the blocks in a column of at most ``READING_WIDTH``, centred on the whole page.

        Centred on the scroll area's full width (not the viewport's), so the
        column lines up with the composer below whether or not the scrollbar
        shows: the scrollbar takes its width from the right-hand gap.
        """
        full = self.width()
        left = max(PAD_MAIN, (full - READING_WIDTH) // 2)
        right = max(PAD_MAIN, left - (full - self.viewport().width()))
        if self.viewport().width() - left - right > READING_WIDTH:  # an odd pixel: never wider than the column
            right = self.viewport().width() - left - READING_WIDTH
        margins = self._column.contentsMargins()
        if (margins.left(), margins.right()) != (left, right):
            self._column.setContentsMargins(left, margins.top(), right, margins.bottom())

    # -- blocks -----------------------------------------------------------------

    @property
    def blocks(self) -> list[QWidget]:
        """The blocks that exist now, in order (released history pages have none)."""
        return [b for page in self._pages for b in page.blocks] + self._live

    def _add(self, widget: QWidget) -> None:
        self._column.insertWidget(self._column.count() - 1, widget)
        self._live.append(widget)

    def clear(self) -> None:
        self._timer.stop()
        self._earlier.stop()
        self._pending.clear()
        self._current = None
        self._open_cards.clear()
        self._unbuilt.clear()
        self._pager.stop()
        for widget in [*self._live, *(w for _, w in self._next_page), *self._pages]:
            self._column.removeWidget(widget)
            widget.deleteLater()
        self._live.clear()
        self._next_page.clear()
        self._pages.clear()
        self._set_anchor(None)
        self._stick = True

    def _message(self, role: str, text: str, media: Sequence[Attached] = (), *, cut_off: bool = False,
                 index: int | None = None) -> MessageBlock:
        from relavium_desktop.ui.chat.message_block import MessageBlock

        block = MessageBlock(role, text, markdown=role == "assistant", theme=self.theme)
        block.message_index = index  # type: ignore[attr-defined]  # its place in the stored session, if known
        block.complete = True
        if cut_off:
            block.mark_cut_off()
        if media:
            from relavium_desktop.ui.chat.thumbnails import ThumbnailRow

            block.add_attachments(ThumbnailRow(media, self.load_media, self.theme))
        self._wire(block)
        return block

    def _wire(self, block: MessageBlock) -> None:
        block.edit_requested.connect(lambda: self.edit_requested.emit(block.text))
        block.regenerate_requested.connect(self.regenerate_requested.emit)
        if block.role == "user" and self.undo_service is not None:
            button = block._action("history", UNDO_SINCE, lambda: self.undo_since_requested.emit(block))
            button.setObjectName("undoSinceMessage")
            block._offer(button)  # beside Copy, shown by _update_actions
            block.undo_since_button = button  # type: ignore[attr-defined]

    def add_message(self, role: str, text: str, media: Sequence[Attached] = ()) -> MessageBlock:
        """A message block; ``media`` are the user's attachments as (handle, mime, name, thumbnail or None)."""
        self.end_stream()
        block = self._message(role, text, media)
        self._add(block)
        self._update_actions()
        return block

    def add_card(self, tool_id: str, tool_input: Any) -> ToolCard:
        from relavium_desktop.ui.chat.tool_cards import ToolCard

        self.end_stream()
        card = self._wire_card(ToolCard(tool_id, tool_input, theme=self.theme, undo=self.undo_service))
        self._add(card)
        self._open_cards.append(card)
        return card

    def messages(self) -> list[MessageBlock]:
        from relavium_desktop.ui.chat.message_block import MessageBlock

        return [b for b in self.blocks if isinstance(b, MessageBlock)]

    def cards(self) -> list[ToolCard]:
        from relavium_desktop.ui.chat.tool_cards import ToolCard

        return [b for b in self.blocks if isinstance(b, ToolCard)]

    @property
    def unbuilt(self) -> int:
        """History blocks not in the column yet (above what has been scrolled to)."""
        return len(self._unbuilt) + len(self._next_page)

    @property
    def released(self) -> int:
        """History pages whose widgets were let go, far from the screen."""
        return sum(1 for page in self._pages if page.released)

    def plain_text(self) -> str:
        """The conversation as a person reads it: messages, and each tool call with its outcome."""
        from relavium_desktop.ui.chat.message_block import MessageBlock
        from relavium_desktop.ui.chat.tool_cards import ToolCard

        parts: list[str] = []
        for block in self.blocks:
            if isinstance(block, MessageBlock):
                parts.append(block.shown_text())
            elif isinstance(block, ToolCard) or hasattr(block, "plain_text"):
                parts.append(block.plain_text())  # a card, or an undo's note
        return "\n".join(parts)

    def repaint_theme(self) -> None:
        """Icons, highlighting and generated HTML again in the new palette."""
        for block in [*self.blocks, *(w for _, w in self._next_page)]:
            block.repaint_theme()  # type: ignore[attr-defined]
            undo_since = getattr(block, "undo_since_button", None)
            if undo_since is not None:
                from relavium_desktop.ui.chat.look import themed_icon

                undo_since.setIcon(themed_icon("history", self.theme, "muted"))

    # -- history --------------------------------------------------------------------

    def show_history(self, messages: list[Message], cut_off: Collection[int] = ()) -> None:
        """Replace the blocks with a stored session's; only the last page is built now.

        ``cut_off``: the positions of the answers that were cut off (marked so, with Try again).
        """
        from relavium_desktop.engine.llm.messages import (
            MediaPart,
            NoticePart,
            TextPart,
            ToolCallPart,
            ToolResultPart,
        )

        self.clear()
        recipes: list[Recipe] = []
        for index, message in enumerate(messages):
            # A user message opened by a NoticePart is the engine's (read_media's attachments), not the user's.
            own = message.role == "user" and not any(isinstance(p, NoticePart) for p in message.parts)
            media = [(p.handle, p.mime_type, p.name, None) for p in message.parts if isinstance(p, MediaPart)] \
                if own else []
            if message.role == "user" and (message.text or media):
                recipes.append(partial(self._message, "user", message.text, media, index=index))
            elif message.role == "assistant":
                text = "".join(p.text for p in message.parts if isinstance(p, TextPart))
                if text:
                    recipes.append(partial(self._message, "assistant", text, cut_off=index in cut_off))
                # A call's result is in the tool message right after it (call ids repeat across turns
                # with some providers, so they are matched within that one message).
                after = messages[index + 1] if index + 1 < len(messages) else None
                results = {p.call_id: p for p in after.parts if isinstance(p, ToolResultPart)} \
                    if after is not None and after.role == "tool" else {}
                for call in (p for p in message.parts if isinstance(p, ToolCallPart)):
                    recipes.append(partial(self._stored_card, call, results.get(call.call_id)))
        self._unbuilt = recipes[:-HISTORY_PAGE] if len(recipes) > HISTORY_PAGE else []
        shown = recipes[-HISTORY_PAGE:]
        for start in range(0, len(shown), EARLIER_PAGE):
            page = HistoryPage(shown[start:start + EARLIER_PAGE], spacing=self._column.spacing())
            page.build()
            self._column.insertWidget(self._column.count() - 1, page)
            self._pages.append(page)
        self._update_actions()

    def _stored_card(self, call: Any, result: Any) -> ToolCard:
        from relavium_desktop.ui.chat.tool_cards import ToolCard

        card = self._wire_card(ToolCard(call.name, dict(call.args), theme=self.theme, undo=self.undo_service))
        if result is None:
            card.cancel()
        elif not result.is_error:
            card.set_result({"success": True, "outputSummary": result.content, "fromHistory": True})
        else:
            card.set_result({"success": False, "fromHistory": True, "error": {
                "code": result.error_code or "tool_failed", "reason": result.error_reason,
                "message": result.content}})
        if card.checkpoint_id is not None and card.checkpoint_id in self.undone:
            card.set_undone(self.undone[card.checkpoint_id])
        return card

    def _wire_card(self, card: ToolCard) -> ToolCard:
        card.undo_requested.connect(self.card_undo_requested.emit)
        card.redo_requested.connect(self.card_redo_requested.emit)
        return card

    # -- undo -----------------------------------------------------------------------

    def show_undone(self, undone: dict[str, str]) -> None:
        """Which writes are taken back now (checkpoint id -> the undo's id): their cards say "Undone"
        and offer Redo; every other write card offers Undo again."""
        self.undone = dict(undone)
        for card in self.cards():
            if card.checkpoint_id is not None:
                card.set_undone(undone.get(card.checkpoint_id))

    def users_after(self, block: QWidget) -> int:
        """How many user messages follow ``block`` (a live block's place counted from the end)."""
        blocks = self.blocks
        after = blocks[blocks.index(block) + 1:] if block in blocks else []
        return sum(1 for b in after if getattr(b, "role", None) == "user" and hasattr(b, "undo_since_button"))

    def add_note(self, text: str) -> QWidget:
        """A muted line in the conversation ("Restored 2 files"): what an undo did."""
        from relavium_desktop.ui.chat.undo_sheet import UndoNote

        self.end_stream()
        note = UndoNote(text)
        self._add(note)
        return note

    def _build_earlier(self) -> None:
        """Build one earlier block per event-loop turn; every ``EARLIER_PAGE`` go in above as a page.

        One block (1-5 ms) and, every few turns, one small page to lay out
        keep each turn well inside a frame while the reader scrolls.
        """
        if self._unbuilt:
            recipe = self._unbuilt.pop()
            self._next_page.insert(0, (recipe, recipe()))
        if self._next_page and (len(self._next_page) >= EARLIER_PAGE or not self._unbuilt):
            pairs, self._next_page = self._next_page, []
            page = HistoryPage([r for r, _ in pairs], [w for _, w in pairs], spacing=self._column.spacing())
            self._set_anchor(self._page_in_view())
            self._column.insertWidget(0, page)
            self._pages.insert(0, page)
        if (self._unbuilt or self._next_page) and self.verticalScrollBar().value() < EARLIER_MARGIN_PX:
            self._earlier.start()

    def build_all(self) -> None:
        """Build every history block (copy-all, search, tests)."""
        while self._unbuilt or self._next_page:
            self._build_earlier()
        for page in self._pages:
            if page.released:
                page.build()

    def _page(self) -> None:
        """Release pages far from the view; build again, one per event-loop turn, those back near it."""
        bar = self.verticalScrollBar()
        screen = self.viewport().height()
        top, bottom = bar.value(), bar.value() + screen
        keep_top, keep_bottom = top - KEEP_SCREENS * screen, bottom + KEEP_SCREENS * screen
        released = 0
        for page in self._pages:
            y, height = page.y(), page.height()
            if page.released:
                if y + height >= top - screen and y <= bottom + screen:
                    if y + height <= top:  # above the view: hold the place while it grows back
                        self._set_anchor(self._page_in_view())
                    page.build()
                    self._update_actions()
                    self._pager.start(0)
                    return
            elif (y + height < keep_top or y > keep_bottom) and not page.released and page.blocks:
                page.release()
                released += 1
                if released >= RELEASE_STEP:
                    self._pager.start(PAGER_MS)
                    return
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
            if message.try_again_button is not None:  # Try again redoes the last turn only
                message.try_again_button.setVisible(self._actions_enabled and message is last)
            undo_since = getattr(message, "undo_since_button", None)
            if undo_since is not None:
                undo_since.setVisible(self._actions_enabled)

    def remove_last_turn(self, *, keep_question: bool) -> None:
        """Take the last question's turn off the screen: its answer, and the question unless kept."""
        from relavium_desktop.ui.chat.message_block import MessageBlock

        self.end_stream()
        if not any(isinstance(b, MessageBlock) and b.role == "user" for b in self._live):
            for page in reversed(self._pages):  # the last turn is stored history: have its pages built
                if page.released:
                    page.build()
                if any(isinstance(b, MessageBlock) and b.role == "user" for b in page.blocks):
                    break
        blocks = self.blocks
        start = next((i for i, b in reversed(list(enumerate(blocks)))
                      if isinstance(b, MessageBlock) and b.role == "user"), None)
        if start is None:
            return
        cut = start + 1 if keep_question else start
        if cut < len(blocks):
            self._remove_from(blocks[cut])
        self._open_cards.clear()
        self._update_actions()

    def _remove_from(self, first: QWidget) -> None:
        """Remove ``first`` and every block after it, from whichever page or the live list holds it."""
        if first in self._live:
            index = self._live.index(first)
            gone: list[QWidget] = self._live[index:]
            del self._live[index:]
        else:
            index = next(i for i, p in enumerate(self._pages) if first in p.blocks)
            self._pages[index].drop_from(first)
            gone = [*self._pages[index + 1:], *self._live]
            del self._pages[index + 1:]
            self._live.clear()
        for widget in gone:
            self._column.removeWidget(widget)
            widget.deleteLater()

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
            from relavium_desktop.ui.chat.message_block import MessageBlock

            self._current = MessageBlock("assistant", theme=self.theme)
            self._wire(self._current)
            self._add(self._current)
            self._update_actions()
        self._current.append(chunk)
        self.flushed.emit(len(chunk))

    def end_stream(self, *, cut_off: bool = False) -> None:
        """Flush what is buffered and render the streamed message's Markdown.

        ``cut_off``: the turn ended mid-answer (failed, stopped); the streamed answer says so.
        """
        self.flush()
        if self._current is not None:
            self._current.finish()
            if cut_off:
                self._current.mark_cut_off()
            self._current = None
            if cut_off:
                self._update_actions()

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
        if self._pages and not self._pager.isActive():
            self._pager.start(PAGER_MS)

    def _page_in_view(self) -> QWidget | None:
        """The first laid-out page reaching into the view (pages inserted this turn are not shown yet)."""
        value = self.verticalScrollBar().value()
        return next((p for p in self._pages if p.isVisible() and p.y() + p.height() > value), None)

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
