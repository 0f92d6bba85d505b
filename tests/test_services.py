"""The agent pieces still in ``services``: the built-in chat agent and the loading of ``*.agent.yaml`` files.

The registry and host tests moved to tests/application/test_tools.py with
the code; these go when agent loading moves to the application layer.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from relavium_desktop.engine.agent.default_chat import DEFAULT_CHAT_AGENT, default_chat_agent
from relavium_desktop.services import AGENTS_DIR, AgentFileError, load_agent, user_agents


def test_no_agent_file_means_the_builtin_chat_agent() -> None:
    spec = load_agent(None)
    assert spec == default_chat_agent()
    assert spec.id == DEFAULT_CHAT_AGENT["id"] and spec.tools == DEFAULT_CHAT_AGENT["tools"]
    # Each call is a fresh spec: one surface's copy-with-route cannot leak into another's.
    assert default_chat_agent() is not default_chat_agent()


def test_an_unreadable_or_invalid_agent_file_is_one_readable_error(tmp_path: Path) -> None:
    with pytest.raises(AgentFileError, match="cannot read the agent file"):
        load_agent(str(tmp_path / "missing.agent.yaml"))
    binary = tmp_path / "binary.agent.yaml"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(AgentFileError, match="not UTF-8"):
        load_agent(str(binary))
    broken = tmp_path / "broken.agent.yaml"
    broken.write_text("id: x\nprovider: anthropic\n", encoding="utf-8")
    with pytest.raises(AgentFileError, match=re.escape("broken.agent.yaml:")):
        load_agent(str(broken))


def test_user_agents_skip_a_broken_file_with_a_logged_reason(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = tmp_path / AGENTS_DIR
    folder.mkdir()
    (folder / "a-good.agent.yaml").write_text(
        "id: helper\nprovider: anthropic\nmodel: claude-sonnet-4\ntools: [read_file]\n", encoding="utf-8")
    (folder / "b-broken.agent.yaml").write_text("id: [\n", encoding="utf-8")
    (folder / "notes.yaml").write_text("not an agent", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="relavium_desktop.services"):
        found = user_agents(tmp_path)
    assert [(name, spec.id) for name, spec in found] == [("a-good.agent.yaml", "helper")]
    assert "skipping agent file b-broken.agent.yaml" in caplog.text


def test_no_agents_folder_means_no_user_agents(tmp_path: Path) -> None:
    assert user_agents(tmp_path) == []
