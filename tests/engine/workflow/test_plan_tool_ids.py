"""The plan's tool-id rules: http tools known in their scope, never shadowing, never declared twice."""

from __future__ import annotations

from relavium_desktop.engine.tools.known_ids import KnownTools
from relavium_desktop.engine.workflow.models import WorkflowFile
from relavium_desktop.engine.workflow.plan import build_plan
from relavium_desktop.engine.workflow.source import parse_yaml

KNOWN = KnownTools(frozenset({"read_file", "plugin_wordcount"}), frozenset({"files"}))


def issues(body: str, known: object = KNOWN) -> list[tuple[int | None, str]]:
    data, smap = parse_yaml("schema_version: '1.0'\nworkflow:\n  id: w\n" + body)
    wf = WorkflowFile.model_validate(data)
    agents = {a.id: a for a in wf.workflow.agents}
    _, found = build_plan(wf, agents, smap, known_tools=known)  # type: ignore[arg-type]
    return [(i.line, i.message) for i in found]


NODES = """  nodes:
    - {id: s, type: input}
    - {id: n, type: agent, agent_ref: a}
  edges: [{from: s, to: n}]
"""


def test_http_tools_are_known_in_their_scope_and_mcp_ids_by_server() -> None:
    body = """  http_tools:
    - {name: shared, description: d, url: 'https://a.example.test/'}
  agents:
    - id: a
      tools: [read_file, plugin_wordcount, shared, mine, mcp_files_grep]
      http_tools:
        - {name: mine, description: d, url: 'https://b.example.test/'}
""" + NODES
    assert issues(body) == []


def test_shadowing_and_duplicate_http_tools_are_refused_at_their_names() -> None:
    body = """  http_tools:
    - {name: read_file, description: d, url: 'https://a.example.test/'}
    - {name: twin, description: d, url: 'https://a.example.test/'}
    - {name: twin, description: d, url: 'https://a.example.test/'}
  agents:
    - id: a
      tools: [twin]
      http_tools:
        - {name: twin, description: d, url: 'https://b.example.test/'}
        - {name: mcp_files_x, description: d, url: 'https://b.example.test/'}
""" + NODES
    assert issues(body) == [
        (5, "http tool 'read_file' has the id of an existing tool; choose another name"),
        (7, "http tool 'twin' is declared twice"),
        (12, "http tool 'twin' is declared twice"),
        (13, "http tool 'mcp_files_x' has the id of an existing tool; choose another name"),
    ]


def test_without_known_tools_nothing_is_checked() -> None:
    body = "  agents:\n    - {id: a, tools: [anything]}\n" + NODES
    assert issues(body, known=None) == []


def test_a_server_an_agent_declares_makes_its_tools_known_to_the_whole_workflow() -> None:
    """A run starts the workflow's and its agents' servers as one block, so validation agrees."""
    body = """  agents:
    - id: a
      tools: [mcp_agentsrv_lookup]
      mcp_servers:
        agentsrv: {transport: stdio, command: /usr/bin/true}
  nodes:
    - {id: s, type: input}
    - {id: n, type: agent, agent_ref: a}
    - {id: t, type: tool, tool_config: {tool_name: mcp_agentsrv_lookup}}
  edges: [{from: s, to: n}, {from: n, to: t}]
"""
    assert issues(body) == []
    assert issues(body.replace("agentsrv:", "othersrv:")) != []  # an undeclared server is still unknown
