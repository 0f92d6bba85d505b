"""The chat page's settings and agent picker; the turn itself is application/chat.py's.

What was the chat view's own backend (store, providers, per-project host,
approvals) is now :class:`~relavium_desktop.application.chat.ChatService`,
shared with ``relavium chat``.  What stays here is the window's: the keys it
keeps in its own settings (the tool policy and the Settings -> Chat tools
config, read every turn) and the agent picker's entries.

Which tools a mode offers is the engine's rule (``modes.offered_tools``),
shared with ``relavium chat``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from relavium_desktop.engine.agent.spec import AgentSpec
from relavium_desktop.engine.tools.tooldef import NodeToolConfig, ToolPolicy

if TYPE_CHECKING:
    from relavium_desktop.application.paths import AppPaths
    from relavium_desktop.engine.tools.tooldef import ToolDef
    from relavium_desktop.ui.qt import QSettings

log = logging.getLogger(__name__)

KEY_POLICY = "chat/policy"  # JSON: {"allowedCommands": [...], "allowedDomains": [...]}
# JSON: {tool_id: {"parameters": {...}}} -- Settings -> Chat tools' per-tool config (engine/agent/tool_config.py).
KEY_TOOL_CONFIG = "chat/tool_config"


@dataclass(frozen=True, slots=True)
class AgentChoice:
    """One entry of the agent picker: the spec and where it came from."""

    spec: AgentSpec
    source: str  # "built-in" or the file name


def default_agent() -> AgentSpec:
    from relavium_desktop.application.chat import default_agent as built_in

    return built_in()


def load_agent_choices(paths: AppPaths) -> list[AgentChoice]:
    """The built-in chat agent, then the data folder's ``agents/*.agent.yaml`` (broken files skipped)."""
    from relavium_desktop.application.agents import user_agents

    choices = [AgentChoice(default_agent(), "built-in")]
    for name, spec in user_agents(paths):
        if all(c.spec.id != spec.id for c in choices):
            choices.append(AgentChoice(spec, name))
    return choices


def policy_from(settings: QSettings | None) -> ToolPolicy:
    """The user's tool policy for chat (allowed commands/domains); none means disabled."""
    raw = settings.value(KEY_POLICY) if settings is not None else None
    if not raw:
        return ToolPolicy()
    try:
        data = json.loads(str(raw))
        return ToolPolicy.from_json(data if isinstance(data, dict) else None)
    except ValueError as exc:
        log.warning("ignoring the chat tool policy in settings: %s", exc)
        return ToolPolicy()


def tool_configs_from(
    settings: QSettings | None, lookup: Callable[[str], ToolDef | None]
) -> dict[str, NodeToolConfig]:
    """Chat's per-tool configs from Settings, checked by the engine's rules against this turn's registry.

    Read every turn, like the policy, so a change applies from the next message.
    A stored config the engine refuses is ignored whole (logged by tool and
    field, never value): a half-applied config could send a request somewhere
    the user did not choose.
    """
    from relavium_desktop.engine.agent.tool_config import (
        ToolConfigError,
        node_tool_configs,
        parse_tool_config,
    )

    raw = settings.value(KEY_TOOL_CONFIG) if settings is not None else None
    if not raw:
        return {}
    try:
        return node_tool_configs(parse_tool_config(json.loads(str(raw)), lookup))
    except ToolConfigError as exc:
        log.warning("ignoring the chat tool config in settings: %s", exc)
    except ValueError:
        log.warning("ignoring the chat tool config in settings: not valid JSON")
    return {}
