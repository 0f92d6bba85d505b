"""The desktop's confirm hook: the shared approval flow, answered by the permission dialog.

The policy -- protected paths always ask, then stored project grants, then
the project's session grants, then the question, and where an "always"
answer is kept -- is ``application/approvals.py``'s :class:`ApprovalFlow`,
the same flow ``relavium chat`` uses, so a grant made here is honoured
there.  This controller only asks: it opens the :class:`PermissionDialog`
(with the diff the flow's ``write_diff`` prepares) and, when the window is
not focused, sends a notification with "Allow once" / "Deny" buttons;
pressing one answers the same pending dialog.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from relavium_desktop.application.approvals import (
    ApprovalFlow,
    ApprovalOffer,
    ProjectSessionGrants,
    shows_diff,
    write_diff,
)
from relavium_desktop.engine.agent.modes import SessionGrants
from relavium_desktop.engine.display_text import show_block, show_line
from relavium_desktop.engine.tools.tooldef import ApprovalDecision, ApprovalRequest
from relavium_desktop.ui.permission_dialog import PermissionDialog
from relavium_desktop.ui.qt import QObject, QWidget, Signal
from relavium_desktop.ui.tasks import spawn

if TYPE_CHECKING:
    from relavium_desktop.application.desktop_os import DesktopOs, NotificationAction
    from relavium_desktop.application.stores import GrantStore
    from relavium_desktop.ui.theme import Theme

log = logging.getLogger(__name__)

ALLOW_ONCE = "Allow once"
DENY = "Deny"


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
        # The one session-grant cache per project, shared with the chat modes (ui/chat/view.py).
        self._session = ProjectSessionGrants()
        self._by_notification: dict[str, PermissionDialog] = {}
        self.pending: PermissionDialog | None = None
        self.last_notification_id: str | None = None
        if notifier is not None:
            notifier.add_action_listener(self._on_notification_action)

    def session_grants(self, project: str | None = None) -> SessionGrants:
        """The one session-grant cache of ``project`` (default: the current one), for the chat modes too."""
        return self._session.for_project(self._project() if project is None else project)

    def flow(self) -> ApprovalFlow:
        """The shared approval policy for the current project, asking through the dialog."""
        project = self._project()
        return ApprovalFlow(self._grants, project, self.session_grants(project), self._ask)

    async def confirm(self, request: ApprovalRequest) -> ApprovalDecision:
        return await self.flow().confirm(request)

    async def _ask(self, request: ApprovalRequest, offer: ApprovalOffer) -> ApprovalDecision:
        """The dialog: the question of the flow, with a diff for a write and the offer as its buttons."""
        diff = await asyncio.to_thread(write_diff, offer.project, request) if shows_diff(request) else None
        dialog = PermissionDialog(
            request,
            project=offer.project,
            diff=diff,
            grant_label=offer.project_grant,
            protected=offer.protected,
            parent=self._window,
            theme=self._theme,
            outside=offer.outside,
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
            return await future
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

    async def _notify(self, dialog: PermissionDialog) -> None:
        assert self._notifier is not None
        # The sheet's own question, in words ("Let the agent edit src/app.py?"), not the tool and class ids;
        # its target was masked, shown by the display rule (markers, not controls) and elided in the middle.
        body = dialog.question()
        try:
            result = await self._notifier.notify(
                "Relavium needs your permission", show_block(body), [show_line(ALLOW_ONCE), show_line(DENY)]
            )
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
