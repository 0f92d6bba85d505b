"""An agent's ``tool_config`` (and chat's): parsed with positions, validated, applied at dispatch.

The dispatch tests run real processes through the real host and the scripted
LLM server, so "the config reached the tool" is what the program saw (its
working directory, its environment), not a recorded argument.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from relavium_desktop.application.stores import session_store
from relavium_desktop.application.tools import surface_host, tool_registry
from relavium_desktop.engine.agent.chat import ChatSession, merged_tool_configs
from relavium_desktop.engine.agent.mode_ids import ChatMode
from relavium_desktop.engine.agent.modes import SessionApprovals
from relavium_desktop.engine.agent.spec import AgentSpec
from relavium_desktop.engine.agent.tool_config import (
    ToolConfigError,
    node_tool_configs,
    parameter_problems,
    parse_tool_config,
)
from relavium_desktop.engine.agent.yaml_source import AgentSpecError, parse_agent_yaml
from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS
from relavium_desktop.engine.tools.registry import ToolRegistry
from relavium_desktop.engine.tools.schema import llm_visible_schema
from relavium_desktop.engine.tools.tooldef import NodeToolConfig, ToolPolicy
from relavium_desktop.engine.workflow.models import AgentDef
from relavium_desktop.host.assembly import HostSettings, build_host
from tests.engine.agent.conftest import Rig
from tests.fixtures.llm_server import Reply

# Only the tools' schemas are read; the host still pins its (empty) runs/ folder, so it gets a
# scratch data folder of its own rather than the user's.
SCHEMA_HOME = Path(tempfile.gettempdir()) / "relavium-test-tool-config-home"
REGISTRY = ToolRegistry(BUILTIN_TOOLS, build_host(HostSettings(workspace=Path("/"), home=SCHEMA_HOME, surface="workflow")))

AGENT = """\
id: searcher
provider: openai
model: gpt-4o-mini
tools: [web_search, run_command]
tool_config:
  web_search:
    parameters:
      provider: searxng
      baseUrl: http://127.0.0.1:8888
      allowLocal: true
  run_command:
    parameters: {timeoutMs: 5000}
