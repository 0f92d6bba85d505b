"""The one approval flow every surface uses: project grants, session grants, then the user.

The engine asks (``ApprovalRequest``); a surface answers through
:class:`ApprovalFlow`.  Before this, only the window looked at the stored
"Always allow in this project" grants, so a grant made in the app was not
honoured by ``relavium chat`` in the same folder.  Now the policy lives here
and the surfaces only supply the question itself (:data:`AskHook`): a
dialog in the window, a terminal prompt in the CLI.

The order is fixed: a protected path always asks; a stored project grant
answers ("project"); an "Allow for this session" answer answers ("session");
otherwise the user is asked, told by :class:`ApprovalOffer` what a project
grant would cover.  A "project" answer is stored (or, when it cannot be,
kept as "once"); a "session" answer goes into the session cache.

What a stored grant covers is ``store.grants``'s pure rule; what a session
grant covers is the engine's ``SessionGrants``; where a path really lies is
the host's answer.  None of it is decided twice.
"""

from __future__ import annotations

import asyncio
import difflib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from relavium_desktop.engine.agent.modes import SessionGrants, session_key
from relavium_desktop.engine.tools.masking import clip, mask_text
from relavium_desktop.engine.tools.tooldef import ActionClass, ApprovalDecision, ApprovalRequest
from relavium_desktop.host.fs.inside import inside_workspace
from relavium_desktop.host.fs.preview import canonical_folder, preview_current_text

if TYPE_CHECKING:
    from relavium_desktop.store.grants import GrantStore

DIFF_MAX_FILE_BYTES = 512 * 1024
DIFF_MAX_CHARS = 200_000
_NOT_SHOWN = {
    "not_file": "(not a regular file: {rel})",
    "too_large": "(the current file is too large to diff: {rel})",
    "hard_links": "(file has more than one hard link: contents not shown)",
    "symlink": "(a symbolic link: contents not shown)",
}


@dataclass(frozen=True, slots=True)
class ApprovalOffer:
    """What the question may offer besides "once" and "no", and what the surface should say about it.

    ``project_grant`` is the wording of what "always in this project" would
    cover ("writes under src"), None when no project grant is possible (no
    project, no grant store, a protected path, a masked target).  ``session``
    says whether "always this session" can be remembered at all.
    """

    project: str  # the canonical project folder, "" when there is none
    project_grant: str | None
    session: bool
    protected: bool
    outside: bool  # a path target that lands outside the project (a question, never a decision)


AskHook = Callable[[ApprovalRequest, ApprovalOffer], Awaitable[ApprovalDecision]]


def canonical_project(project: str | Path | None) -> str:
    """The key a project is known by (grants, session caches): its resolved path, "" for none."""
    return canonical_folder(project) if project else ""


class ProjectSessionGrants:
    """The "Allow for this session" caches of one process, one per canonical project.

    The window's chat modes and its dialog take the same instance for a
    project, so an answer given in one is seen by the other.
    """

    def __init__(self) -> None:
        self._by_project: dict[str, SessionGrants] = {}

    def for_project(self, project: str | Path | None) -> SessionGrants:
        return self._by_project.setdefault(canonical_project(project), SessionGrants())


class ApprovalFlow:
    """One project's approval policy; ``confirm`` is the engine's confirm hook."""

    def __init__(
        self,
        grants: GrantStore | None,
        project: str | Path | None,
        session: SessionGrants,
        ask: AskHook,
    ) -> None:
        self.grants = grants
        self.project = canonical_project(project)
        self.session = session
        self._ask = ask

    def _grants_here(self) -> GrantStore | None:
        return self.grants if self.project else None

    async def offer(self, request: ApprovalRequest) -> ApprovalOffer:
        """What a question about ``request`` may offer in this project."""
        grants = self._grants_here()
        target = grants.target_for(self.project, request) if grants is not None else None
        outside = False
        if (
            self.project
            and request.target
            and request.action_class in (ActionClass.FS_WRITE, ActionClass.READ)
        ):
            outside = not await asyncio.to_thread(inside_workspace, Path(self.project), request.target)
        return ApprovalOffer(
            project=self.project,
            project_grant=target.describe() if target is not None else None,
            session=session_key(request) is not None,
            protected=request.protected_path,
            outside=outside,
        )

    async def confirm(self, request: ApprovalRequest) -> ApprovalDecision:
        grants = self._grants_here()
        if not request.protected_path and grants is not None and grants.find(self.project, request):
            return ApprovalDecision(True, "project")
        if self.session.covers(request):
            return ApprovalDecision(True, "session")
        decision = await self._ask(request, await self.offer(request))
        return self._record(request, decision)

    def _record(self, request: ApprovalRequest, decision: ApprovalDecision) -> ApprovalDecision:
        """Keep an "always" answer where it belongs; one that cannot be kept is honoured once."""
        if not decision.approved:
            return decision
        if decision.scope == "project":
            grants = self._grants_here()
            try:
                if grants is None:
                    raise ValueError("no project to keep the grant in")
                grants.add(self.project, request)
            except ValueError:
                return replace(decision, scope="once")
        elif decision.scope == "session" and not self.session.remember(request):
            return replace(decision, scope="once")
        return decision


def write_diff(project: str, request: ApprovalRequest) -> str:
    """A masked unified diff of what ``write_file`` would change (or "new file"), for the question.

    The "before" side is read by the host and masked; a protected file's
    contents and a file outside the project are never shown.
    """
    args = request.masked_args
    content = args.get("content", "")
    content = mask_text(content if isinstance(content, str) else str(content))
    append = bool(args.get("append", False))
    if request.protected_path:
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
    diff = "".join(
        difflib.unified_diff(
            old.splitlines(keepends=True),
            new.splitlines(keepends=True),
            fromfile=f"a/{rel}",
            tofile=f"b/{rel}",
        )
    )
    return clip(diff, DIFF_MAX_CHARS) if diff else "(no change to the file's contents)"


def shows_diff(request: ApprovalRequest) -> bool:
    """Whether the question about ``request`` should carry a diff (a write with content)."""
    return request.tool_id == "write_file" or (
        request.action_class is ActionClass.FS_WRITE and "content" in request.masked_args
    )
