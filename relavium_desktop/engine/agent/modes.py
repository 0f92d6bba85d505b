"""Chat modes mapped onto the registry's approval regime.

The table (issue 13, "Modes that say what they do"):

=================  ==========================================================
mode               governed actions (file writes, commands, network, OS)
=================  ==========================================================
Read-only          denied; only read tools run (ids ``read-only``, ``ask``, ``plan``)
Ask before acting  every one asks, unless already granted (the default)
Auto-approve edits file writes inside the project run; everything else asks
Auto               everything runs without asking
=================  ==========================================================

In every mode a write to a protected path (``engine/tools/fs_floors.py``)
still asks, and grants given as "always" last for the session and never
cover a protected path.  The engine cannot resolve paths, so "inside the
project" is a predicate the surface hands in (``host/fs/inside.py``); without
one, or without a path, an edit asks: every doubt falls towards asking.

:class:`SessionGrants` is the one "Allow for this session" cache: the chat
modes here and the desktop's permission dialog (``ui/approval.py``) share an
instance and its key (:func:`session_key`), so an answer given in one is seen
by the other and both cover exactly the same requests.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING

from relavium_desktop.engine.agent.mode_ids import MODE_TITLES, ChatMode
from relavium_desktop.engine.tools.masking import MASK
from relavium_desktop.engine.tools.tooldef import (
    ActionClass,
    ApprovalDecision,
    ApprovalRegime,
    ApprovalRequest,
)

if TYPE_CHECKING:
    from relavium_desktop.engine.tools.registry import ToolRegistry

GOVERNED = frozenset({ActionClass.FS_WRITE, ActionClass.PROCESS, ActionClass.EGRESS, ActionClass.OS})
ConfirmHook = Callable[[ApprovalRequest], Awaitable[ApprovalDecision]]
SessionKey = tuple[str, str, str]
InProject = Callable[[str], bool]

# Why a refusing mode refuses, in the words of its description (only Read-only refuses today).
_REFUSES_BECAUSE = {ChatMode.READ_ONLY: "which changes nothing"}


def offered_tools(tool_ids: Iterable[str], mode: ChatMode, registry: ToolRegistry) -> frozenset[str]:
    """The tools described to the model in ``mode``: only read tools in Read-only, else all it has.

    Offering is not granting: the agent keeps its whole tool list, so a call
    the model guesses at anyway meets the mode's refusal, which says how to
    allow it -- not a bare "not granted".
    """
    offered = set()
    for tool_id in tool_ids:
        tool = registry.get(tool_id)
        if tool is None:
            continue
        if mode is ChatMode.READ_ONLY and tool.policy.action_class in GOVERNED:
            continue
        offered.add(tool_id)
    return frozenset(offered)


def mode_allowing(mode: ChatMode, action: ActionClass) -> ChatMode | None:
    """The least permissive mode that would let ``action`` run, when ``mode`` refuses it; else None.

    What the UI offers as a one-click switch after a refusal.  Only
    Read-only refuses (every governed class); "Ask before acting" is the
    smallest step that allows it, still asking each time.
    """
    if mode is ChatMode.READ_ONLY and action in GOVERNED:
        return ChatMode.CONFIRM
    return None


def mode_refusal(mode: ChatMode, tool_id: str, action: ActionClass) -> str:
    """The words of a mode's refusal: which mode refused, why, and which mode would allow it.

    The reason code stays ``user_rejected`` (a fixed contract); the message
    is what tells the user and the model what to change.
    """
    because = _REFUSES_BECAUSE.get(mode)
    said = f"{tool_id} is not available in {MODE_TITLES[mode]} mode" + (f", {because}" if because else "")
    allowing = mode_allowing(mode, action)
    if allowing is None:
        return f"{said}."
    return f"{said}; switch to \u201c{MODE_TITLES[allowing]}\u201d to allow it."


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
    """The approval regime of one chat session, with its "always" grants.

    ``in_project(path)`` says whether a write's path lies inside the project
    (the host's predicate, e.g. ``functools.partial(inside_workspace, root)``);
    Auto-approve edits only lets writes it vouches for through unasked.
    """

    def __init__(
        self,
        mode: ChatMode,
        confirm: ConfirmHook | None,
        grants: SessionGrants | None = None,
        in_project: InProject | None = None,
    ) -> None:
        self.mode = mode
        self._confirm = confirm
        # Shared with the surface's own confirm hook when it has one (the desktop's dialog).
        self.grants = grants if grants is not None else SessionGrants()
        self.in_project = in_project

    def _edit_in_project(self, request: ApprovalRequest) -> bool:
        """A file write the project predicate vouches for; any doubt (no predicate, masked path, error) is False."""
        if request.action_class is not ActionClass.FS_WRITE or self.in_project is None:
            return False
        if not request.path or MASK in request.path:
            return False
        try:
            return bool(self.in_project(request.path))
        except (OSError, ValueError):
            return False

    def _runs_unasked(self, request: ApprovalRequest) -> bool:
        # The registry flags protected-path writes (engine/tools/fs_floors.py): they always ask.
        if request.protected_path:
            return False
        if self.mode is ChatMode.AUTO:
            return True
        return self.mode is ChatMode.ACCEPT_EDITS and self._edit_in_project(request)

    async def _hook(self, request: ApprovalRequest) -> ApprovalDecision:
        if self._runs_unasked(request) or self.grants.covers(request):
            return ApprovalDecision(approved=True, scope="session")
        if self._confirm is None:
            return ApprovalDecision(approved=False, reason="no one is there to confirm this action")
        decision = await self._confirm(request)
        if decision.approved and decision.scope == "session":
            self.grants.remember(request)
        return decision

    def _refusal(self, tool_id: str, action: ActionClass) -> str:
        return mode_refusal(self.mode, tool_id, action)

    def regime(self) -> ApprovalRegime:
        if self.mode is ChatMode.READ_ONLY:
            return ApprovalRegime(hook=None, deny=GOVERNED, deny_message=self._refusal)
        # Every other mode sends everything through the hook so protected writes can still ask.
        return ApprovalRegime(hook=self._hook)


def headless_regime(approved: frozenset[ActionClass]) -> ApprovalRegime:
    """``agent run``: governed actions are denied unless named by --approve-all."""
    return ApprovalRegime(hook=None, auto_approve=approved, deny=GOVERNED - approved)
