"""``relavium chat``'s approval question on the terminal, asked through the shared approval flow.

The policy (protected paths always ask, stored project grants, session
grants, where an "always" answer is kept) is ``application/approvals.py``'s,
the same the window's dialog uses: a grant made with "Always allow in this
project" in the app is honoured here, and one made here (``[p]``) is
honoured there.  This module only asks, by the display rule: the model wrote
the target and the arguments, so they are masked, then shown with markers
instead of control or bidi characters (an escape sequence cannot rewrite the
line, a bidi override cannot turn ``.sh`` into ``.jpg``), and look-alike
letters are named.  Anything but a listed answer is "no".
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from relavium_desktop.application.approvals import ApprovalFlow, ApprovalOffer
from relavium_desktop.engine.agent.modes import ConfirmHook, SessionGrants
from relavium_desktop.engine.display_text import (
    MARKERS_NOTICE,
    Shown,
    kinds_sentence,
    show,
    show_line,
    show_value,
    target_kinds,
)
from relavium_desktop.engine.tools.masking import mask_text
from relavium_desktop.engine.tools.tooldef import ApprovalDecision, ApprovalRequest

if TYPE_CHECKING:
    from relavium_desktop.application.app import Application

ONCE_ANSWERS = ("y", "yes")
SESSION_ANSWERS = ("a", "always")
PROJECT_ANSWERS = ("p", "project")


def shown(text: Shown) -> str:
    """``text`` for this terminal: markers in reverse video on a tty, as bracketed text in a pipe."""
    if not sys.stdout.isatty():
        return text.text
    return "".join(f"\x1b[7m{piece}\x1b[27m" if marker else piece for piece, marker in text.parts)


def _say(text: str = "", end: str = "\n") -> None:
    sys.stdout.write(text + end)
    sys.stdout.flush()


async def _readline() -> str | None:
    line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    return line if line else None


def choices(offer: ApprovalOffer) -> str:
    """The answer line: once and no always; "this session" and "in this project" only when they can be kept."""
    parts = ["[y]es once", "[n]o"]
    if offer.session:
        parts.append("[a]lways this session")
    if offer.project_grant:
        # The grant's wording carries a path the model chose: shown by the same rule as the target.
        parts.append(f"[p] always in this project ({shown(show(mask_text(offer.project_grant)))})")
    return "  " + " / ".join(parts) + " > "


async def terminal_ask(request: ApprovalRequest, offer: ApprovalOffer) -> ApprovalDecision:
    """Ask on the terminal (stdin may be a pipe); the flow records an "always" answer."""
    flag = " [protected path]" if request.protected_path else ""
    target = show(mask_text(request.target))
    _say(f"\n? allow {show_line(request.tool_id)} ({request.action_class}){flag}: {shown(target)}")
    notes = (
        [kinds_sentence(target_kinds(request.target))]
        if str(request.action_class) in ("fs_write", "read")
        else []
    )
    notes += [MARKERS_NOTICE] if target.changed else []
    notes += [f"Look-alike letters: {w}." for w in target.warnings]
    for note in filter(None, notes):
        _say(f"  ! {note}")
    _say(f"  arguments: {shown(show_value(request.masked_args, 'line'))}")
    _say(choices(offer), end="")
    answer = ((await _readline()) or "").strip().lower()
    if answer in ONCE_ANSWERS:
        return ApprovalDecision(approved=True, scope="once")
    if answer in SESSION_ANSWERS and offer.session:
        return ApprovalDecision(approved=True, scope="session")
    if answer in PROJECT_ANSWERS and offer.project_grant:
        return ApprovalDecision(approved=True, scope="project")
    return ApprovalDecision(approved=False, reason="the user said no")


def terminal_confirm(app: Application, project: Path, session: SessionGrants | None = None) -> ConfirmHook:
    """The CLI's confirm hook for ``project``: the shared flow over ``app``'s grants, asking on the terminal.

    Pass the chat session's ``SessionGrants`` (``SessionApprovals.grants``)
    so its "always this session" answers and the flow's are one cache.
    """
    flow = ApprovalFlow(
        app.grants(), project, session if session is not None else SessionGrants(), terminal_ask
    )
    return flow.confirm
