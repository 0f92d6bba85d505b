"""The run_command allowlist: argv against argv, never joined strings.

An entry such as ``'npm test'`` is split shell-style into ``["npm", "test"]``
and must equal ``[command, *args]`` element by element, so neither
``["npm", "test --coverage"]`` nor ``npm test --coverage`` slips through.
Globs (opt-in, ``allowedCommandGlobs``) also match element-wise: ``npm run *``
admits exactly three elements whose last is any single argument.

:func:`validate_command_entry` is the one rule for what an entry may be, used
by every surface that accepts one (the CLI's ``--policy``, a workflow's
``tools`` block, Settings → Chat tools), so none accepts what another refuses.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from fnmatch import fnmatchcase
from functools import lru_cache
from typing import TYPE_CHECKING

from relavium_desktop.engine.errors import DenyReason, ToolDeniedError

if TYPE_CHECKING:  # tooldef imports this module to validate policies
    from relavium_desktop.engine.tools.tooldef import ToolPolicy

_OPERATOR_CHARS = frozenset("();<>|&")


class AllowlistEntryError(ValueError):
    """An allowlist entry no surface accepts; the message names the entry and the rule."""


@lru_cache(maxsize=1024)
def split_entry(entry: str) -> tuple[str, ...]:
    """Shell-style split of one allowlist entry (no expansion of any kind)."""
    try:
        return tuple(shlex.split(entry, posix=True))
    except ValueError:
        # An unbalanced quote can never match anything; treat it as empty.
        return ()


def validate_command_entry(entry: str, *, field: str = "allowedCommands") -> tuple[str, ...]:
    """The argument vector ``entry`` allows, or :class:`AllowlistEntryError`.

    Refused: an empty entry (it would allow nothing while looking like it
    allows something), unbalanced quoting (it could never match), and an
    unquoted shell operator or command substitution (``&&``, ``|``, ``;``,
    ``>``, ``$(…)``, backticks): run_command starts one program without a
    shell, so such an entry would never mean what it appears to.  Quoted
    metacharacters are literal arguments and stay allowed.
    """
    if not entry.strip():
        raise AllowlistEntryError(f"{field}: empty entry {entry!r}; type a command, e.g. 'npm test'")
    try:
        argv = tuple(shlex.split(entry, posix=True))
    except ValueError as exc:
        raise AllowlistEntryError(f"{field}: cannot split {entry!r} into arguments ({exc})") from None
    operators = _unquoted_operators(entry)
    if operators:
        shown = "$(" if operators[0] in ("(", ")") and "$(" in entry else operators[0]
        raise AllowlistEntryError(
            f"{field}: {entry!r} contains the shell operator {shown!r}, but run_command runs "
            "one program without a shell; add each command as its own entry"
        )
    return argv


def _unquoted_operators(entry: str) -> list[str]:
    """The shell operators of ``entry`` outside quotes (``&&``, ``>``, ``(``, a backtick), in order.

    Scanned by hand because a posix shlex strips the quotes before a token
    can be told apart: ``echo '>'`` is a literal ``>`` argument, ``echo >``
    a redirection.  A backslash-escaped character is literal too; inside
    double quotes a backslash escapes the next character, inside single
    quotes nothing does (POSIX shell rules, which ``shlex.split`` follows).
    """
    operators: list[str] = []
    run = ""
    quote: str | None = None
    i = 0
    while i < len(entry):
        c = entry[i]
        if quote is None and (c in _OPERATOR_CHARS or c == "`"):
            if c == "`":
                if run:
                    operators.append(run)
                    run = ""
                operators.append("`")
            else:
                run += c
            i += 1
            continue
        if run:
            operators.append(run)
            run = ""
        if quote is None:
            if c == "\\":
                i += 1  # the next character is literal
            elif c in "'\"":
                quote = c
        elif c == quote:
            quote = None
        elif c == "\\" and quote == '"':
            i += 1
        i += 1
    if run:
        operators.append(run)
    return operators


def validate_command_entries(entries: Sequence[str], *, field: str = "allowedCommands") -> None:
    """Every entry valid, or :class:`AllowlistEntryError` naming the first that is not."""
    for entry in entries:
        validate_command_entry(entry, field=field)


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
