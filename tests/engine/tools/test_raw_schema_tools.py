"""Tools described by a JSON Schema (discovered MCP tools) and per-tool configs through the real registry."""

from __future__ import annotations

from typing import Any

import pytest

from relavium_desktop.engine.errors import ErrorCode
from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.tools.json_schema import InputSchemaError, validate_input_schema
from relavium_desktop.engine.tools.registry import ToolRegistry
from relavium_desktop.engine.tools.schema import llm_visible_schema
from relavium_desktop.engine.tools.tooldef import (
    NodeToolConfig,
    RawArgs,
    ToolCall,
    ToolDef,
    ToolDispatchContext,
)

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {"a": {"type": "integer", "minimum": 0}, "b": {"type": "integer"}},
    "required": ["a", "b"],
    "additionalProperties": False,
}


def _tool(seen: list[Any]) -> ToolDef:
    async def dispatch(args: Any, host: ToolHost, ctx: ToolDispatchContext) -> Any:
        seen.append(args)
        return {"sum": args["a"] + args["b"]}

    return ToolDef(id="mcp_calc_add", description="Add.", args_model=RawArgs, dispatch=dispatch,
                   source="mcp", input_schema=SCHEMA)


def _ctx(**kw: Any) -> ToolDispatchContext:
    return ToolDispatchContext(run_id="r1", node_id="n", granted_tool_ids=frozenset({"mcp_calc_add"}), **kw)


async def test_valid_arguments_reach_the_tool_as_a_plain_dict() -> None:
    seen: list[Any] = []
    out = await ToolRegistry([_tool(seen)], ToolHost()).dispatch(ToolCall("mcp_calc_add", {"a": 2, "b": 3}), _ctx())
    assert out.ok and out.result == {"sum": 5} and seen == [{"a": 2, "b": 3}]


@pytest.mark.parametrize(("args", "words"), [
    ({"a": 2}, "missing required field(s) 'b'"),
    ({"a": -1, "b": 1}, "a: violates minimum 0"),
    ({"a": "2", "b": 1}, "a: must be of type integer"),
    ({"a": 1, "b": 1, "sk-secretvalue": 1}, "has a field the schema does not allow"),
])
async def test_schema_violations_go_back_to_the_model_without_the_value(args: dict[str, Any], words: str) -> None:
    seen: list[Any] = []
    out = await ToolRegistry([_tool(seen)], ToolHost()).dispatch(ToolCall("mcp_calc_add", args), _ctx())
    assert not out.ok and out.error is not None
    assert out.error.code == ErrorCode.INVALID_ARGS and words in out.error.message
    assert "sk-secretvalue" not in out.error.message and seen == []


def test_the_model_sees_the_servers_schema_without_meta_keys() -> None:
    schema = llm_visible_schema(_tool([]))
    assert "$schema" not in schema and schema["required"] == ["a", "b"] and schema["type"] == "object"


@pytest.mark.parametrize("bad", [{"type": "array"}, {"type": "object", "properties": {"a": {"type": 7}}}])
def test_an_unusable_schema_is_refused_when_the_tool_is_built(bad: dict[str, Any]) -> None:
    with pytest.raises(InputSchemaError):
        validate_input_schema(bad)


async def test_a_per_tool_config_wins_over_the_model_for_that_tool_only() -> None:
    seen: list[Any] = []
    ctx = _ctx(tool_configs={"mcp_calc_add": NodeToolConfig(parameters={"b": 40}), "other": NodeToolConfig(parameters={"a": 9})})
    out = await ToolRegistry([_tool(seen)], ToolHost()).dispatch(ToolCall("mcp_calc_add", {"a": 2, "b": 3}), ctx)
    assert out.ok and out.result == {"sum": 42}
