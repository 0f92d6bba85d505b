"""``type: http`` tools end to end through the real ``relavium`` console script.

The tools call a real local HTTPS server (trustme CA, tests/host/egress) and
carry a credential from the real keyring (private Secret Service).  The CLI
subprocess reaches the server through tests/fixtures/egress_route: only the
test host names resolve to 127.0.0.1 and only that address counts as public;
every other SSRF rule is production's.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from relavium_desktop.host.secrets import SecretStore
from tests.cli.llm_cli import KEY, write_providers
from tests.fixtures.desktop_bus import desktop_bus_env_fixture, desktop_bus_fixture  # noqa: F401
from tests.fixtures.egress_route import egress_route_env
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.helpers import run_cli
from tests.host.egress.conftest import HOSTS, SERVER_IP, TestServer, tls_server  # noqa: F401


@pytest.fixture
def routed(desktop_bus_env: dict[str, str], cli_env: dict[str, str], tls_server: TestServer,  # noqa: F811
           tmp_path: Path) -> dict[str, str]:
    """A CLI environment on the private keyring whose egress reaches the local TLS server."""
    tls_server.requests.clear()
    env = {**desktop_bus_env, "RELAVIUM_HOME": cli_env["RELAVIUM_HOME"], "PYTHONUNBUFFERED": "1"}
    return egress_route_env(env, ip=SERVER_IP, hosts=HOSTS, ca=tls_server.ca, tmp=tmp_path)


@pytest.fixture
def secret(desktop_bus_env: dict[str, str]) -> tuple[str, str]:
    name = f"api-{uuid.uuid4().hex[:6]}"
    value = f"sk-http-{uuid.uuid4().hex}"
    SecretStore().set(name, value)
    return name, value


def http_tool_yaml(server: TestServer, secret_name: str, indent: str) -> str:
    decl = {
        "name": "lookup",
        "description": "Look an item up and say who asked.",
        "method": "POST",
        "url": server.url("/echo") + "?item={item}",
        "parameters": {"type": "object", "properties": {"item": {"type": "string"}, "n": {"type": "integer"}},
                       "required": ["item"]},
        "headers": {"X-Api-Key": f"secret:{secret_name}"},
        "body": {"query": {"item": "{item}", "n": "{n}"}},
        "response": {"fields": {"auth": "/headers/X-Api-Key", "type": "headers.Content-Type"}},
    }
    return indent + json.dumps([decl])  # JSON is YAML (flow style)


def workflow(server: TestServer, secret_name: str) -> str:
    return f"""schema_version: '1.0'
workflow:
  id: http-tool
  inputs: [{{name: item, type: string}}]
  http_tools:
{http_tool_yaml(server, secret_name, "    ")}
  nodes:
    - {{id: s, type: input}}
    - id: look
      type: tool
      tool_config:
        tool_name: lookup
        input_mapping: {{item: '{{{{ inputs.item }}}}', n: 7}}
        output_mapping: {{auth: data.auth, type: data.type}}
    - {{id: out, type: output}}
  edges: [{{from: s, to: look}}, {{from: look, to: out}}]
