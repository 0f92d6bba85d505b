""""Allow a folder outside the project…": the chat's answer to an ``outside_scope`` refusal.

When a file tool is refused because its path is outside the project, the
model is told (the refusal is fed back) and the user sees this bar.  Its
button opens the folder dialog (the app's folder picker, a test double in
tests); the chosen folder is remembered for this project in history.db
(``store.grants.FolderGrantStore``, keyed by the same canonical project path
as every other grant) and becomes an extra root of the project's host from
the next turn on.  It is a root, not an exemption: the protected-path floors
(.ssh, .env, keys …) still apply inside it.  "Ask again" re-sends the last
message so the refused call can be retried.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relavium_desktop.engine.display_text import show_line
from relavium_desktop.ui.chat.offer_bar import OfferBar
from relavium_desktop.ui.error_text import error_text
from relavium_desktop.ui.qt import Signal

if TYPE_CHECKING:
    from relavium_desktop.ui.context import AppContext

ALLOW_LABEL = "Allow a folder outside the project…"


def start_folder(tool_input: Any) -> str:
    """Where the folder dialog opens: the refused path's nearest existing folder, else home."""
    path = tool_input.get("path") if isinstance(tool_input, dict) else None
    if isinstance(path, str) and os.path.isabs(path):
        candidate = Path(path)
        for folder in (candidate, *candidate.parents):
            if folder.is_dir():
                return str(folder)
    return str(Path.home())


class FolderAccessOffer(OfferBar):
    granted = Signal(str)  # the canonical folder now allowed for the project
    retry_requested = Signal()
    project_requested = Signal()  # "Choose a project folder…": the window owns the dialog

    def __init__(self, context: AppContext) -> None:
        super().__init__("folderAccessOffer", "banner-info")
        self._context = context
        self._tool_input: Any = None
        self._wants_project = False  # offer_project is showing: a chosen project answers it
        self.allow_button = self.button(ALLOW_LABEL, "allowFolderButton")
        self.project_button = self.button("Choose a project folder…", "offerProjectButton")
        self.retry_button = self.button("Continue", "offerContinueButton")
        self.allow_button.clicked.connect(self.choose_folder)
        self.project_button.clicked.connect(self.project_requested)
        self.retry_button.clicked.connect(self._retry)
        context.project_changed.connect(self._project_chosen)

    def offer(self, tool_id: str, tool_input: Any) -> None:
        """Show the offer after ``tool_id`` was refused for a path outside the project."""
        self._tool_input = tool_input
        self._wants_project = False
        path = tool_input.get("path") if isinstance(tool_input, dict) else None
        what = f"“{show_line(path)}”" if isinstance(path, str) and path else "that path"
        self.show_step(
            f"The agent could not reach {what}: it is outside the project folder. You can allow this "
            "project to use one more folder (protected files inside it stay off-limits).",
            self.allow_button,
        )

    def offer_project(self, tool_id: str) -> None:
        """Show the offer after ``tool_id`` was refused because no project folder is chosen."""
        self._wants_project = True
        self.show_step(
            "The agent needs a project folder for that, and none is chosen, so file and command tools are off. "
            "Choose the folder the agent may work in to turn them on for this chat.",
            self.project_button,
        )

    def _project_chosen(self, project: str) -> None:
        if not (self._wants_project and self.isVisible()):
            return
        self._wants_project = False
        self.show_step(f"Tools are on for {project}. Continue to let the agent try again.", self.retry_button)

    def choose_folder(self) -> None:
        context = self._context
        if not context.project:
            return
        folder = context.folder_picker(self, start_folder(self._tool_input))
        if not folder:
            return  # the dialog was cancelled: nothing changes
        context.ensure_services()
        if context.grants is None:
            return
        try:
            grant = context.grants.folders.add(context.project, folder)
        except ValueError as exc:
            self.label.setText(f"That folder cannot be allowed: {error_text(exc)}.")
            return
        self.show_step(f"Allowed for this project: {grant.folder}. Revoke it any time in Settings → Permissions.",
                       self.retry_button)
        self.granted.emit(grant.folder)

    def _retry(self) -> None:
        self.hide()
        self.retry_requested.emit()
