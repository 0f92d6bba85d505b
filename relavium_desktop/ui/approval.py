"""The desktop's confirm hook: project grants, session grants, then the dialog.

The engine asks (``ApprovalRequest``); this controller answers
(``ApprovalDecision``).  What a stored grant covers is decided by
``store.grants`` -- the same pure rule Settings shows -- never here; what a
session grant covers is the engine's ``SessionGrants`` (one cache per
project, shared with the chat modes), never a second rule here.  The diff's
"before" side is read by the host (``host/fs/preview.py``), never here.  When the
window is not focused, a notification with "Allow once" / "Deny" buttons is
sent as well; pressing one answers the same pending dialog.
"""

from __future__ import annotations

import asyncio
import difflib
import logging
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from relavium_desktop.engine.agent.modes import SessionGrants
from relavium_desktop.engine.display_text import elide_middle, show, show_block, show_line
from relavium_desktop.engine.tools.masking import clip, mask_text
from relavium_desktop.engine.tools.tooldef import ActionClass, ApprovalDecision, ApprovalRequest
from relavium_desktop.host.fs.inside import inside_workspace
from relavium_desktop.host.fs.preview import canonical_folder, preview_current_text
from relavium_desktop.store.grants import GrantStore, is_protected
from relavium_desktop.ui.permission_dialog import PermissionDialog
from relavium_desktop.ui.qt import QObject, QWidget, Signal
from relavium_desktop.ui.tasks import spawn

if TYPE_CHECKING:
    from relavium_desktop.host.desktop_os import DesktopOs, NotificationAction
    from relavium_desktop.ui.theme import Theme

log = logging.getLogger(__name__)

ALLOW_ONCE = "Allow once"
DENY = "Deny"
DIFF_MAX_FILE_BYTES = 512 * 1024
DIFF_MAX_CHARS = 200_000
_NOT_SHOWN = {
    "not_file": "(not a regular file: {rel})",
    "too_large": "(the current file is too large to diff: {rel})",
    "hard_links": "(file has more than one hard link: contents not shown)",
    "symlink": "(a symbolic link: contents not shown)",
}


def write_diff(project: str, request: ApprovalRequest) -> str:
    """A masked unified diff of what ``write_file`` would change (or "new file")."""
    args = request.masked_args
    content = args.get("content", "")
    content = mask_text(content if isinstance(content, str) else str(content))
    append = bool(args.get("append", False))
    if is_protected(request):
        return "(the current contents of a protected file are not shown)"
    current = preview_current_text(project, request.target, DIFF_MAX_FILE_BYTES) if project else None
    new_lines = content.splitlines(keepends=True)
    if current is None or current.state == "outside":
        return "(outside the project folder: current contents not shown)\n" + "".join(
            "+" + line for line in new_lines
        )
    rel = current.rel
    if current.state == "missing":
        return clip(f"new file: {rel}\n" + "".join("+" + line for line in new_lines), DIFF_MAX_CHARS)
    if current.state != "text" or current.text is None:
        return _NOT_SHOWN.get(current.state, "(the current file could not be read: {rel})").format(rel=rel)
    old = mask_text(current.text)
    new = old + content if append else content
    diff = "".join(difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True),
        fromfile=f"a/{rel}", tofile=f"b/{rel}",
    ))
    return clip(diff, DIFF_MAX_CHARS) if diff else "(no change to the file's contents)"


