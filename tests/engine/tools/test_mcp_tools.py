"""Discovered MCP tools as registry tools: ids, schema refusal, clashes, the pipeline and the call's events.

The end-to-end path against the real SDK server (stdio and HTTP) is in
tests/cli/test_mcp_tools_cli.py; here the host is a stand-in McpCapability
that records what the engine hands it, because the engine side (which
arguments, which sinks, which policy) is what is under test.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from relavium_desktop.engine.errors import DenyReason, ErrorCode
from relavium_desktop.engine.events import EventBus
from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.tools.json_schema import InputSchemaError
from relavium_desktop.engine.tools.mcp_tools import (
    MAX_ID_CHARS,
    MAX_LOGS_PER_CALL,
    build_mcp_tools,
    make_mcp_tool,
    mcp_tool_id,
)
from relavium_desktop.engine.tools.registry import ToolRegistry
from relavium_desktop.engine.tools.tooldef import (
    ActionClass,
    ApprovalDecision,
    ApprovalRegime,
    ApprovalRequest,
    ToolCall,
    ToolDispatchContext,
)

ADD = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}


@dataclass
class Info:
    server: str
    name: str
    description: str = ""
    input_schema: Any = None
    title: str | None = None

    def __post_init__(self) -> None:
        if self.input_schema is None:
            self.input_schema = ADD


class RecordingMcp:
    def __init__(self, logs: int = 0) -> None:
        self.calls: list[tuple[str, str, dict[str, Any]]] = []
        self.logs = logs

    async def call(self, server: str, tool: str, arguments: Any, *, on_progress: Any = None,
                   on_log: Any = None) -> Any:
        self.calls.append((server, tool, dict(arguments)))
        if on_progress is not None:
            on_progress(0.5, 1.0, "password=hunter2-very-secret")
        for i in range(self.logs):
            if on_log is not None:
                on_log("debug", f"line {i}")
        return {"content": [{"type": "text", "text": str(arguments.get("a", 0) + arguments.get("b", 0))}]}


def test_ids_are_namespaced_sanitised_and_bounded() -> None:
    assert mcp_tool_id("calc", "add") == "mcp_calc_add"
    assert mcp_tool_id("my.server", "do it/now") == "mcp_my_server_do_it_now"
    long_a, long_b = mcp_tool_id("s", "x" * 100 + "a"), mcp_tool_id("s", "x" * 100 + "b")
    assert len(long_a) == MAX_ID_CHARS and len(long_b) == MAX_ID_CHARS and long_a != long_b
    assert long_a.startswith("mcp_s_xxx")


def test_the_tool_carries_the_servers_schema_the_mcp_egress_class_and_says_where_it_is_from() -> None:
    tool = make_mcp_tool("calc", "add", "Add two integers.", ADD)
    registry = ToolRegistry([tool], ToolHost())
    (row,) = registry.describe()
    assert row["id"] == "mcp_calc_add" and row["source"] == "mcp"
    assert row["parameters"]["properties"] == ADD["properties"] and row["parameters"]["required"] == ["a", "b"]
    assert "Add two integers." in row["description"] and "'calc'" in row["description"]
    assert row["policy"]["egress"] == "mcp" and row["policy"]["actionClass"] == "egress"


def test_a_huge_description_is_clipped_but_still_names_the_server() -> None:
    tool = make_mcp_tool("calc", "add", "word " * 2000, ADD)
    assert len(tool.description) <= 1024 and tool.description.endswith("(MCP tool 'add' of server 'calc')")


@pytest.mark.parametrize("schema", [
    {"type": "array"},
    {"type": "object", "properties": {"a": {"type": 12}}},
    {"type": "object", "$defs": {"N": {"type": "object", "properties": {"n": {"$ref": "#/$defs/N"}}}},
     "properties": {"n": {"$ref": "#/$defs/N"}}},
])
def test_an_unusable_schema_refuses_the_tool(schema: dict[str, Any]) -> None:
    with pytest.raises(InputSchemaError):
        make_mcp_tool("calc", "bad", "", schema)


def test_clashing_ids_keep_the_first_and_report_the_rest() -> None:
    built = build_mcp_tools(
        [Info("a.b", "x"), Info("a_b", "x"), Info("calc", "ok"), Info("calc", "bad", input_schema={"type": "array"})],
        reserved=["mcp_calc_ok"],
    )
    assert [t.id for t in built.tools] == ["mcp_a_b_x"]
    reasons = {(r.server, r.name): r.reason for r in built.refused}
    assert "already used by tool 'x' of server 'a.b'" in reasons[("a_b", "x")]
    assert "already used by a built-in tool" in reasons[("calc", "ok")]
    assert "unusable input schema" in reasons[("calc", "bad")]


@pytest.mark.parametrize("name", ["", "   "])
def test_an_empty_tool_name_is_refused_never_a_bare_prefix_id(name: str) -> None:
    built = build_mcp_tools([Info("calc", name), Info("calc", "ok")])
    assert [t.id for t in built.tools] == ["mcp_calc_ok"]
    assert [(r.name, r.reason) for r in built.refused] == [(name, "its name is empty")]
    with pytest.raises(InputSchemaError, match="name is empty"):
        make_mcp_tool("calc", name, "", ADD)


def _ctx(tool_id: str, **kw: Any) -> ToolDispatchContext:
    return ToolDispatchContext(run_id="r", node_id="agent", granted_tool_ids=frozenset({tool_id}), **kw)


async def test_a_call_goes_to_its_server_with_the_checked_arguments_and_reports_progress_masked() -> None:
    mcp = RecordingMcp(logs=MAX_LOGS_PER_CALL + 5)
    tool = make_mcp_tool("calc", "add", "Add.", ADD)
    bus = EventBus(clock=lambda: 0.0, run_id="r")
    out = await ToolRegistry([tool], ToolHost(mcp=mcp)).dispatch(ToolCall(tool.id, {"a": 2, "b": 3}),
                                                                 _ctx(tool.id, emit=bus.emit))
    assert out.ok and out.model_facing is not None and "5" in out.model_facing
    assert mcp.calls == [("calc", "add", {"a": 2, "b": 3})]
    progress = [e for e in bus.history if e["type"] == "agent:tool_progress"]
    assert progress[0]["progress"] == 0.5 and progress[0]["total"] == 1.0
    assert "hunter2" not in progress[0]["message"]
    logs = [e for e in bus.history if e["type"] == "agent:tool_log"]
    assert len(logs) == MAX_LOGS_PER_CALL + 1 and "dropped" in logs[-1]["message"]
    kinds = [e["type"] for e in bus.history]
    assert kinds[0] == "agent:tool_call" and kinds[-1] == "agent:tool_result"


async def test_invalid_arguments_never_reach_the_server() -> None:
    mcp = RecordingMcp()
    tool = make_mcp_tool("calc", "add", "Add.", ADD)
    out = await ToolRegistry([tool], ToolHost(mcp=mcp)).dispatch(ToolCall(tool.id, {"a": "two"}), _ctx(tool.id))
    assert out.error is not None and out.error.code == ErrorCode.INVALID_ARGS
    assert "missing required field(s) 'b'" in out.error.message and mcp.calls == []


async def test_approval_applies_as_for_mcp_call_and_no_host_is_unavailable() -> None:
    asked: list[ApprovalRequest] = []

    async def refuse(request: ApprovalRequest) -> ApprovalDecision:
        asked.append(request)
        return ApprovalDecision(approved=False)

    mcp = RecordingMcp()
    tool = make_mcp_tool("calc", "add", "Add.", ADD)
    out = await ToolRegistry([tool], ToolHost(mcp=mcp)).dispatch(
        ToolCall(tool.id, {"a": 1, "b": 1}), _ctx(tool.id, approval=ApprovalRegime(hook=refuse)))
    assert out.error is not None and out.error.reason == DenyReason.USER_REJECTED and mcp.calls == []
    assert asked[0].action_class is ActionClass.EGRESS and asked[0].tool_id == "mcp_calc_add"
    bare = await ToolRegistry([tool], ToolHost()).dispatch(ToolCall(tool.id, {"a": 1, "b": 1}), _ctx(tool.id))
    assert bare.error is not None and bare.error.code == ErrorCode.TOOL_UNAVAILABLE
