"""Shared by ``relavium agent`` and ``relavium chat``: their common options and output.

The pieces themselves (agent files, providers, host, registry) come from
the application layer (:mod:`relavium_desktop.application`); this module only turns the command line into
their arguments and their errors into usage errors.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from relavium_desktop.cli import UsageError
from relavium_desktop.cli.jsonargs import load_json_object, print_json

if TYPE_CHECKING:
    from relavium_desktop.application.paths import AppPaths
    from relavium_desktop.application.providers import ProviderSet


def workspace_of(arg: str | None) -> Path:
    workspace = Path(arg or ".").expanduser()
    if not workspace.is_dir():
        raise UsageError(f"--workspace: {workspace} is not a folder")
    return workspace.resolve()


def policy_of(raw: str | None) -> Any:
    from relavium_desktop.engine.tools.tooldef import ToolPolicy

    try:
        return ToolPolicy.from_json(load_json_object("--policy", raw))
    except ValueError as exc:
        raise UsageError(f"--policy: {exc}") from None


def tool_config_of(raw: str | None, lookup: Any, allowed_env: Any = None) -> Any:
    """``--tool-config JSON|@file``: chat's per-tool parameters, checked against the registry.

    The same ``{tool_id: {"parameters": {...}}}`` shape and rules as Settings ->
    Chat tools and an agent's ``tool_config``; returns the dispatch context's
    ``tool_configs``.  ``allowed_env`` is ``--policy``'s ``allowedEnv``, so a
    pinned env name outside the allowlist is refused before the session
    starts.  Errors name the tool and field, never a value.
    """
    from relavium_desktop.engine.agent.tool_config import (
        ToolConfigError,
        node_tool_configs,
        parse_tool_config,
    )

    try:
        return node_tool_configs(parse_tool_config(load_json_object("--tool-config", raw), lookup,
                                                   allowed_env=allowed_env))
    except ToolConfigError as exc:
        raise UsageError(f"--tool-config: {exc}") from None


def add_common(p: Any) -> None:
    p.add_argument("--workspace", help="workspace folder (default: the current folder)")
    p.add_argument("--policy", help='tool policy JSON, e.g. {"allowedCommands": ["git status"]}')
    p.add_argument("--providers", help="provider settings file (default: $RELAVIUM_HOME/providers.yaml)")


def providers_of(raw: str | None, paths: AppPaths) -> ProviderSet:
    """The providers from ``raw`` (``--providers FILE``) or the data folder's providers.yaml; UsageError if invalid."""
    from relavium_desktop.application.providers import ProviderConfigError, provider_set

    try:
        return provider_set(paths.home, settings_file=Path(raw) if raw else None)
    except ProviderConfigError as exc:
        raise UsageError(str(exc)) from None


def emit_json_line(event: dict[str, Any]) -> None:
    print_json(event, flush=True)


def describe_error(error: object) -> str:
    """An event's ``{code, reason, message}`` as one readable phrase: ``code/reason: message``."""
    if not isinstance(error, dict):
        return str(error) if error else "no reason given"
    code = str(error.get("code") or "error")
    reason = error.get("reason")
    message = error.get("message")
    head = f"{code}/{reason}" if reason else code
    return f"{head}: {message}" if message else head


class UsageTally:
    """The tokens and cost of a run or a chat turn, from its ``cost:updated`` events.

    Plain output ends with :meth:`line`, so a person sees what a run used
    without ``--json``; the cost is given only when every model's price is
    known (a guessed price would mislead).
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.input_tokens = 0
        self.output_tokens = 0
        self.cost_microcents = 0
        self.cost_known = True
        self.turns = 0

    def add(self, event: dict[str, Any]) -> None:
        if event.get("type") != "cost:updated":
            return
        self.turns += 1
        self.input_tokens += int(event.get("inputTokens") or 0)
        self.output_tokens += int(event.get("outputTokens") or 0)
        cost = event.get("costMicrocents")
        if isinstance(cost, int):
            self.cost_microcents += cost
        else:
            self.cost_known = False

    def line(self) -> str:
        """``usage: 1,234 input + 56 output tokens, $0.0012`` (or ``cost unknown``)."""
        text = f"usage: {self.input_tokens:,} input + {self.output_tokens:,} output tokens"
        if not self.turns:
            return text
        if self.cost_known:
            return f"{text}, ${self.cost_microcents / 100_000_000:.4f}"
        return f"{text}, cost unknown (no price for this model)"


def headless_approval(risks: set[str]) -> Any:
    """``agent run``'s approval regime: what ``--approve-all`` names runs, the rest is refused.

    The refusal names the flag that would allow the action, so the person
    reading it knows the next command to type.
    """
    import dataclasses

    from relavium_desktop.engine.agent.modes import headless_regime
    from relavium_desktop.engine.tools.tooldef import ActionClass

    def refused(tool_id: str, action: ActionClass) -> str:
        return (f"{tool_id}: {action} actions are not allowed in a headless run; "
                f"rerun with --approve-all {action} to allow them")

    regime = headless_regime(frozenset(ActionClass(r) for r in risks))
    return dataclasses.replace(regime, deny_message=refused)


def warn_if_unconfined(policy: Any) -> None:
    """One stderr line when ``--policy`` opts the commands out of the sandbox: they run with all of the user's rights."""
    import sys

    from relavium_desktop.application.sandbox import off_notice

    notice = off_notice(policy.sandbox)
    if notice is not None:
        print(f"relavium: warning: {notice}", file=sys.stderr, flush=True)
