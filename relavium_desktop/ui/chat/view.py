"""The Chat page: transcript, composer, pickers, Stop and usage, in one reading column.

The transcript, the banners and the composer card sit in a centred column of
at most ``tokens.READING_WIDTH`` whatever the window's width (the transcript
centres its own blocks; the rest sits in ``self.column``).  The sessions list
is built and wired here but shown by the window's sidebar.

Every engine call is a coroutine awaited on the qasync loop (a turn is one
task; Stop cancels it, which cancels the provider stream and any running
tool -- the process host kills the tool's process tree).  Engine events
arrive synchronously on the loop thread and only touch widgets.  Governed
tool calls are answered by the app's confirm hook (``ui/approval.py``)
under the context's mode; the mode also decides which tools are offered.
What the page wants done elsewhere (open Settings, choose a project) it
asks for with an intent signal; the window connects those.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relavium_desktop.engine.agent.pricing import USD_TO_MICROCENTS, usd_to_microcents
from relavium_desktop.ui.chat.attachments import AttachmentStrip
from relavium_desktop.ui.chat.banner import (
    ACTION_ADD_KEY,
    ACTION_PROVIDERS,
    ACTION_RETRY,
    ErrorBanner,
)
from relavium_desktop.ui.chat.composer import SEND_PX, Composer, ComposerCard, HintRow
from relavium_desktop.ui.chat.folder_access import FolderAccessOffer
from relavium_desktop.ui.chat.look import themed_icon as look_icon
from relavium_desktop.ui.chat.look import tone as look_tone
from relavium_desktop.ui.chat.mode_offer import ModeSwitchOffer
from relavium_desktop.ui.chat.model_choice import ModelChoice
from relavium_desktop.ui.chat.sessions_panel import SessionsPanel
from relavium_desktop.ui.chat.transcript import Transcript
from relavium_desktop.ui.elided_label import ElidedLabel
from relavium_desktop.ui.error_text import error_text
from relavium_desktop.ui.qt import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
    Signal,
)
from relavium_desktop.ui.theme import set_variant
from relavium_desktop.ui.theme.tokens import EDGE_MIN, PAD_MAIN, READING_WIDTH, SPACE_2, SPACE_4

# The engine, asyncio and pydantic load on first use (after the first paint):
# this module is imported while the window is built, before it shows.
if TYPE_CHECKING:
    import asyncio
    from collections.abc import Sequence

    from relavium_desktop.application.chat import ChatConversation, ChatService
    from relavium_desktop.engine.agent.history_cut import Cut
    from relavium_desktop.engine.agent.modes import SessionGrants
    from relavium_desktop.engine.agent.outcome import LoopResult
    from relavium_desktop.engine.agent.session import SessionInfo
    from relavium_desktop.engine.llm.messages import Message
    from relavium_desktop.ui.chat.attachments import Attachment
    from relavium_desktop.ui.chat.backend import AgentChoice
    from relavium_desktop.ui.chat.confirm_delete import ConfirmDeleteDialog
    from relavium_desktop.ui.chat.mcp_composer import AttachResource, SlashPrompts
    from relavium_desktop.ui.chat.mcp_tools import ChatMcp
    from relavium_desktop.ui.clipboard_actions import ClipboardAction
    from relavium_desktop.ui.context import AppContext

log = logging.getLogger(__name__)


class ChatView(QWidget):
    turn_started = Signal()
    turn_finished = Signal(str)  # completed | failed | cancelled
    sessions_changed = Signal()
    open_settings = Signal(str)  # the Settings tab to show
    choose_project = Signal()
    storage_failed = Signal(object)  # a StorageError while saving: the window shows the storage state
    title_changed = Signal(str)  # the open chat's title, "" when none is open (the window's top bar shows it)
    # Set by the window: why nothing can be saved now (history.db unusable), or None; Send then keeps the text.
    send_blocked: Any = staticmethod(lambda: None)

    def __init__(self, context: AppContext) -> None:
        super().__init__()
        self.setObjectName("chatView")
        self.context = context
        self.backend: ChatService | None = None  # the chat use case (application/chat.py), after the first paint
        self.session_id: str | None = None
        self.agents: list[AgentChoice] = []
        self._conversation: ChatConversation | None = None  # the open session's, or a new one's until it is stored
        self._turn: asyncio.Task[Any] | None = None
        self.usage = {"input": 0, "output": 0, "cost": 0.0, "unpriced": False}
        self.delete_dialog: ConfirmDeleteDialog | None = None
        self.discarding: asyncio.Task[Any] | None = None  # a deleted session's spills being removed

        self.sessions = SessionsPanel(self._search_sessions, theme=context.theme)
        self.sessions.new_requested.connect(self.new_session)
        self.sessions.selected.connect(self.open_session)
        self.sessions.rename_requested.connect(self.rename_session)
        self.sessions.delete_requested.connect(self.delete_session)

        self.agent_combo = QComboBox()
        self.agent_combo.setObjectName("agentCombo")
        self.agent_combo.setAccessibleName("Agent")
        self.agent_combo.setToolTip("The agent: its instructions and tools")
        set_variant(self.agent_combo, "chip")
        self.agent_combo.currentIndexChanged.connect(self._agent_picked)
        self.agent_label = QLabel("Agent:")
        self.agent_label.setBuddy(self.agent_combo)
        set_variant(self.agent_label, "caption")
        self._show_agent_choice()
        self.models = ModelChoice(context)
        self.model_combo = self.models.picker
        self.model_combo.route_changed.connect(self._model_picked)
        context.providers_changed.connect(self.refresh_models)
        self.usage_label = QLabel("0 tokens")
        self.usage_label.setObjectName("usageLabel")

        self.transcript = Transcript(context.theme)
        self.transcript.edit_requested.connect(self.edit_last)
        self.transcript.regenerate_requested.connect(self.regenerate)
        self.transcript.card_undo_requested.connect(self.undo_write)
        self.transcript.card_redo_requested.connect(self.redo_undo)
        self.transcript.undo_since_requested.connect(self.undo_since)
        self._undo_flow: Any = None  # ui/chat/undo_flow.UndoFlow, built on the first undo
        self._editing: str | None = None  # the session whose last question the composer is editing
        self.banner = ErrorBanner()
        self.banner.action_requested.connect(self._banner_action)
        self.folder_offer = FolderAccessOffer(context)
        self.folder_offer.retry_requested.connect(self._retry_last)
        self.folder_offer.project_requested.connect(self.choose_project)
        self.mode_offer = ModeSwitchOffer(context)
        self.mode_offer.retry_requested.connect(self._retry_last)
        self._last_call_input: Any = None
        self._turn_mode: Any = None  # the ChatMode of the running turn
        self._offer_shown = False  # a refusal put an offer up: the failed-turn banner stays down
        self.composer = Composer()
        self.composer.submitted.connect(self.send)
        # Pasted and dropped images wait here until Send (attachments.py).
        self.attachments = AttachmentStrip(lambda: self.ensure_loaded().media, self._media_route, context.theme)
        self.composer.image_pasted.connect(self.attachments.add_image)
        self.composer.files_dropped.connect(self.attachments.add_files)
        self.composer.has_attachments = lambda: bool(self.attachments.items)
        self.model_combo.route_changed.connect(lambda _route: self.attachments.refresh_note())
        self.transcript.load_media = self._load_media
        self.attach_files_button = QToolButton()
        self.attach_files_button.setObjectName("attachFilesButton")
        self.attach_files_button.setAccessibleName("Attach a file or image")
        self.attach_files_button.setToolTip("Attach a file or image (or paste or drop one)")
        set_variant(self.attach_files_button, "ghost")
        self.attach_files_button.clicked.connect(self.pick_files)
        self._file_dialog: Any = None
        self.send_button = QPushButton()
        self.send_button.setObjectName("sendButton")
        self.send_button.setAccessibleName("Send")
        self.send_button.setToolTip("Send (Enter)")
        self.send_button.setAutoDefault(False)
        self.send_button.clicked.connect(lambda: self.send(self.composer.toPlainText().strip()))
        self.stop_button = QPushButton()
        self.stop_button.setObjectName("stopButton")
        self.stop_button.setAccessibleName("Stop")
        self.stop_button.setToolTip("Stop the answer and any running tool")
        self.stop_button.setAutoDefault(False)
        self.stop_button.setEnabled(False)
        self.stop_button.setVisible(False)  # it takes the send button's place while a turn runs
        self.stop_button.clicked.connect(self.stop)
        for button in (self.send_button, self.stop_button):
            set_variant(button, "send")
            button.setFixedSize(SEND_PX, SEND_PX)
        self.send_button.setText("↑")  # a glyph of the font: the icon font loads after the first paint
        self.status = QLabel()
        self.status.setObjectName("chatStatus")
        self.status.setWordWrap(True)
        # The MCP servers' state (built with the backend, after the first paint): empty until then.
        self.mcp: ChatMcp | None = None
        self.sign_in_offer: Any = None  # "Sign in to SERVER" (ui/mcp/sign_in_offer.py), made with the MCP servers
        self.mcp_status = ElidedLabel("")
        self.mcp_status.setObjectName("mcpStatus")
        self.mcp_status.hide()
        self._mcp_row = QHBoxLayout()
        self.composer_card = ComposerCard(
            self.composer,
            [self.attach_files_button, self.agent_label, self.agent_combo, self.model_combo],
            [self.send_button, self.stop_button],
        )
        elevate = getattr(context.theme, "elevate", None)  # a theme that floats surfaces with a shadow
        if elevate is not None:
            elevate(self.composer_card, "raised")
        self.hints = HintRow(self.usage_label)

        # The reading column under the transcript: what went wrong, what to do, and the composer.
        self.column = QWidget()
        self.column.setObjectName("chatColumn")
        self.column.setMaximumWidth(READING_WIDTH)
        below = QVBoxLayout(self.column)
        below.setContentsMargins(0, 0, 0, 0)
        below.setSpacing(SPACE_2)
        below.addWidget(self.banner)
        below.addWidget(self.folder_offer)
        below.addWidget(self.mode_offer)
        status_row = QHBoxLayout()
        status_row.addWidget(self.status, 1)
        status_row.addWidget(self.mcp_status, 2)
        below.addLayout(status_row)
        below.addLayout(self._mcp_row)
        below.addWidget(self.attachments)
        below.addWidget(self.composer_card)
        below.addWidget(self.hints)
        centred = QHBoxLayout()
        centred.setContentsMargins(PAD_MAIN, 0, PAD_MAIN, SPACE_4)
        centred.addWidget(self.column, 1)
        self._centred = centred  # its side margins centre the column (resizeEvent)

        self.empty_state: QWidget | None = self._make_empty_state()
        self._title = ""
        page = QVBoxLayout(self)
        # The transcript's scrollbar keeps the least distance from the window's right edge.
        page.setContentsMargins(0, 0, EDGE_MIN, 0)
        page.setSpacing(0)
        page.addWidget(self.transcript, 1)
        if self.empty_state is not None:
            page.addWidget(self.empty_state, 1)
        page.addLayout(centred)
        self._update_empty()

        context.mode_changed.connect(self._mode_changed)
        # Another project has other grants and another "inside": a new regime from the next turn on.
        context.project_changed.connect(self._forget_approvals)

    # -- the reading column and the empty state -----------------------------------------

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        area = self.width() - EDGE_MIN  # what the transcript spans too: both centre on the same width
        left = max(PAD_MAIN, (area - READING_WIDTH) // 2)
        right = max(PAD_MAIN, area - left - READING_WIDTH)
        self._centred.setContentsMargins(left, 0, right, SPACE_4)

    def _make_empty_state(self) -> QWidget | None:
        """What the page shows when no chat is open and nothing was said yet: what to do next."""
        try:
            from relavium_desktop.ui.chat.empty_state import EmptyChatState
        except ImportError:  # an older tree without it: the empty transcript stands in
            return None
        empty = EmptyChatState()
        empty.new_chat.connect(self.new_session)
        return empty

    def _update_empty(self) -> None:
        """Show the empty state instead of a blank transcript, and tell the window the open chat's title."""
        empty = self.session_id is None and not self.transcript.blocks and not self.busy
        if self.empty_state is not None:
            self.empty_state.setVisible(empty)
            self.transcript.setVisible(not empty)
        title = ""
        if self.session_id is not None and self.backend is not None:
            info = self.backend.store.get(self.session_id)
            title = info.title if info is not None else ""
        if title != self._title:
            self._title = title
            self.title_changed.emit(title)

    def _paint_icons(self) -> None:
        """The composer's icon buttons in the current palette: after the first paint (the icon font is not cheap)."""
        from relavium_desktop.ui.theme.icons import GLYPHS

        attach = "paperclip" if "paperclip" in GLYPHS else "add"
        self.attach_files_button.setIcon(look_icon(attach, self.context.theme, "muted"))
        if "arrow-up" in GLYPHS:
            self.send_button.setText("")
            self.send_button.setIcon(look_icon("arrow-up", self.context.theme, "accent_text"))
        self.stop_button.setIcon(look_icon("stop", self.context.theme, "accent_text"))

    def pick_files(self) -> None:
        """The attach button: choose files or images to send with the next message (as a drop would)."""
        from relavium_desktop.ui.chat.attachments import ATTACHABLE_SUFFIXES
        from relavium_desktop.ui.qt import QFileDialog

        dialog = QFileDialog(self, "Attach files or images")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFiles)
        patterns = " ".join(f"*{suffix}" for suffix in sorted(ATTACHABLE_SUFFIXES))
        dialog.setNameFilters([f"Images and documents ({patterns})", "All files (*)"])
        dialog.filesSelected.connect(self.attachments.add_files)
        self._file_dialog = dialog
        dialog.open()

    # -- lazy load ------------------------------------------------------------------

    def ensure_loaded(self) -> ChatService:
        """Open the store, read agents and sessions: after the first paint, or on first use."""
        if self.backend is not None:
            return self.backend
        from relavium_desktop.application.chat import ChatService
        from relavium_desktop.ui.chat.backend import policy_from, tool_configs_from

        self.context.ensure_services()
        settings = self.context.settings
        self.backend = ChatService(
            self.context.app, os_capability=self.context.desktop_os,
            mcp_hooks=lambda _project: self._mcp_hooks(),
            mcp_tools=lambda: self.mcp.tools if self.mcp is not None else (),
            extra_roots=self._extra_roots,
            # Read every turn: a change in Settings applies from the next message.
            policy=lambda: policy_from(settings),
            tool_configs=lambda lookup: tool_configs_from(settings, lookup),
            session_grants=self._session_grants,
        )
        self._start_mcp(self.backend)
        self.transcript.undo_service = self.context.app.undo  # write cards' diffs and Undo
        self._paint_icons()
        changed = getattr(self.context.theme, "changed", None)
        if changed is not None:
            changed.connect(self._paint_icons)
        self.reload_agents()
        self.refresh_sessions()
        return self.backend

    def _defaults(self) -> Any:
        """defaults.json: the default model and agent, shared with ``relavium chat``."""
        from relavium_desktop.application.defaults import Defaults

        return Defaults(self.context.app.paths)

    def reload_agents(self) -> None:
        from relavium_desktop.ui.chat.backend import load_agent_choices

        assert self.backend is not None
        self.agents = load_agent_choices(self.backend.app.paths)
        wanted = self._defaults().agent() or "chat"
        self.agent_combo.blockSignals(True)
        self.agent_combo.clear()
        for choice in self.agents:
            label = choice.spec.name or choice.spec.id
            self.agent_combo.addItem(label if choice.source == "built-in" else f"{label} ({choice.source})",
                                     choice.spec.id)
        ids = [c.spec.id for c in self.agents]
        self.agent_combo.setCurrentIndex(ids.index(wanted) if wanted in ids else 0)
        self.agent_combo.blockSignals(False)
        self._show_agent_choice()
        self._fill_models()

    def _show_agent_choice(self) -> None:
        """The labelled agent choice shows only when there is more than one agent to choose from."""
        several = self.agent_combo.count() > 1
        self.agent_label.setVisible(several)
        self.agent_combo.setVisible(several)

    def _fill_models(self) -> None:
        assert self.backend is not None
        spec = self.agent()
        saved = self._defaults().model()
        if saved:
            self.models.fill(saved, self.backend.home)
        else:  # the agent's own route, until the user picks one
            self.models.fill(f"{spec.provider}/{spec.model}", self.backend.home, chosen=False)

    def refresh_models(self) -> None:
        """List what providers.yaml now names (changed in Settings, the welcome flow, the CLI, an editor)."""
        if self.backend is not None:
            self._fill_models()

    def agent(self) -> Any:
        index = max(self.agent_combo.currentIndex(), 0)
        return self.agents[index].spec

    def _agent_picked(self, index: int) -> None:
        if 0 <= index < len(self.agents):
            # Another agent starts on its own route until a model is picked for it.
            self._defaults().save(agent=self.agents[index].spec.id, model=None)
            self._fill_models()

    def _model_picked(self, route: str) -> None:
        from relavium_desktop.application.chat import RouteError, parse_route

        try:
            parse_route(route)
        except RouteError as exc:  # the picker lists routes; an odd one is not made the default
            log.warning("not saving the picked model as the default: %s", exc)
            return
        self._defaults().save(model=route.strip())

    def set_route(self, route: str) -> None:
        """Pick ``provider/model`` (listed under "Other" when no provider lists it)."""
        self.model_combo.set_route(route)

    # -- sessions -------------------------------------------------------------------

    def refresh_sessions(self) -> None:
        assert self.backend is not None
        self.sessions.fill(self.backend.store.list_sessions(), self.session_id)
        self.sessions_changed.emit()
        self._update_empty()

    def new_session(self) -> None:
        if self.busy:
            return
        self.ensure_loaded()
        self.session_id = None
        self._conversation = None
        self.transcript.clear()
        self._withdraw_offers()
        self._set_usage([])
        self.sessions.clear_current()
        self._update_empty()
        self.composer.setFocus()

    def _withdraw_offers(self) -> None:
        """A new turn or another chat: the last turn's error and its offers no longer apply."""
        self.banner.hide()
        self.folder_offer.hide()
        if self.sign_in_offer is not None:
            self.sign_in_offer.turn_moved_on()

    def _session_created(self, info: SessionInfo) -> None:
        """The first message stored the session: it joins the list, and the page shows it as open."""
        self.session_id = info.id
        self.refresh_sessions()

    def open_session(self, session_id: str) -> None:
        """Resume a stored session: its transcript, usage and mode."""
        from relavium_desktop.engine.agent.mode_ids import parse_mode

        if self.busy or session_id == self.session_id:
            return
        backend = self.ensure_loaded()
        info = backend.store.get(session_id)
        if info is None:
            self.refresh_sessions()
            return
        self.session_id = session_id
        self._conversation = None
        self._withdraw_offers()
        self.transcript.clear()
        self._render_history(backend.store.messages(session_id), backend.store.cut_off_indexes(session_id))
        self._set_usage(backend.store.usage_by_model(session_id))
        try:
            mode = str(parse_mode(info.mode))
        except ValueError:
            mode = self.context.mode  # a mode this version does not know: keep the current one
        if mode != self.context.mode:
            self.context.set_mode(mode)
        self._update_empty()

    def rename_session(self, session_id: str, title: str) -> None:
        backend = self.ensure_loaded()
        backend.store.rename(session_id, title)
        self.refresh_sessions()

    def delete_session(self, session_id: str) -> None:
        """Ask first (``ConfirmDeleteDialog``); the session is deleted only on "Delete"."""
        from relavium_desktop.ui.chat.confirm_delete import ConfirmDeleteDialog

        if self.busy and session_id == self.session_id:
            return
        backend = self.ensure_loaded()
        info = backend.store.get(session_id)
        if info is None:
            self.refresh_sessions()
            return
        if self.delete_dialog is not None:
            self.delete_dialog.close()
        dialog = ConfirmDeleteDialog(session_id, info.title, self)
        dialog.confirmed.connect(self._delete_confirmed)
        dialog.finished.connect(lambda _code: self._forget_delete_dialog(dialog))
        self.delete_dialog = dialog
        dialog.open()

    def _forget_delete_dialog(self, dialog: ConfirmDeleteDialog) -> None:
        if self.delete_dialog is dialog:
            self.delete_dialog = None
        dialog.deleteLater()

    def _delete_confirmed(self, session_id: str) -> None:
        if self.busy and session_id == self.session_id:
            return
        from relavium_desktop.ui.tasks import spawn

        backend = self.ensure_loaded()
        backend.delete(session_id)
        # Its spilled tool output goes too, removed by the host in a worker thread.
        self.discarding = spawn(backend.discard_session(session_id))
        if session_id == self.session_id:
            self.session_id = None
            self._conversation = None
            self.transcript.clear()
            self._set_usage([])
        self.refresh_sessions()

    def _render_history(self, messages: list[Message], cut_off: set[int] | None = None) -> None:
        self.transcript.undone = self._undone()
        self.transcript.show_history(messages, cut_off or set())

    # -- undo (issue 25): the sheet, the restore, and the transcript's note -------------------

    def _undone(self) -> dict[str, str]:
        """The open chat's writes that an undo (still standing) took back."""
        from relavium_desktop.ui.chat.undo_sheet import undone_by

        if self.session_id is None:
            return {}
        return undone_by(self.context.app.undo().checkpoints(chat=self.session_id, include_undo=True))

    def _flow(self) -> Any:
        if self._undo_flow is None:
            from relavium_desktop.ui.chat.undo_flow import UndoFlow

            self._undo_flow = UndoFlow(self.context.app.undo, self, self.context.theme)
            self._undo_flow.done.connect(self._undo_done)
        return self._undo_flow

    def _undo_done(self, sentence: str) -> None:
        self.transcript.add_note(sentence)
        self.transcript.show_undone(self._undone())

    def undo_write(self, checkpoint_id: str) -> None:
        """A write card's Undo: the sheet for that one file."""
        found = self.context.app.undo().get(checkpoint_id)
        if not self.busy and found is not None:
            self._flow().offer([found])

    def redo_undo(self, undo_id: str) -> None:
        """An undone card's Redo: take the undo back (the file as the agent wrote it)."""
        found = self.context.app.undo().get(undo_id)
        if not self.busy and found is not None:
            self._flow().offer([found], verb="Redo")

    def undo_since(self, block: Any) -> None:
        """ "Undo changes since this message": every write of its turn and the turns after, not yet undone."""
        if self.busy or self.session_id is None:
            return
        index = getattr(block, "message_index", None)
        if index is None:
            index = self._stored_index(block)
        service = self.context.app.undo()
        undone = self._undone()
        writes = [c for c in service.checkpoints(chat=self.session_id, since_message=index) if c.id not in undone] \
            if index is not None else []
        self._flow().offer(writes)  # with nothing to take back, the flow says so

    def _stored_index(self, block: Any) -> int | None:
        """A message sent in this sitting: its place in the stored session, counted from the end."""
        from relavium_desktop.engine.llm.messages import NoticePart

        stored = self.ensure_loaded().store.messages(self.session_id or "")
        own = [i for i, m in enumerate(stored)
               if m.role == "user" and not any(isinstance(p, NoticePart) for p in m.parts)]
        back = self.transcript.users_after(block)
        return own[-1 - back] if back < len(own) else None

    # -- turns -----------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self._turn is not None and not self._turn.done()

    def send(self, text: str) -> None:
        """Send ``text`` (and the attachments) as the next message; with no project the chat runs without tools.

        Attachments that cannot go yet (refused, still being added, a model
        that cannot see them) hold the message back, and the status line says why.
        """
        text = text.strip()
        if (not text and not self.attachments.items) or self.busy:
            return
        blocked = self.send_blocked()
        if blocked:  # history.db cannot be written: the message stays in the composer
            self.status.setText(blocked)
            return
        problem = self.attachments.problem()
        if problem is not None:
            self.status.setText(problem)
            return
        from relavium_desktop.ui.tasks import spawn

        attached = self.attachments.take()
        self.composer.clear()
        editing = self._editing is not None and self._editing == self.session_id
        self._editing = None
        if editing:
            self.transcript.remove_last_turn(keep_question=False)
        self._turn = spawn(self._run_turn(text, cut="drop_question" if editing else None, attached=attached))

    def edit_last(self, text: str) -> None:
        """Put the last question back in the composer; sending it replaces that turn (engine.agent.history_cut)."""
        if self.busy or self.session_id is None:
            return
        self._editing = self.session_id
        self.composer.setPlainText(text)
        self.composer.setFocus()
        self.status.setText("Editing your last message: sending it replaces that turn.")

    def regenerate(self) -> None:
        """Ask for the last answer again: the question is not re-sent, the old answer leaves the view."""
        if self.busy or self.session_id is None or self.backend is None:
            return
        from relavium_desktop.ui.tasks import spawn

        self.transcript.remove_last_turn(keep_question=True)
        self._turn = spawn(self._run_turn(None, cut="keep_question"))

    def continue_turn(self) -> None:
        """Carry on after a failure, a refusal, or a new folder or mode.

        A turn that stopped (an error, a refused call) resumes from the stored
        history, so the user's message is not stored and sent twice.  A turn
        that ended with an answer (the model was told a path is outside the
        project and said so) has nothing to resume: the question is asked
        again, as a new message the user sees.
        """
        if self.busy or self.session_id is None or self.backend is None:
            return
        from relavium_desktop.ui.tasks import spawn

        history = self.backend.store.messages(self.session_id)
        last = history[-1] if history else None
        if last is not None and len(history) - 1 in self.backend.store.cut_off_indexes(self.session_id):
            self.regenerate()  # a cut-off answer: ask for it anew, not the question again
            return
        if last is not None and last.role == "assistant" and not last.tool_calls:
            asked = [m.text for m in history if m.role == "user" and m.text]
            if asked:
                self.send(asked[-1])
            return
        self._turn = spawn(self._run_turn(None))

    def stop(self) -> None:
        """Cancel the running turn: the provider stream, a pending approval and any running tool."""
        if self.busy:
            assert self._turn is not None
            self.status.setText("Stopping…")
            self._turn.cancel()

    async def _run_turn(self, text: str | None, cut: Cut | None = None, attached: Sequence[Attachment] = ()) -> None:
        """One turn: ``text`` as a new message, or None to continue the stored history.

        ``cut`` redoes the last turn: the model is sent the history cut before
        that turn's answer or question (``HistoryCut``); nothing stored is removed.
        The turn itself is assembled by the chat use case (application/chat.py),
        as for ``relavium chat``; this page only renders its events.
        """
        from relavium_desktop.engine.agent.mode_ids import parse_mode
        from relavium_desktop.engine.llm.messages import MediaPart

        backend = self.ensure_loaded()
        self._withdraw_offers()
        self.mode_offer.hide()
        self._set_running(True)
        self._offer_shown = False
        outcome = "failed"
        unstored = False  # a refused first message: the session it made is gone again
        try:
            if text is not None:
                self.transcript.add_message("user", text, [(a.handle or "", a.mime, a.name, a.thumb) for a in attached])
                self._update_empty()
            mode = parse_mode(self.context.mode)
            built_in = bool(self.agents) and self.agent() is self.agents[0].spec
            agent, route = (None if built_in else self.agent()), self.model_combo.route() or None
            conversation = self._conversation
            if conversation is None or conversation.session_id != self.session_id:
                conversation = await backend.open(
                    session_id=self.session_id, project=self.context.project, mode=mode, agent=agent, model=route,
                    on_event=self._on_event, on_created=self._session_created,
                )
                self._conversation = conversation
            else:
                conversation.configure(project=self.context.project, mode=mode, agent=agent, model=route)
            self._turn_mode = mode
            self.status.setText("Working…")
            media = [MediaPart(a.handle or "", a.mime, a.name) for a in attached]
            confirm = self.context.approval_hook()
            result: LoopResult = await (conversation.send(text, media, confirm=confirm, cut=cut) if text is not None
                                        else conversation.resume(confirm=confirm, cut=cut))
            outcome = result.status
        except Exception as exc:
            from sqlite3 import DatabaseError  # StorageError included: history.db could not be used

            from relavium_desktop.application.chat import RouteError

            if isinstance(exc, RouteError):  # no turn started (the picker's route is unusable): say why here
                self.banner.show_error({"code": "validation", "message": error_text(exc)})
            # Otherwise the turn's chat:turn_failed event already put the banner up (application/chat.py).
            if isinstance(exc, DatabaseError):  # nothing typed is lost: back into an empty composer
                if text and not self.composer.toPlainText().strip():
                    self.composer.setPlainText(text)
                self.storage_failed.emit(exc)
            log.exception("chat turn failed")
            if self._conversation is not None and self._conversation.session_id is None and self.session_id:
                self.session_id = None  # a refused first message leaves no session (application/chat.py)
                unstored = True
        finally:
            self.transcript.end_stream()
            self.transcript.cancel_open_cards()
            self._set_running(False)
            if (self.session_id is not None or unstored) and self.backend is not None:
                self.refresh_sessions()
            self.turn_finished.emit(outcome)

    def _set_running(self, running: bool) -> None:
        self.send_button.setEnabled(not running)
        self.transcript.set_actions_enabled(not running)
        self.stop_button.setEnabled(running)
        self.send_button.setVisible(not running)  # Stop takes Send's place while the turn runs
        self.stop_button.setVisible(running)
        self.agent_combo.setEnabled(not running)
        self.model_combo.setEnabled(not running)
        if running:
            self.turn_started.emit()
        elif self.status.text() in ("Working…", "Stopping…"):
            self.status.setText("")

    # -- attachments (attachments.py, thumbnails.py) ------------------------------------

    def _media_route(self) -> tuple[str, frozenset[str]]:
        """The chosen model and the media kinds its provider says it takes (application.model_catalog)."""
        from relavium_desktop.application.chat import RouteError
        from relavium_desktop.application.model_catalog import media_kinds
        from relavium_desktop.application.providers import provider_entries

        backend = self.ensure_loaded()
        try:
            spec = backend.resolve_agent(self.agent(), self.model_combo.route() or None)
        except RouteError:
            return "", frozenset()
        try:
            entry = provider_entries(backend.home).get(spec.provider)
        except Exception:  # noqa: BLE001 - an unreadable providers.yaml: Send reports it with its own banner
            entry = None
        return spec.model, media_kinds(entry.kind, spec.model) if entry is not None else frozenset()

    async def _load_media(self, handle: str) -> bytes:
        """An attachment's verified bytes, readable only in the open session's media scope."""
        from relavium_desktop.engine.agent.chat import chat_media_scope

        if self.session_id is None:
            raise ValueError("no chat session is open")
        blob = await self.ensure_loaded().media.load(handle, chat_media_scope(self.session_id))
        return blob.data

    # -- engine events (synchronous, on the loop thread) ------------------------------

    def _on_event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "agent:token":
            if self.status.property("retrying"):  # the wait is over: the answer is arriving
                self.status.setProperty("retrying", False)
                self.status.setText("Working…")
            self.transcript.stream(str(event.get("token", "")))
        elif kind == "agent:tool_call":
            self._last_call_input = event.get("toolInput")
            self.transcript.add_card(str(event.get("toolId", "?")), event.get("toolInput"))
        elif kind == "agent:tool_progress":
            self._tool_progress(event)
        elif kind == "agent:tool_result":
            self.transcript.tool_result(event)
            error = event.get("error")
            if isinstance(error, dict):
                self._offer_for_refusal(str(event.get("toolId", "?")), error)
        elif kind == "cost:updated":
            self._add_usage(event)
        elif kind == "agent:provider_fallback":
            self.status.setText(f"Falling back to {event.get('to')}…")
        elif kind == "agent:retrying":
            # The engine words the wait ("rate limited, retrying in 5 s"); shown while it lasts.
            message = str(event.get("message", ""))
            self.status.setProperty("retrying", True)
            self.status.setText(f"{message[:1].upper()}{message[1:]}…")
        elif kind == "chat:turn_failed":
            self.transcript.end_stream(cut_off=True)  # an answer still streaming was cut off (and is kept)
            error = event.get("error")
            if not self._offer_shown:  # the offer already says what happened and how to go on
                self.banner.show_error(error if isinstance(error, dict) else {})
        elif kind == "chat:turn_cancelled":
            self.transcript.end_stream(cut_off=True)
            self.transcript.cancel_open_cards()
            self.status.setText("Stopped.")
        elif kind == "chat:turn_completed":
            self.transcript.end_stream()

    # -- MCP servers (ui/chat/mcp_tools.py) ----------------------------------------------

    def _start_mcp(self, backend: ChatService) -> None:
        """Discover the MCP servers' tools as a task (never before the first paint) and wire them in."""
        from relavium_desktop.ui.chat.mcp_composer import AttachResource, SlashPrompts
        from relavium_desktop.ui.chat.mcp_tools import ChatMcp

        mcp = ChatMcp(self.context, backend.home, hooks=self._mcp_hooks, extra_roots=self._extra_roots)
        self.mcp = mcp
        mcp.changed.connect(self._show_mcp_status)
        self._start_sign_in(mcp)
        # A folder granted from the chat is a new root: the open servers are told at once.
        self.folder_offer.granted.connect(lambda _folder: mcp.set_roots(self.context.project))
        self.slash_prompts: SlashPrompts = SlashPrompts(self.composer, mcp, self.status)
        self.attach_button: AttachResource = AttachResource(self.composer, mcp, self.status)
        self._mcp_row.addWidget(self.slash_prompts.list, 1)
        self.attach_button.setText("Resource")  # an MCP server's resource, beside the file attach button
        self.attach_button.setAccessibleName("Attach a resource from an MCP server")
        self.composer_card.add_trailing(self.attach_button)
        mcp.start()

    def _start_sign_in(self, mcp: ChatMcp) -> None:
        """The sign-in offer for remote servers; a new sign-in (or sign-out) anywhere discovers again."""
        from relavium_desktop.ui.mcp.sign_in import window_sign_in
        from relavium_desktop.ui.mcp.sign_in_offer import SignInOffer

        sign_in = window_sign_in(self.context)
        sign_in.changed.connect(lambda _server: mcp.refresh())
        self.sign_in_offer = SignInOffer(sign_in)
        self.sign_in_offer.retry_requested.connect(self._retry_last)
        column = self.column.layout()
        if isinstance(column, QVBoxLayout):
            column.insertWidget(column.indexOf(self.mode_offer) + 1, self.sign_in_offer)

    def _mcp_hooks(self) -> Any:
        """The app's MCP client hooks (consent, elicitation, sampling dialogs)."""
        from relavium_desktop.ui.mcp.hooks import app_mcp_hooks

        return app_mcp_hooks(self.context)

    def _show_mcp_status(self) -> None:
        assert self.mcp is not None
        status = self.mcp.status()
        self.mcp_status.set_full_text(status.text)
        self.mcp_status.setToolTip(status.details)
        look_tone(self.mcp_status, status.tone)
        self.mcp_status.setVisible(bool(status.text))
        if self.sign_in_offer is not None and not self.mcp.running:
            from relavium_desktop.ui.mcp.sign_in import server_needing_sign_in

            waiting = sorted(r.server for r in self.mcp.reports if not r.ok and server_needing_sign_in(r.error))
            self.sign_in_offer.withdraw(set(waiting))
            if waiting:
                self.sign_in_offer.offer(waiting[0], mid_turn=False)

    def _tool_progress(self, event: dict[str, Any]) -> None:
        """An MCP server's progress for a running call: onto that call's card (the newest running one)."""
        tool_id = str(event.get("toolId", ""))
        for card in reversed(self.transcript.cards()):
            if card.tool_id == tool_id and card.status == "running":
                total = event.get("total")
                card.set_progress(float(event.get("progress") or 0.0), float(total) if total is not None else None,
                                  event.get("message"))
                return

    # -- usage -------------------------------------------------------------------------

    def _set_usage(self, rows: list[dict[str, Any]]) -> None:
        self.usage = {"input": 0, "output": 0, "cost": 0.0, "unpriced": False}
        for row in rows:
            cost = row["costUsd"]
            self._add_usage({"inputTokens": row["inputTokens"], "outputTokens": row["outputTokens"],
                             "costMicrocents": None if cost is None else usd_to_microcents(cost)})
        self._show_usage()

    def _add_usage(self, event: dict[str, Any]) -> None:
        self.usage["input"] += int(event.get("inputTokens") or 0)
        self.usage["output"] += int(event.get("outputTokens") or 0)
        cost = event.get("costMicrocents")  # null: the model has no known price
        if cost is None:
            self.usage["unpriced"] = True
        else:
            self.usage["cost"] += int(cost) / USD_TO_MICROCENTS
        self._show_usage()

    def _show_usage(self) -> None:
        """"3.1k tokens · $0.0123" under the composer; the in/out split in its tooltip."""
        total = int(self.usage["input"]) + int(self.usage["output"])
        text = f"{_count(total)} tokens"
        cost = float(self.usage["cost"])
        if cost or not self.usage["unpriced"]:
            text += f" · ${cost:.4f}"
        elif total:
            text += " · no price known"  # a local model, or one with no listed price
        if self.usage["unpriced"] and total and cost:
            text += " · some models unpriced"
        self.usage_label.setText(text)
        self.usage_label.setToolTip(
            f"{total:,} tokens: {int(self.usage['input']):,} in, {int(self.usage['output']):,} out")

    # -- mode, banner, clipboard ----------------------------------------------------------

    def _mode_changed(self, mode: str) -> None:
        from relavium_desktop.engine.agent.mode_ids import parse_mode

        if self._conversation is not None:  # new regime from the next turn on; a stored session remembers it
            self._conversation.set_mode(parse_mode(mode))
            self._conversation.forget_approvals()
        elif self.session_id is not None and self.backend is not None:
            self.backend.store.set_mode(self.session_id, mode)

    def _forget_approvals(self, _project: str = "") -> None:
        if self._conversation is not None:
            self._conversation.forget_approvals()

    def _session_grants(self, project: str) -> SessionGrants | None:
        """The approval dialog's "always" answers for ``project``: one cache for the modes and the dialog."""
        dialog = self.context.approvals
        return dialog.session_grants(project) if dialog is not None and project else None

    def _extra_roots(self, project: str) -> tuple[Path, ...]:
        """The folders outside ``project`` granted to it (host extra roots), read per turn."""
        grants = self.context.grants
        return grants.folders.roots(project) if grants is not None and project else ()

    def _offer_for_refusal(self, tool_id: str, error: dict[str, Any]) -> None:
        """Put up the way forward for a refusal: a folder to choose, or a mode that allows the call."""
        from relavium_desktop.engine.agent.modes import mode_allowing

        reason = error.get("reason")
        if reason == "sign_in_required" and self.sign_in_offer is not None:
            from relavium_desktop.ui.mcp.sign_in import server_needing_sign_in

            server = server_needing_sign_in(str(error.get("message", "")))
            if server is not None:
                self.sign_in_offer.offer(server, mid_turn=True)
                self._offer_shown = True
        elif reason == "outside_scope":
            self.folder_offer.offer(tool_id, self._last_call_input)
            self._offer_shown = True
        elif reason == "not_granted" and not self.context.project and tool_id in self.agent().tools:
            self.folder_offer.offer_project(tool_id)
            self._offer_shown = True
        elif reason == "user_rejected" and self._turn_mode is not None and self._conversation is not None \
                and self._conversation.registry is not None:
            tool = self._conversation.registry.get(tool_id)  # the running turn's: the refused tool's class
            allowing = mode_allowing(self._turn_mode, tool.policy.action_class) if tool is not None else None
            if allowing is not None:
                self.mode_offer.offer(tool_id, str(error.get("message", "")), self._turn_mode, allowing,
                                      self._last_call_input)
                self._offer_shown = True

    def _retry_last(self) -> None:
        """Carry the refused or failed turn on (its message is already stored)."""
        self.continue_turn()

    def _banner_action(self, action: str) -> None:
        if action in (ACTION_ADD_KEY, ACTION_PROVIDERS):
            self.open_settings.emit("providers")
        elif action == ACTION_RETRY:
            self.banner.hide()
            self.continue_turn()

    async def run_clipboard_action(self, action: ClipboardAction, text: str) -> str:
        """The quick panel's runner: the selected agent's route, no tools."""
        from relavium_desktop.ui.chat.one_shot import ask_once

        backend = self.ensure_loaded()
        spec = backend.resolve_agent(self.agent(), self.model_combo.route() or None)
        return await ask_once(spec, backend.providers(), action.render(text), home=backend.home)

    def _search_sessions(self, query: str) -> list[SessionInfo]:
        """The sessions panel's search: titles and message text, in the store."""
        return self.ensure_loaded().store.search(query)

    def open_from_clipboard(self, prompt: str, result: str, title: str | None = None) -> None:
        """"Open in chat": a new session holding the action's prompt and answer, ready to continue."""
        from relavium_desktop.engine.agent.session import title_from
        from relavium_desktop.engine.llm.messages import Message, TextPart

        backend = self.ensure_loaded()
        if self.busy:
            return
        info = backend.store.create(title=title or title_from([Message.user(prompt)]), agent_id=self.agent().id,
                                    mode=self.context.mode)
        backend.store.append_message(info.id, Message.user(prompt))
        backend.store.append_message(info.id, Message("assistant", (TextPart(result),)))
        self.session_id = None
        self.refresh_sessions()
        self.open_session(info.id)
        self.sessions.select(info.id)

    def close_backend(self) -> None:
        if self._turn is not None and not self._turn.done():
            self._turn.cancel()
        # The stores are the Application's (closed with the context); the hosts end with the process.


def _count(n: int) -> str:
    """38, 3.1k, 12k, 1.2M: a token count as the hint row shows it."""
    if n < 1000:
        return str(n)
    if n < 10_000:
        return f"{n / 1000:.1f}k"
    if n < 1_000_000:
        return f"{n // 1000}k"
    return f"{n / 1_000_000:.1f}M"
