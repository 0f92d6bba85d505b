"""The run_command allowlist: argv against argv, never joined strings.

An entry such as ``'npm test'`` is split shell-style into ``["npm", "test"]``
and must equal ``[command, *args]`` element by element, so neither
``["npm", "test --coverage"]`` nor ``npm test --coverage`` slips through.
Globs (opt-in, ``allowedCommandGlobs``) also match element-wise: ``npm run *``
admits exactly three elements whose last is any single argument.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from fnmatch import fnmatchcase
from functools import lru_cache

from relavium_desktop.engine.errors import DenyReason, ToolDeniedError
from relavium_desktop.engine.tools.tooldef import ToolPolicy


@lru_cache(maxsize=1024)
def split_entry(entry: str) -> tuple[str, ...]:
    """Shell-style split of one allowlist entry (no expansion of any kind)."""
    try:
        return tuple(shlex.split(entry, posix=True))
    except ValueError:
        # An unbalanced quote can never match anything; treat it as empty.
        return ()


def _exact(argv: tuple[str, ...], entries: Sequence[str]) -> bool:
    return any(split_entry(e) == argv for e in entries)


def _glob(argv: tuple[str, ...], patterns: Sequence[str]) -> bool:
    for pattern in patterns:
        parts = split_entry(pattern)
        if len(parts) == len(argv) and parts and all(
            fnmatchcase(a, p) for a, p in zip(argv, parts, strict=True)
        ):
            return True
    return False


def check_command(argv: Sequence[str], policy: ToolPolicy) -> None:
    """Raise ``tool_denied`` unless ``argv`` is allowlisted."""
    exact = policy.allowed_commands or ()
    globs = policy.allowed_command_globs or ()
    if not exact and not globs:
        raise ToolDeniedError(
            "run_command is disabled: the workflow's tools.allowedCommands list is empty or absent",
            reason=DenyReason.COMMANDS_DISABLED,
        )
    vector = tuple(argv)
    if _exact(vector, exact) or _glob(vector, globs):
        return
    raise ToolDeniedError(
        f"command {vector[0]!r} with these arguments is not in allowedCommands"
        + (" or allowedCommandGlobs" if globs else "")
        + " (entries match argument by argument, exactly)",
        reason=DenyReason.COMMAND_NOT_ALLOWED,
    )
