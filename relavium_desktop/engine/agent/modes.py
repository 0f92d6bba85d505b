"""Chat modes mapped onto the registry's approval regime.

The table (issue 6): ``ask`` and ``plan`` let read-only tools run and deny
every governed action; ``accept-edits`` asks before every governed action;
``auto`` approves governed actions except writes to protected paths, which
still ask.  Grants given as "always" last for the session and never cover a
protected path.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from enum import StrEnum

from relavium_desktop.engine.tools.tooldef import (
    ActionClass,
    ApprovalDecision,
    ApprovalRegime,
    ApprovalRequest,
)

GOVERNED = frozenset({ActionClass.FS_WRITE, ActionClass.PROCESS, ActionClass.EGRESS, ActionClass.OS})
ConfirmHook = Callable[[ApprovalRequest], Awaitable[ApprovalDecision]]

class ChatMode(StrEnum):
    ASK = "ask"
    PLAN = "plan"
    ACCEPT_EDITS = "accept-edits"
    AUTO = "auto"


class SessionApprovals:
    """The approval regime of one chat session, with its "always" grants."""

    def __init__(self, mode: ChatMode, confirm: ConfirmHook | None) -> None:
        self.mode = mode
        self._confirm = confirm
        self._always: set[tuple[str, str, str]] = set()

    async def _hook(self, request: ApprovalRequest) -> ApprovalDecision:
        # The registry flags protected-path writes (engine/tools/fs_floors.py).
        protected = request.protected_path
        if self.mode is ChatMode.AUTO and not protected:
            return ApprovalDecision(approved=True, scope="session")
        key = (request.tool_id, str(request.action_class), request.target)
        if not protected and key in self._always:
            return ApprovalDecision(approved=True, scope="session")
        if self._confirm is None:
            return ApprovalDecision(approved=False, reason="no one is there to confirm this action")
        decision = await self._confirm(request)
        if decision.approved and decision.scope == "session" and not protected:
            self._always.add(key)
        return decision

    def regime(self) -> ApprovalRegime:
        if self.mode in (ChatMode.ASK, ChatMode.PLAN):
            return ApprovalRegime(hook=None, deny=GOVERNED)
        # auto: everything goes through the hook so protected writes can still ask.
        return ApprovalRegime(hook=self._hook)


def headless_regime(approved: frozenset[ActionClass]) -> ApprovalRegime:
    """``agent run``: governed actions are denied unless named by --approve-all."""
    return ApprovalRegime(hook=None, auto_approve=approved, deny=GOVERNED - approved)