class ApprovalController(QObject):
    dialog_opened = Signal(object)  # PermissionDialog
    approval_waiting = Signal(bool)  # True while a dialog waits for the user

    def __init__(
        self,
        window: QWidget,
        *,
        grants: GrantStore | None,
        project: Callable[[], str],
        notifier: DesktopOs | None = None,
        notify_enabled: Callable[[], bool] = lambda: True,
        theme: Theme | None = None,
    ) -> None:
        super().__init__(window)
        self._window = window
        self._theme = theme  # the dialog's diff and icon are drawn from it
        self._grants = grants
        self._project = project
        self._notifier = notifier
        self._notify_enabled = notify_enabled
        self._session: dict[str, SessionGrants] = {}  # per canonical project ("" for none)
        self._by_notification: dict[str, PermissionDialog] = {}
        self.pending: PermissionDialog | None = None
        self.last_notification_id: str | None = None
        if notifier is not None:
            notifier.add_action_listener(self._on_notification_action)

    def session_grants(self, project: str | None = None) -> SessionGrants:
        """The one session-grant cache of ``project`` (default: the current one), for the chat modes too."""
        raw = self._project() if project is None else project
        key = canonical_folder(raw) if raw else ""
        return self._session.setdefault(key, SessionGrants())

    async def confirm(self, request: ApprovalRequest) -> ApprovalDecision:
        project = canonical_folder(self._project()) if self._project() else ""
        protected = is_protected(request)
        if project and not protected and self._grants is not None and self._grants.find(project, request):
            return ApprovalDecision(True, "project")
        if self.session_grants(project).covers(request):
            return ApprovalDecision(True, "session")

        diff = None
        if request.tool_id == "write_file" or (
            request.action_class is ActionClass.FS_WRITE and "content" in request.masked_args
        ):
            diff = await asyncio.to_thread(write_diff, project, request)
        target = self._grants.target_for(project, request) if project and self._grants is not None else None
        # The dialog names a path target that lands outside the project (a question, never a decision).
        outside = bool(project) and request.action_class in (ActionClass.FS_WRITE, ActionClass.READ) and bool(
            request.target) and not await asyncio.to_thread(inside_workspace, Path(project), request.target)
        dialog = PermissionDialog(
            request, project=project, diff=diff,
            grant_label=target.describe() if target else None, protected=protected, parent=self._window,
            theme=self._theme, outside=outside,
        )
        future: asyncio.Future[ApprovalDecision] = asyncio.get_running_loop().create_future()

        def settle(decision: object) -> None:
            if not future.done() and isinstance(decision, ApprovalDecision):
                future.set_result(decision)

        dialog.decided.connect(settle)
        self.pending = dialog
        dialog.open()
        self.dialog_opened.emit(dialog)
        self.approval_waiting.emit(True)
        if self._notifier is not None and self._notify_enabled() and not self._window.isActiveWindow():
            spawn(self._notify(dialog))
        try:
            decision = await future
        except asyncio.CancelledError:
            dialog.answer(ApprovalDecision(False, "once", "the run was cancelled"))
            raise
        finally:
            self.pending = None
            for nid, d in list(self._by_notification.items()):
                if d is dialog:
                    del self._by_notification[nid]
            dialog.deleteLater()
            self.approval_waiting.emit(False)

        if decision.approved and decision.scope == "project":
            try:
                assert self._grants is not None
                self._grants.add(project, request)
            except (AssertionError, ValueError):
                decision = replace(decision, scope="once")
        elif decision.approved and decision.scope == "session":
            self.session_grants(project).remember(request)
        return decision

    async def _notify(self, dialog: PermissionDialog) -> None:
        assert self._notifier is not None
        request = dialog.request
        # The target is the model's text: masked, then shown by the display rule (markers, not controls).
        body = f"{show_line(request.tool_id)} wants to {request.action_class}"
        if request.target:
            body += f": {elide_middle(show(mask_text(request.target)), 200).text}"
        try:
            result = await self._notifier.notify(
                "Relavium needs your permission", show_block(body), [show_line(ALLOW_ONCE), show_line(DENY)])
        except Exception as exc:  # noqa: BLE001 -- the dialog still waits; a missing notifier is not fatal
            log.info("approval notification not shown: %s", type(exc).__name__)
            return
        nid = str(result["id"])
        self.last_notification_id = nid
        if dialog.decision is None:
            self._by_notification[nid] = dialog

    def _on_notification_action(self, action: NotificationAction) -> None:
        dialog = self._by_notification.pop(action.notification_id, None)
        if dialog is None or dialog.decision is not None:
            return
        if action.action == ALLOW_ONCE:
            dialog.answer(ApprovalDecision(True, "once"))
        elif action.action == DENY:
            dialog.answer(ApprovalDecision(False, "once", "denied from the notification"))
        else:  # a click on the notification's body: bring the dialog forward
            self._window.activateWindow()
            dialog.raise_()
