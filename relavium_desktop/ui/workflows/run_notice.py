"""Tell the user a workflow run finished or failed while they were elsewhere.

Runs take a while; a user switches to other work.  When a run ends
(completed or failed -- a Stop is the user's own doing and a paused run has
its own gate notification) and the window is not focused, a notification
says so with an "Open" button; pressing it (or the notification body)
asks (``open_requested``) for that run's event log in Runs / History, which
the window shows, brought forward.
Notification text is the workflow's name and the run's closed error code and
message, masked and clipped: never a secret, never the run's outputs.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from relavium_desktop.engine.tools.masking import clip, mask_text
from relavium_desktop.ui.qt import QObject, QWidget, Signal
from relavium_desktop.ui.tasks import spawn

if TYPE_CHECKING:
    from relavium_desktop.application.desktop_os import DesktopOs, NotificationAction
    from relavium_desktop.engine.workflow.run import RunResult

log = logging.getLogger(__name__)

OPEN = "Open"
TITLE_FINISHED = "Workflow run finished"
TITLE_FAILED = "Workflow run failed"
NOTIFIED_STATUSES = ("completed", "failed")


def notice_text(result: RunResult, workflow_name: str) -> tuple[str, str]:
    """(title, body) of the notification for ``result``."""
    if result.status == "completed":
        return TITLE_FINISHED, clip(mask_text(f"{workflow_name} completed."), 300)
    error = result.error or {}
    detail = f"{error.get('code', 'failed')}: {error.get('message', '')}".rstrip(": ")
    return TITLE_FAILED, clip(mask_text(f"{workflow_name} failed — {detail}"), 300)


class RunNotifier(QObject):
    notified = Signal(str, str)  # notification id, run id
    open_requested = Signal(str)  # run id the user wants to see in Runs / History

    def __init__(
        self,
        window: QWidget,
        *,
        notifier: Callable[[], DesktopOs | None],
        enabled: Callable[[], bool],
    ) -> None:
        super().__init__(window)
        self._window = window
        self._notifier = notifier
        self._enabled = enabled
        self._listening: DesktopOs | None = None
        self._runs_by_notification: dict[str, str] = {}

    def run_ended(self, result: RunResult, workflow_name: str) -> None:
        if result.status not in NOTIFIED_STATUSES or not self._enabled() or self._window.isActiveWindow():
            return
        notifier = self._notifier()
        if notifier is None:
            return
        if self._listening is not notifier:
            notifier.add_action_listener(self._on_action)
            self._listening = notifier
        title, body = notice_text(result, workflow_name)
        spawn(self._notify(notifier, title, body, result.run_id))

    async def _notify(self, notifier: DesktopOs, title: str, body: str, run_id: str) -> None:
        try:
            sent = await notifier.notify(title, body, [OPEN])
        except Exception as exc:  # noqa: BLE001 -- no notification daemon: the Runs view still has it
            log.info("run notification not shown: %s", type(exc).__name__)
            return
        nid = str(sent["id"])
        self._runs_by_notification[nid] = run_id
        self.notified.emit(nid, run_id)

    def _on_action(self, action: NotificationAction) -> None:
        run_id = self._runs_by_notification.pop(action.notification_id, None)
        if run_id is not None:  # "Open" or a click on the body: both mean "show me"
            self.open_requested.emit(run_id)
