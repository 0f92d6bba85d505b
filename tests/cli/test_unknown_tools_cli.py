"""``relavium validate`` / ``run``: a tool id that resolves to nothing is an error at its file:line:column."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import run_cli

WORKFLOW = """schema_version: '1.0'
workflow:
  id: tools-check
  http_tools:
    - {name: get_status, description: Status., url: 'https://status.example.test/now'}
  agents:
    - id: a
      model: gpt-4o-mini
      tools:
        - read_file
        - get_status
        - own_tool
        - mcp_files_search
        - mcp_nope_search
        - 'mcp:files/search'
        - teleport
      http_tools:
        - {name: own_tool, description: Mine., url: 'https://own.example.test/x'}
  nodes:
    - {id: s, type: input}
    - {id: ag, type: agent, agent_ref: a}
    - {id: t1, type: tool, tool_config: {tool_name: mcp_files_read}}
    - {id: t2, type: tool, tool_config: {tool_name: get_status}}
    - {id: t3, type: tool, tool_config: {tool_name: own_tool}}
    - {id: out, type: output}
  edges: [{from: s, to: ag}, {from: ag, to: t1}, {from: t1, to: t2}, {from: t2, to: t3}, {from: t3, to: out}]
"""

MCP_YAML = """servers:
  files:
    transport: stdio
    command: /bin/true
"""


def test_unknown_tool_ids_are_reported_at_their_positions(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path
) -> None:
    (relavium_home / "mcp.yaml").write_text(MCP_YAML)
    wf = tmp_path / "tools.relavium.yaml"
    wf.write_text(WORKFLOW)
    code, out, err = run_cli("validate", str(wf), "--json", env=cli_env)
    assert code == 2 and out == ""
    found = {(i["line"], i["column"], i["message"]) for i in json.loads(err)["issues"]}
    hint = " (an MCP tool is mcp_<server>_<tool>, and <server> must be configured in mcp.yaml)"
    assert found == {
        (14, 11, f"agent 'a' lists unknown tool 'mcp_nope_search'{hint}"),
        (15, 11, f"agent 'a' lists unknown tool 'mcp:files/search'{hint}"),
        (16, 11, "agent 'a' lists unknown tool 'teleport'"),
        # An agent's own http tool is its own: a tool node cannot use it.
        (24, 42, "unknown tool 'own_tool'"),
    }
    assert f"{wf}:14:11: agent 'a' lists unknown tool 'mcp_nope_search'" in err
    # relavium run refuses the same file before anything runs.
    code, _, err = run_cli("run", str(wf), env=cli_env, cwd=tmp_path)
    assert code == 2 and f"{wf}:16:11: agent 'a' lists unknown tool 'teleport'" in err


def test_without_the_server_configured_its_mcp_ids_are_unknown(cli_env: dict[str, str], tmp_path: Path) -> None:
    wf = tmp_path / "tools.relavium.yaml"
    wf.write_text(WORKFLOW)
    code, out, err = run_cli("validate", str(wf), "--json", env=cli_env)
    assert code == 2 and out == ""
    messages = [i["message"] for i in json.loads(err)["issues"]]
    assert any("unknown tool 'mcp_files_search'" in m for m in messages)
    assert any("unknown tool 'mcp_files_read'" in m for m in messages)


def test_a_workflows_own_mcp_servers_make_their_ids_known(cli_env: dict[str, str], tmp_path: Path) -> None:
    wf = tmp_path / "own.relavium.yaml"
    wf.write_text("""schema_version: '1.0'
workflow:
  id: own-servers
  mcp_servers:
    docs: {transport: http, url: 'https://docs.example.test/mcp'}
  agents:
    - {id: a, model: gpt-4o-mini, tools: [mcp_docs_search, mcp_files_search]}
  nodes:
    - {id: s, type: input}
    - {id: ag, type: agent, agent_ref: a}
  edges: [{from: s, to: ag}]
""")
    code, out, err = run_cli("validate", str(wf), "--json", env=cli_env)
    assert code == 2 and out == ""
    assert [(i["line"], i["column"], i["message"].split(" (")[0]) for i in json.loads(err)["issues"]] == [
        (7, 60, "agent 'a' lists unknown tool 'mcp_files_search'")]
