"""The "Process what I copied" quick panel.

It shows a (masked, clipped) preview of the clipboard text, the clipboard
actions to choose from, and -- after a run -- the result with Copy and
Open-in-chat buttons.  Running an action is delegated to ``runner`` (the
chat view supplies one that asks the configured provider, with no tools);
without one the panel explains why Run is off.  When the run ends while the
panel is not the focused window, a notification says so (with no clipboard
text in it: only the action's title).

With an image on the clipboard the panel offers the image actions
("Explain this screenshot", "Extract the text").  It never reads the image
itself -- not even for a preview: ``image_runner`` runs the action as a
model turn that asks for the image through ``read_clipboard``, so the
permission dialog comes before the image is read, exactly as in a chat.

The clipboard text and the model's result are untrusted: both are shown by the one display rule
(``engine/display_text.py``) with styled markers, while Copy and Open in chat pass on the result
exactly as the model wrote it.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from relavium_desktop.engine.agent.session import title_for_action
from relavium_desktop.engine.display_text import show_line
from relavium_desktop.engine.tools.masking import mask_text
from relavium_desktop.ui.clipboard_actions import ClipboardAction, offered
from relavium_desktop.ui.error_text import error_text
from relavium_desktop.ui.qt import (
    QDialog,
    QGuiApplication,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    Qt,
    QVBoxLayout,
    QWidget,
    Signal,
)
from relavium_desktop.ui.tasks import spawn
from relavium_desktop.ui.theme import set_surface, set_tone
from relavium_desktop.ui.untrusted import fill_shown

if TYPE_CHECKING:
    from relavium_desktop.application.desktop_os import DesktopOs
    from relavium_desktop.ui.clipboard_image_run import ImageRunner

log = logging.getLogger(__name__)
PREVIEW_CHARS = 2_000
ClipboardRunner = Callable[[ClipboardAction, str], Awaitable[str]]


class QuickPanel(QDialog):
    open_in_chat = Signal(str, str, str)  # prompt, result, the chat's title (action: first words)
    finished_run = Signal(str)

    def __init__(
        self,
        text: str,
        actions: list[ClipboardAction],
        runner: ClipboardRunner | None = None,
        parent: QWidget | None = None,
        *,
        notifier: DesktopOs | None = None,
        has_image: bool = False,
        image_runner: ImageRunner | None = None,
    ) -> None:
        super().__init__(parent)
        self._notifier = notifier
        self.last_notification_id: str | None = None
        self.setWindowTitle("Process what I copied")
        self.setObjectName("quickPanel")
        self.resize(560, 520)
        self.text = text
        self.has_image = has_image
        self.clip_actions = offered(actions, has_text=bool(text), has_image=has_image)
        self._runner = runner
        self._image_runner = image_runner
        self._busy = False
        self._prompt = ""
        self._title = ""
        self._result = ""  # as the model wrote it: what Copy and Open in chat pass on

        self.preview = QPlainTextEdit()
        self.preview.setReadOnly(True)
        shown = mask_text(text[:PREVIEW_CHARS])
        if len(text) > PREVIEW_CHARS:
            shown += f"\n… ({len(text) - PREVIEW_CHARS} more characters)"
        fill_shown(self.preview, shown if text else "")
        self.preview.setPlaceholderText(
            "The clipboard holds an image. It is read only when you run an action and allow the read."
            if has_image else "The clipboard holds no text."
        )
        self.preview.setMaximumHeight(140)
        set_surface(self.preview, "code")

        self.action_list = QListWidget()
        for action in self.clip_actions:
            item = QListWidgetItem(show_line(action.title))
            item.setToolTip(show_line(action.description))
            item.setData(Qt.ItemDataRole.UserRole, action.id)
            self.action_list.addItem(item)

        self.run_button = QPushButton("Run")
        self.run_button.setAutoDefault(False)
        self.run_button.clicked.connect(self._run)
        self.status = QLabel()
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # an action's title or an error: never markup
        self.status.setWordWrap(True)
        self.action_list.currentRowChanged.connect(lambda _row: self._update_run_state())
        if self.clip_actions:
            self.action_list.setCurrentRow(0)
        self._update_run_state()

        self.result_view = QPlainTextEdit()
        self.result_view.setReadOnly(True)
        self.result_view.setPlaceholderText("The result appears here.")
        self.copy_button = QPushButton("Copy")
        self.chat_button = QPushButton("Open in chat")
        for b in (self.copy_button, self.chat_button):
            b.setEnabled(False)
            b.setAutoDefault(False)
        self.copy_button.clicked.connect(self._copy)
        self.chat_button.clicked.connect(
            lambda: self.open_in_chat.emit(self._prompt, self._result, self._title))

        layout = QVBoxLayout(self)
        layout.addWidget(_caption("Clipboard"))
        layout.addWidget(self.preview)
        layout.addWidget(_caption("Action"))
        layout.addWidget(self.action_list)
        run_row = QHBoxLayout()
        run_row.addWidget(self.status, 1)
        run_row.addWidget(self.run_button)
        layout.addLayout(run_row)
        layout.addWidget(self.result_view, 1)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.copy_button)
        buttons.addWidget(self.chat_button)
        layout.addLayout(buttons)

    def selected_action(self) -> ClipboardAction | None:
        row = self.action_list.currentRow()
        return self.clip_actions[row] if 0 <= row < len(self.clip_actions) else None

    def _blocker(self, action: ClipboardAction | None) -> str | None:
        """Why ``action`` cannot run now, or None."""
        if action is not None and action.for_image:
            if self._image_runner is None:
                return "Running an action needs a configured provider (Settings → Providers)."
            return None if self.has_image else "Copy an image first, then try again."
        if self._runner is None:
            return "Running an action needs a configured provider (Settings → Providers)."
        return None if self.text else "Copy some text first, then try again."

    def _update_run_state(self) -> None:
        if self._busy:
            return  # Run comes back when the running action ends
        blocker = self._blocker(self.selected_action())
        self.run_button.setEnabled(blocker is None)
        self.status.setText(blocker or "")
        set_tone(self.status, "muted")

    def _run(self) -> None:
        action = self.selected_action()
        if action is None or self._blocker(action) is not None:
            return
        self._busy = True
        self.run_button.setEnabled(False)
        self.status.setText(f"Running “{show_line(action.title)}”…")
        set_tone(self.status, "muted")
        spawn(self._run_action(action))

    async def _run_action(self, action: ClipboardAction) -> None:
        self._prompt = action.render(self.text)
        try:
            if action.for_image:
                assert self._image_runner is not None
                self._title = title_for_action(action.title, "")
                result = await self._image_runner(action)
            else:
                assert self._runner is not None
                self._title = title_for_action(action.title, self.text)
                result = await self._runner(action, self.text)
        except Exception as exc:  # noqa: BLE001 -- shown to the user (masked)
            self._busy = False
            self.status.setText(f"“{show_line(action.title)}” failed: {error_text(exc, limit=300)}")
            set_tone(self.status, "danger")
            self.run_button.setEnabled(True)
            await self._notify_if_away(f"“{show_line(action.title)}” failed", "Open Relavium to see why.")
            return
        self._busy = False
        self._result = result
        fill_shown(self.result_view, result)
        self.status.setText(f"“{show_line(action.title)}” finished.")
        self.run_button.setEnabled(True)
        self.copy_button.setEnabled(True)
        self.chat_button.setEnabled(True)
        self.finished_run.emit(action.id)
        await self._notify_if_away(f"“{show_line(action.title)}” is ready", "The result is in the quick panel.")

    async def _notify_if_away(self, title: str, body: str) -> None:
        if self._notifier is None or self.isActiveWindow():
            return
        try:
            result = await self._notifier.notify(title, body, [])
        except Exception as exc:  # noqa: BLE001 -- the result is on screen; a missing daemon is not fatal
            log.info("clipboard notification not shown: %s", type(exc).__name__)
            return
        self.last_notification_id = str(result.get("id", ""))

    def _copy(self) -> None:
        QGuiApplication.clipboard().setText(self._result)


def _caption(text: str) -> QLabel:
    label = QLabel(text)
    set_tone(label, "muted")
    return label
