"""Chat modes mapped onto the registry's approval regime.

The table (issue 6): ``ask`` and ``plan`` let read-only tools run and deny
every governed action; ``accept-edits`` asks before every governed action;
``auto`` approves governed actions except writes to protected paths, which
still ask.  Grants given as "always" last for the session and never cover a
protected path.

:class:`SessionGrants` is the one "Allow for this session" cache: the chat
modes here and the desktop's permission dialog (``ui/approval.py``) share an
instance and its key (:func:`session_key`), so an answer given in one is seen
by the other and both cover exactly the same requests.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from relavium_desktop.engine.agent.mode_ids import ChatMode
from relavium_desktop.engine.tools.masking import MASK
from relavium_desktop.engine.tools.tooldef import (
    ActionClass,
    ApprovalDecision,
    ApprovalRegime,
    ApprovalRequest,
)

GOVERNED = frozenset({ActionClass.FS_WRITE, ActionClass.PROCESS, ActionClass.EGRESS, ActionClass.OS})
ConfirmHook = Callable[[ApprovalRequest], Awaitable[ApprovalDecision]]
SessionKey = tuple[str, str, str]


def session_key(request: ApprovalRequest) -> SessionKey | None:
    """What a session grant for ``request`` covers: this tool, class and exact target; None if nothing.

    Exact, not a folder or host: the engine cannot resolve paths, and a
    narrower grant only means one more question.  A protected path is never
    granted, nor a target masking altered (a masked secret would otherwise
    match every secret).
    """
    if request.protected_path or MASK in request.target:
        return None
    return (request.tool_id, str(request.action_class), request.target)


class SessionGrants:
    """The "Allow for this session" answers of one session (or one project in the desktop)."""

    def __init__(self) -> None:
        self._keys: set[SessionKey] = set()

    def covers(self, request: ApprovalRequest) -> bool:
        key = session_key(request)
        return key is not None and key in self._keys

    def remember(self, request: ApprovalRequest) -> bool:
        """Record a session answer; False when ``request`` can never be granted for the session."""
        key = session_key(request)
        if key is None:
            return False
        self._keys.add(key)
        return True

    def clear(self) -> None:
        self._keys.clear()


class SessionApprovals:
    """The approval regime of one chat session, with its "always" grants."""

    def __init__(self, mode: ChatMode, confirm: ConfirmHook | None, grants: SessionGrants | None = None) -> None:
        self.mode = mode
        self._confirm = confirm
        # Shared with the surface's own confirm hook when it has one (the desktop's dialog).
        self.grants = grants if grants is not None else SessionGrants()

    async def _hook(self, request: ApprovalRequest) -> ApprovalDecision:
        # The registry flags protected-path writes (engine/tools/fs_floors.py).
        if self.mode is ChatMode.AUTO and not request.protected_path:
            return ApprovalDecision(approved=True, scope="session")
        if self.grants.covers(request):
            return ApprovalDecision(approved=True, scope="session")
        if self._confirm is None:
            return ApprovalDecision(approved=False, reason="no one is there to confirm this action")
        decision = await self._confirm(request)
        if decision.approved and decision.scope == "session":
            self.grants.remember(request)
        return decision

    def regime(self) -> ApprovalRegime:
        if self.mode in (ChatMode.ASK, ChatMode.PLAN):
            return ApprovalRegime(hook=None, deny=GOVERNED)
        # auto: everything goes through the hook so protected writes can still ask.
        return ApprovalRegime(hook=self._hook)


def headless_regime(approved: frozenset[ActionClass]) -> ApprovalRegime:
    """``agent run``: governed actions are denied unless named by --approve-all."""
    return ApprovalRegime(hook=None, auto_approve=approved, deny=GOVERNED - approved)
