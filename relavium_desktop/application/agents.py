"""Agent files, read the same way wherever an agent is chosen.

``relavium agent run FILE``, ``relavium chat --agent FILE`` and the window's
agent picker (``$RELAVIUM_HOME/agents/*.agent.yaml``) all come here, and a
workflow's ``$ref`` goes through the same engine reading
(:func:`relavium_desktop.engine.agent.yaml_source.agent_document`): an agent
file is accepted in upstream's flat form and in the wrapped form
(``schema_version: '1.0'`` + ``agent:``) on every surface, so a file that
loads in one place loads in all of them.
"""

from __future__ import annotations

import logging
from pathlib import Path

from relavium_desktop.application.paths import AppPaths
from relavium_desktop.engine.agent.spec import AgentSpec

log = logging.getLogger(__name__)

AGENT_FILE_GLOB = "*.agent.yaml"


class AgentFileError(Exception):
    """The agent file is unreadable or invalid; the message lists each problem as ``file:line:column: problem``."""


def parse_agent_text(text: str, filename: str) -> AgentSpec:
    """The agent in ``text`` (flat or wrapped); :class:`AgentFileError` listing every problem."""
    from relavium_desktop.engine.agent.yaml_source import AgentSpecError, parse_agent_yaml

    try:
        return parse_agent_yaml(text, filename)
    except AgentSpecError as exc:
        raise AgentFileError(str(exc)) from None


def load_agent(path_arg: str | None) -> AgentSpec:
    """The agent in the file ``path_arg`` names, or the built-in chat agent when none is named."""
    from relavium_desktop.engine.agent.default_chat import default_chat_agent

    if path_arg is None:
        return default_chat_agent()
    try:
        text = Path(path_arg).read_text(encoding="utf-8")
    except OSError as exc:
        raise AgentFileError(
            f"{path_arg}: cannot read the agent file ({exc.strerror or type(exc).__name__})"
        ) from None
    except UnicodeDecodeError:
        raise AgentFileError(f"{path_arg}:1:1: the agent file is not UTF-8 text") from None
    return parse_agent_text(text, path_arg)


def user_agents(paths: AppPaths) -> list[tuple[str, AgentSpec]]:
    """``(file name, spec)`` for each ``agents/*.agent.yaml`` in the data folder, sorted by name.

    A broken file is skipped with a logged reason: one typo must not take the
    whole agent picker down.
    """
    folder = paths.agents
    found: list[tuple[str, AgentSpec]] = []
    if folder.is_dir():
        for path in sorted(folder.glob(AGENT_FILE_GLOB)):
            try:
                found.append((path.name, load_agent(str(path))))
            except AgentFileError as exc:
                log.warning("skipping agent file %s: %s", path.name, exc)
    return found


def default_agent(paths: AppPaths) -> tuple[str, AgentSpec] | None:
    """The agent the window's picker last chose (``defaults.json``), as ``(file name, spec)``.

    None for the built-in chat agent, for no choice, or when the chosen
    agent's file is gone or broken (logged): the caller starts the built-in one.
    """
    from relavium_desktop.application.defaults import Defaults

    wanted = Defaults(paths).agent()
    if wanted is None or wanted == "chat":
        return None
    for name, spec in user_agents(paths):
        if spec.id == wanted:
            return name, spec
    log.warning("the default agent %r is not among the agent files; the built-in chat agent is used", wanted)
    return None
