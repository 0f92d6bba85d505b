"""Agent files: the flat and the wrapped (``schema_version`` + ``agent:``) shape, read alike everywhere."""

from __future__ import annotations

import logging
import re
import shutil
from pathlib import Path

import pytest

from relavium_desktop.application.agents import AgentFileError, load_agent, user_agents
from relavium_desktop.application.paths import AppPaths
from relavium_desktop.engine.agent.default_chat import DEFAULT_CHAT_AGENT, default_chat_agent
from relavium_desktop.engine.workflow.errors import WorkflowError
from relavium_desktop.engine.workflow.loader import load_workflow

REPO = Path(__file__).resolve().parents[2]
SHIPPED_AGENTS = sorted((REPO / "resources").rglob("*.agent.yaml"))

FLAT = "id: helper\nname: Helper\nprovider: anthropic\nmodel: claude-sonnet-4\ntools: [read_file]\n"
WRAPPED = (
    "schema_version: '1.0'\nagent:\n  id: helper\n  name: Helper\n  provider: anthropic\n"
    "  model: claude-sonnet-4\n  tools: [read_file]\n"
)


def write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_there_is_a_shipped_example_agent() -> None:
    assert [p.name for p in SHIPPED_AGENTS] == ["reviewer.agent.yaml"]


@pytest.mark.parametrize("path", SHIPPED_AGENTS, ids=lambda p: p.name)
def test_every_shipped_example_agent_loads(path: Path) -> None:
    spec = load_agent(str(path))
    assert spec.id and spec.provider and spec.model


def test_the_shipped_reviewer_keeps_its_fields() -> None:
    spec = load_agent(str(REPO / "resources/examples/agents/reviewer.agent.yaml"))
    assert (spec.id, spec.name, spec.provider, spec.model) == (
        "reviewer",
        "Code reviewer",
        "anthropic",
        "claude-sonnet-4-6",
    )
    assert spec.tools == ["read_file", "list_directory"]
    assert spec.system_prompt.startswith("You review code for bugs")


def test_flat_and_wrapped_files_are_the_same_agent(tmp_path: Path) -> None:
    assert load_agent(write(tmp_path / "f.agent.yaml", FLAT)) == load_agent(
        write(tmp_path / "w.agent.yaml", WRAPPED)
    )


def test_a_wrapped_file_is_the_same_agent_as_a_workflow_ref(tmp_path: Path) -> None:
    """One reading: what `agent run` reads from a wrapped file is what a workflow's $ref resolves to."""
    wf = (
        "schema_version: '1.0'\nworkflow:\n  id: w\n  agents: [{$ref: a.agent.yaml}]\n"
        "  nodes:\n    - {id: s, type: input}\n    - {id: a, type: agent, agent_ref: helper}\n"
        "  edges: [{from: s, to: a}]\n"
    )
    loaded = load_workflow(wf, "w.relavium.yaml", read_ref={"a.agent.yaml": WRAPPED}.__getitem__)
    spec = load_agent(write(tmp_path / "a.agent.yaml", WRAPPED))
    agent = loaded.agents["helper"]
    assert (agent.id, agent.provider, agent.model, agent.tools) == (
        spec.id,
        spec.provider,
        spec.model,
        spec.tools,
    )


def test_wrapped_problems_point_into_the_agent_block(tmp_path: Path) -> None:
    bad = WRAPPED.replace("  model: claude-sonnet-4\n", "  model: claude-sonnet-4\n  temprature: 0.2\n")
    with pytest.raises(AgentFileError) as info:
        load_agent(write(tmp_path / "w.agent.yaml", bad))
    assert str(info.value).splitlines() == [f"{tmp_path / 'w.agent.yaml'}:7:3: unknown key 'temprature'"]


@pytest.mark.parametrize(
    ("text", "where", "problem"),
    [
        (
            "schema_version: '2.0'\nagent:\n  id: a\n  provider: p\n  model: m\n",
            ":1:1:",
            "schema_version must be '1.0'",
        ),
        ("schema_version: 1.0\nagent:\n  id: a\n  provider: p\n  model: m\n", ":1:1:", "read as a number"),
        (
            "schema_version: '1.0'\nname: x\nagent:\n  id: a\n  provider: p\n  model: m\n",
            ":2:1:",
            "unknown key 'name' beside agent:",
        ),
        ("schema_version: '1.0'\nagent: reviewer\n", ":2:1:", "agent: must be a mapping"),
        (
            "schema_version: '1.0'\nid: a\nprovider: p\nmodel: m\n",
            ":1:1:",
            "schema_version goes with an agent: block",
        ),
        (
            "schema_version: '1.0'\nworkflow:\n  id: w\n",
            ":2:1:",
            "this is a workflow file, not an agent file",
        ),
    ],
)
def test_a_wrong_outer_shape_is_said_plainly_at_its_line(
    tmp_path: Path, text: str, where: str, problem: str
) -> None:
    path = write(tmp_path / "x.agent.yaml", text)
    with pytest.raises(AgentFileError) as info:
        load_agent(path)
    first = str(info.value).splitlines()[0]
    assert first.startswith(path + where) and problem in first


def test_the_same_shape_problems_fail_a_workflow_ref() -> None:
    wf = (
        "schema_version: '1.0'\nworkflow:\n  id: w\n  agents: [{$ref: a.agent.yaml}]\n"
        "  nodes:\n    - {id: s, type: input}\n    - {id: a, type: agent, agent_ref: a}\n"
        "  edges: [{from: s, to: a}]\n"
    )
    half = "schema_version: '1.0'\nid: a\nmodel: m\n"
    with pytest.raises(WorkflowError) as info:
        load_workflow(wf, "w.relavium.yaml", read_ref={"a.agent.yaml": half}.__getitem__)
    assert "a.agent.yaml:1:1: schema_version goes with an agent: block" in str(info.value)


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
    with pytest.raises(AgentFileError, match=re.escape("broken.agent.yaml:")):
        load_agent(write(tmp_path / "broken.agent.yaml", "id: x\nprovider: anthropic\n"))


def test_user_agents_read_both_shapes_and_skip_a_broken_file(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    paths = AppPaths(tmp_path)
    paths.agents.mkdir()
    write(paths.agents / "a-flat.agent.yaml", FLAT)
    shutil.copy(
        REPO / "resources/examples/agents/reviewer.agent.yaml", paths.agents / "b-reviewer.agent.yaml"
    )
    write(paths.agents / "c-broken.agent.yaml", "id: [\n")
    write(paths.agents / "notes.yaml", "not an agent")
    with caplog.at_level(logging.WARNING, logger="relavium_desktop.application.agents"):
        found = user_agents(paths)
    assert [(name, spec.id) for name, spec in found] == [
        ("a-flat.agent.yaml", "helper"),
        ("b-reviewer.agent.yaml", "reviewer"),
    ]
    assert "skipping agent file c-broken.agent.yaml" in caplog.text


def test_no_agents_folder_means_no_user_agents(tmp_path: Path) -> None:
    assert user_agents(AppPaths(tmp_path)) == []