"""


def test_an_agent_file_carries_tool_config_per_tool() -> None:
    spec = parse_agent_yaml(AGENT, "s.agent.yaml")
    configs = node_tool_configs(spec.tool_config)
    assert configs["web_search"].parameters == {
        "provider": "searxng", "baseUrl": "http://127.0.0.1:8888", "allowLocal": True}
    assert configs["run_command"].parameters == {"timeoutMs": 5000}
    assert parameter_problems(spec.tool_config, REGISTRY.get) == []


def test_a_config_for_a_tool_the_agent_lacks_is_an_error_at_its_key() -> None:
    text = AGENT.replace("tools: [web_search, run_command]", "tools: [web_search]")
    with pytest.raises(AgentSpecError) as caught:
        parse_agent_yaml(text, "s.agent.yaml")
    (problem,) = caught.value.problems
    assert (problem.line, problem.column) == (11, 3)  # the `run_command:` key under tool_config
    assert "'run_command'" in problem.message and "not one of this agent's tools" in problem.message


def test_an_unknown_key_inside_an_entry_is_an_error_with_its_position() -> None:
    text = AGENT.replace("    parameters: {timeoutMs: 5000}", "    params: {timeoutMs: 5000}")
    with pytest.raises(AgentSpecError) as caught:
        parse_agent_yaml(text, "s.agent.yaml")
    assert str(caught.value).startswith("s.agent.yaml:12:5: unknown key 'tool_config.run_command.params'")


def test_a_workflow_agent_refuses_the_same_mistake() -> None:
    with pytest.raises(ValueError, match="'http_request', which is not one of this agent's tools"):
        AgentDef.model_validate({"id": "a", "tools": ["web_search"],
                                 "tool_config": {"http_request": {"parameters": {}}}})


def test_parameters_must_be_fields_of_the_tool_and_errors_never_show_values() -> None:
    spec = AgentSpec.model_validate({
        "id": "a", "provider": "p", "model": "m", "tools": ["web_search", "http_request", "run_command"],
        "tool_config": {
            "web_search": {"parameters": {"provder": "searxng"}},
            "http_request": {"parameters": {"credentialRef": "sk-live-THISISAKEY"}},
            "run_command": {"parameters": {"timeoutMs": "soon", "cwd": "/tmp"}},
        },
    })
    problems = parameter_problems(spec.tool_config, REGISTRY.get)
    where = sorted(p.path for p in problems)
    assert where == [("http_request", "parameters", "credentialRef"),
                     ("run_command", "parameters", "timeoutMs"),
                     ("web_search", "parameters", "provder")]
    text = " ".join(p.message for p in problems)
    assert "provder" in text and "baseUrl" in text  # names the field and what exists
    assert "sk-live-THISISAKEY" not in text and "soon" not in text


def test_chat_tool_config_json_is_checked_against_the_registry() -> None:
    ok = parse_tool_config({"web_search": {"parameters": {"provider": "searxng", "baseUrl": "https://s.example"}}},
                           REGISTRY.get)
    assert ok["web_search"].parameters["provider"] == "searxng"
    with pytest.raises(ToolConfigError, match="'web_serch' is not a known tool"):
        parse_tool_config({"web_serch": {"parameters": {}}}, REGISTRY.get)
    with pytest.raises(ToolConfigError, match="http_request parameter credentialRefs"):
        parse_tool_config({"http_request": {"parameters": {"credentialRefs": {"api.example.com": "sk-x"}}}},
                          REGISTRY.get)
    with pytest.raises(ToolConfigError, match="must be a JSON object"):
        parse_tool_config(["web_search"], REGISTRY.get)


def test_config_only_fields_stay_out_of_the_model_schema() -> None:
    for tool_id, hidden in (("run_command", {"cwd", "env", "timeoutMs"}),
                            ("web_search", {"provider", "baseUrl", "credentialRef", "allowLocal"}),
                            ("http_request", {"credentialRef", "credentialRefs"})):
        tool = REGISTRY.get(tool_id)
        assert tool is not None
        assert not hidden & set(llm_visible_schema(tool)["properties"])


def test_the_agent_wins_per_parameter_over_chat_settings() -> None:
    merged = merged_tool_configs(
        {"web_search": NodeToolConfig(parameters={"provider": "searxng", "baseUrl": "https://a"}),
         "run_command": NodeToolConfig(parameters={"cwd": "/x"})},
        {"web_search": NodeToolConfig(parameters={"baseUrl": "https://b"})},
    )
    assert merged["web_search"].parameters == {"provider": "searxng", "baseUrl": "https://b"}
    assert merged["run_command"].parameters == {"cwd": "/x"}


@pytest.mark.spawns  # runs a real command: kept out of the fast lane
async def test_an_agent_loop_applies_run_command_config_over_the_model(rig: Rig, tmp_path: Path) -> None:
    sub = rig.workspace / "sub"
    sub.mkdir()
    # The model asks for another cwd; the pinned one wins and is never offered to it.
    rig.server.script(Reply.call("run_command", {"command": "sh", "args": ["-c", "pwd; echo $GREETING"],
                                                 "cwd": "/"}),
                      Reply.call("run_command", {"command": "sleep", "args": ["5"]}))
    loop = rig.loop(tools=["run_command"], policy=ToolPolicy(allowed_command_globs=("sh -c *", "sleep *"),
                                                              allowed_env=("GREETING",)))
    loop.ctx = _with_configs(loop.ctx, {"run_command": NodeToolConfig(
        parameters={"cwd": str(sub), "env": {"GREETING": "hello-from-config"}, "timeoutMs": 300})})
    result = await loop.run([_user("go")])
    # The pinned timeout ends the second call (a failed tool ends a headless agent's run).
    assert result.failure is not None and "timed out after 300 ms" in result.failure.message
    tools_sent = rig.server.requests[0].body["tools"][0]["function"]["parameters"]["properties"]
    assert "cwd" not in tools_sent and "env" not in tools_sent
    results = [e for e in rig.events if e["type"] == "agent:tool_result"]
    assert results[0]["success"] is True
    assert str(sub) in results[0]["outputSummary"] and "hello-from-config" in results[0]["outputSummary"]
    assert results[1]["success"] is False and "timed out after 300 ms" in results[1]["error"]["message"]


@pytest.mark.spawns  # runs a real command: kept out of the fast lane
async def test_a_chat_session_sends_settings_config_with_each_call(rig: Rig, relavium_home: Path) -> None:
    store = session_store(relavium_home)
    spec = AgentSpec.model_validate({"id": "chat", "provider": "openai", "model": "gpt-4o-mini",
                                     "system_prompt": "You help.", "tools": ["run_command"]})
    info = store.create(title="t", agent_id="chat", mode=str(ChatMode.AUTO))
    host = surface_host(rig.workspace, surface="chat", home=rig.home)
    sub = rig.workspace / "chat-cwd"
    sub.mkdir()
    session = ChatSession(session_id=info.id, spec=spec, providers=rig.providers(), registry=tool_registry(host, home=rig.home),
                          store=store, approvals=SessionApprovals(ChatMode.AUTO, None), emit=rig.record,
                          policy=ToolPolicy(allowed_commands=("pwd",)),
                          tool_configs={"run_command": NodeToolConfig(parameters={"cwd": str(sub)})})
    rig.server.script(Reply.call("run_command", {"command": "pwd"}), Reply.say("ok"))
    result = await session.send("where am I?")
    assert result.status == "completed", result.failure
    sent_back = json.dumps(rig.server.requests[1].body["messages"])
    assert str(sub) in sent_back


def _with_configs(ctx, configs):  # type: ignore[no-untyped-def]
    import dataclasses

    return dataclasses.replace(ctx, tool_configs=configs)


def _user(text: str):  # type: ignore[no-untyped-def]
    from relavium_desktop.engine.llm.messages import Message

    return Message.user(text)