"""


def test_workflow_tool_node_runs_an_http_tool_with_a_keyring_credential(
    routed: dict[str, str], tls_server: TestServer, secret: tuple[str, str], tmp_path: Path,  # noqa: F811
) -> None:
    name, value = secret
    wf = tmp_path / "http.relavium.yaml"
    wf.write_text(workflow(tls_server, name))
    code, _, err = run_cli("validate", str(wf), env=routed, cwd=tmp_path)
    assert code == 0, err
    code, events, err = run_cli("run", str(wf), "--input", "item=a b&c", "--workspace", str(tmp_path), "--json",
                                env=routed, cwd=tmp_path)
    assert code == 0, err
    sent = tls_server.requests[-1]
    assert sent["headers"]["X-Api-Key"] == value  # resolved from the keyring inside the host
    assert sent["query"] == {"item": "a b&c"}
    assert json.loads(sent["body"]) == {"query": {"item": "a b&c", "n": 7}}
    # The mapped response reaches the output; the echoed credential comes back scrubbed.
    assert events[-1]["type"] == "run:completed"
    out = events[-1]["outputs"]["out"]
    assert out["type"] == "application/json" and out["auth"].startswith("[secret:")
    assert value not in json.dumps(events) and value not in err


def test_an_agent_run_calls_its_own_http_tool(
    routed: dict[str, str], tls_server: TestServer, secret: tuple[str, str], tmp_path: Path,  # noqa: F811
    llm_server: ScriptedLLMServer,
) -> None:
    name, value = secret
    home = Path(routed["RELAVIUM_HOME"])
    write_providers(home, llm_server.base_url)
    env = {**routed, "RELAVIUM_TEST_KEY": KEY}
    agent = tmp_path / "looker.agent.yaml"
    agent.write_text(
        "id: looker\nprovider: scripted-openai\nmodel: gpt-4o-mini\nsystem_prompt: You look things up.\n"
        "tools: [lookup]\nhttp_tools:\n" + http_tool_yaml(tls_server, name, "  ") + "\n"
    )
    llm_server.script(Reply.call("lookup", {"item": "42", "n": 1}), Reply.say("Found it."))
    code, events, err = run_cli("agent", "run", str(agent), "--prompt", "look up 42", "--workspace", str(tmp_path),
                                "--approve-all", "egress", "--json", env=env)
    assert code == 0, err
    results = [e for e in events if e["type"] == "agent:tool_result"]
    assert [(r["toolId"], r["success"]) for r in results] == [("lookup", True)]
    assert tls_server.requests[-1]["headers"]["X-Api-Key"] == value
    assert tls_server.requests[-1]["query"] == {"item": "42"}
    # What the model read next is the mapped data, not the raw reply.
    fed_back = json.dumps(llm_server.requests[-1].body["messages"][-1])
    assert "[secret:" in fed_back and "application/json" in fed_back and value not in fed_back
    assert events[-1]["type"] == "run:completed" and events[-1]["output"] == "Found it."


def test_an_http_tool_may_not_shadow_a_builtin(cli_env: dict[str, str], tls_server: TestServer,  # noqa: F811
                                               tmp_path: Path) -> None:
    wf = tmp_path / "shadow.relavium.yaml"
    wf.write_text(workflow(tls_server, "x").replace('"name": "lookup"', '"name": "read_file"')
                  .replace("tool_name: lookup", "tool_name: read_file"))
    code, _, err = run_cli("validate", str(wf), env=cli_env, cwd=tmp_path)
    assert code == 2
    assert f"{wf}:6:7: http tool" in err and "http tool 'read_file' has the id of an existing tool" in err
    agent = tmp_path / "a.agent.yaml"
    agent.write_text("id: a\nprovider: scripted-openai\nmodel: m\ntools: [read_file]\nhttp_tools:\n"
                     + http_tool_yaml(tls_server, "x", "  ").replace('"name": "lookup"', '"name": "read_file"') + "\n")
    code, _, err = run_cli("agent", "run", str(agent), "--prompt", "hi", env=cli_env)
    assert code == 2 and "http tool 'read_file' has the id of an existing tool" in err


def test_a_workflow_agent_node_calls_its_inline_agents_http_tool(
    routed: dict[str, str], tls_server: TestServer, secret: tuple[str, str], tmp_path: Path,  # noqa: F811
    llm_server: ScriptedLLMServer,
) -> None:
    name, value = secret
    home = Path(routed["RELAVIUM_HOME"])
    write_providers(home, llm_server.base_url)
    env = {**routed, "RELAVIUM_TEST_KEY": KEY}
    wf = tmp_path / "agent-http.relavium.yaml"
    wf.write_text(f"""schema_version: '1.0'
workflow:
  id: agent-http
  agents:
    - id: looker
      provider: scripted-openai
      model: gpt-4o-mini
      system_prompt: Look things up.
      tools: [lookup]
      http_tools:
{http_tool_yaml(tls_server, name, "        ")}
  nodes:
    - {{id: s, type: input}}
    - {{id: ask, type: agent, agent_ref: looker, prompt_template: 'Look up 9'}}
    - {{id: out, type: output}}
  edges: [{{from: s, to: ask}}, {{from: ask, to: out}}]
""")
    llm_server.script(Reply.call("lookup", {"item": "9"}), Reply.say("Nine found."))
    code, events, err = run_cli("run", str(wf), "--workspace", str(tmp_path), "--json", env=env, cwd=tmp_path)
    assert code == 0, err
    results = [e for e in events if e["type"] == "agent:tool_result"]
    assert [(r["toolId"], r["success"]) for r in results] == [("lookup", True)]
    assert tls_server.requests[-1]["headers"]["X-Api-Key"] == value
    assert json.loads(tls_server.requests[-1]["body"]) == {"query": {"item": "9", "n": None}}
    assert events[-1]["type"] == "run:completed" and value not in json.dumps(events)


def test_relavium_tool_call_calls_a_declared_http_tool(
    routed: dict[str, str], tls_server: TestServer, secret: tuple[str, str], tmp_path: Path,  # noqa: F811
) -> None:
    name, value = secret
    wf = tmp_path / "http.relavium.yaml"
    wf.write_text(workflow(tls_server, name))
    code, out, err = run_cli("tool", "call", "lookup", "--http-tools", str(wf), "--args", '{"item": "x/1", "n": 2}',
                             "--json", env=routed)
    assert code == 0, err
    assert out["tool"] == "lookup" and out["result"]["status"] == 200
    assert out["result"]["data"]["type"] == "application/json"
    assert tls_server.requests[-1]["headers"]["X-Api-Key"] == value and value not in json.dumps(out)
    assert json.loads(tls_server.requests[-1]["body"]) == {"query": {"item": "x/1", "n": 2}}
    # The model's arguments are validated by the declared schema; the file must be valid.
    code, out, _ = run_cli("tool", "call", "lookup", "--http-tools", str(wf), "--args", '{"n": 2}', "--json",
                           env=routed)
    assert code == 1 and out["error"]["code"] == "invalid_args"
    bad = tmp_path / "bad.relavium.yaml"
    bad.write_text(workflow(tls_server, name).replace("url:", "uri:", 0).replace('"url"', '"uri"'))
    code, _, err = run_cli("tool", "call", "lookup", "--http-tools", str(bad), "--args", "{}", env=routed)
    assert code == 2 and f"--http-tools: {bad}:" in err
