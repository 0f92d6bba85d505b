"""Tool schemas as each provider receives them: unit rules, then the real request body on the wire."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from relavium_desktop.engine.llm import ChatRequest, Message, ToolSpec
from relavium_desktop.engine.llm.schema_dialect import (
    SchemaDialectError,
    check_portable,
    inline_refs,
    normalise_schema,
)
from relavium_desktop.providers.config import ProviderEntry, basic_validate_base_url, env_resolver
from relavium_desktop.providers.factory import make_provider
from tests.fixtures.llm_server import Reply, ScriptedLLMServer

# A server-style schema: $defs + $ref, a nullable via a type list, an optional via anyOf-null,
# and properties that happen to be named like keywords.
SERVER_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {"Point": {"type": "object", "title": "Point", "properties": {"x": {"type": "number"}},
                        "required": ["x"], "additionalProperties": False}},
    "properties": {
        "title": {"type": "string", "title": "Title", "description": "The page title."},
        "default": {"type": ["integer", "null"], "default": None},
        "where": {"$ref": "#/$defs/Point", "description": "Where to put it."},
        "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
        "mode": {"const": "fast"},
        "level": {"enum": [1, 2, 3]},
    },
    "required": ["title", "where"],
    "additionalProperties": False,
}


def test_local_refs_are_inlined_and_definitions_dropped() -> None:
    out = inline_refs(SERVER_SCHEMA)
    assert "$defs" not in out
    assert out["properties"]["where"]["properties"] == {"x": {"type": "number"}}
    # The $ref's sibling description wins over the target's.
    assert out["properties"]["where"]["description"] == "Where to put it."


def test_gemini_drops_keywords_but_never_a_property_named_like_one() -> None:
    out = normalise_schema(SERVER_SCHEMA, "gemini")
    props = out["properties"]
    assert set(props) == {"title", "default", "where", "note", "mode", "level"}
    assert props["title"] == {"type": "string", "description": "The page title."}
    # ``default`` the keyword is kept (Gemini's Schema accepts it); the property named "default" stays a property.
    assert props["default"] == {"type": "integer", "nullable": True, "default": None}
    assert props["note"] == {"type": "string", "nullable": True, "default": None}
    assert props["mode"] == {"enum": ["fast"]}
    assert "enum" not in props["level"] and "One of: 1, 2, 3" in props["level"]["description"]
    assert props["where"]["properties"] == {"x": {"type": "number"}} and props["where"]["required"] == ["x"]
    wire = json.dumps(out)
    for keyword in ("additionalProperties", "$schema", "$defs", "$ref", '"title": "Title"', "const"):
        assert keyword not in wire
    assert out["required"] == ["title", "where"]


def test_openai_and_anthropic_keep_json_schema_with_refs_inlined() -> None:
    for dialect in ("openai", "anthropic"):
        out = normalise_schema(SERVER_SCHEMA, dialect)  # type: ignore[arg-type]
        assert "$defs" not in out and "$schema" not in out
        assert out["properties"]["default"]["type"] == ["integer", "null"]
        assert out["additionalProperties"] is False
    assert normalise_schema({}, "openai") == {"type": "object", "properties": {}}


@pytest.mark.parametrize(("schema", "words"), [
    ({"type": "object", "$defs": {"N": {"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}}}},
      "properties": {"head": {"$ref": "#/$defs/N"}}}, "recursive"),
    ({"type": "object", "properties": {"a": {"$ref": "https://example.com/s.json"}}}, "only local"),
    ({"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}}, "points at nothing"),
    ({"type": "array"}, "object schema"),
])
def test_unportable_schemas_are_refused_with_a_reason(schema: dict[str, Any], words: str) -> None:
    with pytest.raises(SchemaDialectError, match=words):
        check_portable(schema)


def test_an_exploding_ref_dag_is_refused() -> None:
    defs: dict[str, Any] = {"L0": {"type": "string"}}
    for i in range(1, 30):
        defs[f"L{i}"] = {"type": "object", "properties": {"a": {"$ref": f"#/$defs/L{i-1}"},
                                                          "b": {"$ref": f"#/$defs/L{i-1}"}}}
    with pytest.raises(SchemaDialectError, match=r"expands|deeper"):
        check_portable({"type": "object", "$defs": defs, "properties": {"x": {"$ref": "#/$defs/L29"}}})


# -- on the wire ------------------------------------------------------------------------------

KIND_SCHEMA_PATH = {
    "anthropic": lambda body: body["tools"][0]["input_schema"],
    "openai": lambda body: body["tools"][0]["function"]["parameters"],
    "gemini": lambda body: body["tools"][0]["functionDeclarations"][0]["parameters"],
}


@pytest.mark.parametrize("kind", sorted(KIND_SCHEMA_PATH))
async def test_each_provider_sends_the_schema_in_its_dialect(llm_server: ScriptedLLMServer, kind: str) -> None:
    base = llm_server.base_url + ("/v1" if kind == "openai" else "")
    entry = ProviderEntry(kind=kind, base_url=base, api_key="env:K", allow_local=True)
    provider = make_provider(kind, entry, resolve_secret=env_resolver({"K": "sk-test-DIALECT0123456789abcdef"}),
                             validate_base_url=basic_validate_base_url)
    llm_server.script(Reply.say("ok"))
    spec = ToolSpec("mcp_files_put", "Put a thing.", SERVER_SCHEMA)
    request = ChatRequest(model="m-1", messages=[Message.user("hi")], system="s", tools=(spec,))
    _ = [ev async for ev in provider.stream(request)]
    sent = KIND_SCHEMA_PATH[kind](llm_server.requests[0].body)
    assert sent == normalise_schema(SERVER_SCHEMA, kind)  # type: ignore[arg-type]
    assert "$ref" not in json.dumps(sent)
    assert set(sent["properties"]) == set(SERVER_SCHEMA["properties"])
    if kind == "gemini":
        assert sent["properties"]["note"] == {"type": "string", "nullable": True, "default": None}


@pytest.mark.parametrize("dialect", ["anthropic", "openai", "gemini"])
def test_every_builtin_tools_schema_goes_to_every_dialect_without_dangling_refs(dialect: str, relavium_home: Path) -> None:
    from relavium_desktop.application.tools import tool_registry

    for row in tool_registry(home=relavium_home).describe():
        out = normalise_schema(row["parameters"], dialect)  # type: ignore[arg-type]
        assert out["type"] == "object" and "$ref" not in json.dumps(out), row["id"]
        assert set(out["properties"]) == set(row["parameters"].get("properties", {})), row["id"]
