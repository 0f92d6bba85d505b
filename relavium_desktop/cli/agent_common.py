"""Shared by ``relavium agent`` and ``relavium chat``: agent file, providers, host."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from relavium_desktop.cli import UsageError
from relavium_desktop.cli.jsonargs import load_json_object, print_json

DEFAULT_CHAT_AGENT: dict[str, Any] = {
    "id": "chat",
    "name": "Chat",
    "provider": "anthropic",
    "model": "claude-sonnet-4",
    "system_prompt": "You are a careful assistant working in the user's project folder.",
    "tools": ["read_file", "list_directory", "write_file", "run_command"],
}


class AgentFileError(Exception):
    """The agent file is unreadable or invalid; the message lists each problem."""


def load_agent(path_arg: str | None) -> Any:
    from relavium_desktop.engine.agent.spec import AgentSpec
    from relavium_desktop.engine.agent.yaml_source import AgentSpecError, parse_agent_yaml

    if path_arg is None:
        return AgentSpec.model_validate(DEFAULT_CHAT_AGENT)
    path = Path(path_arg)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise AgentFileError(f"{path_arg}: cannot read the agent file ({exc.strerror or type(exc).__name__})") from None
    except UnicodeDecodeError:
        raise AgentFileError(f"{path_arg}:1:1: the agent file is not UTF-8 text") from None
    try:
        return parse_agent_yaml(text, path_arg)
    except AgentSpecError as exc:
        raise AgentFileError(str(exc)) from None


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


def add_common(p: Any) -> None:
    p.add_argument("--workspace", help="workspace folder (default: the current folder)")
    p.add_argument("--policy", help='tool policy JSON, e.g. {"allowedCommands": ["git status"]}')
    p.add_argument("--providers", help="provider settings file (default: $RELAVIUM_HOME/providers.yaml)")


def providers_of(raw: str | None) -> Any:
    from relavium_desktop.host.datadir import data_dir
    from relavium_desktop.providers.config import ProviderConfigError
    from relavium_desktop.providers.wiring import host_provider_set

    try:
        return host_provider_set(data_dir(), Path(raw) if raw else None)
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
