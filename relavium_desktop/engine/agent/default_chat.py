"""The built-in chat agent: what chat runs when the user picked no agent file.

It is part of the agent's definition, not of any surface, so ``relavium
chat`` and the desktop's chat view offer the very same agent.  Pure data: no
file is read to build it.
"""

from __future__ import annotations

from typing import Any

from relavium_desktop.engine.agent.spec import AgentSpec

DEFAULT_CHAT_AGENT: dict[str, Any] = {
    "id": "chat",
    "name": "Chat",
    "provider": "anthropic",
    "model": "claude-sonnet-4",
    "system_prompt": "You are a careful assistant working in the user's project folder.",
    "tools": ["read_file", "list_directory", "write_file", "run_command"],
}


def default_chat_agent() -> AgentSpec:
    """A fresh spec each call, so a caller's copy-with-route never leaks into another's."""
    return AgentSpec.model_validate(DEFAULT_CHAT_AGENT)
