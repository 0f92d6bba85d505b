"""The LLM-visible JSON Schema of a tool.

Derived from the args model so the validator and what the model is told can
never drift; config-only fields are removed (a model can't set what it can't
see, and the merge ignores it anyway) and bounded fields say their UTF-8 byte
limit, because JSON Schema's ``maxLength`` counts characters, not bytes.
The same bounds also become ``maxLength`` (a string of N bytes has at most N
characters, so the byte limit is a necessary character bound) and, for an
argument vector, ``maxItems`` and the items' ``maxLength``: a provider that
enforces the schema then refuses an impossible argument before the call.
"""

from __future__ import annotations

import copy
from functools import lru_cache
from typing import Any

from relavium_desktop.engine.tools.tooldef import ToolDef


def _bound_note(tool: ToolDef, field: str) -> str | None:
    if field in tool.byte_bounds:
        b = tool.byte_bounds[field]
        note = f"At most {b.max_bytes:,} UTF-8 bytes."
        return note + " Must not be empty." if b.non_empty else note
    if field in tool.vector_bounds:
        v = tool.vector_bounds[field]
        return (
            f"At most {v.max_items} entries, each at most {v.max_item_bytes:,} UTF-8 bytes, "
            f"{v.max_total_bytes:,} UTF-8 bytes in total."
        )
    return None


def _string_branches(prop: dict[str, Any]) -> list[dict[str, Any]]:
    """The sub-schemas of ``prop`` that describe a string (itself, or its ``anyOf`` branches)."""
    if prop.get("type") == "string":
        return [prop]
    return [b for b in prop.get("anyOf", []) if isinstance(b, dict) and b.get("type") == "string"]


def _apply_bounds(tool: ToolDef, name: str, prop: dict[str, Any]) -> None:
    if name in tool.byte_bounds:
        bound = tool.byte_bounds[name]
        for branch in _string_branches(prop):
            branch["maxLength"] = bound.max_bytes
            if bound.non_empty:
                branch["minLength"] = 1
    if name in tool.vector_bounds and prop.get("type") == "array":
        v = tool.vector_bounds[name]
        prop["maxItems"] = v.max_items
        items = prop.get("items")
        if isinstance(items, dict) and items.get("type") == "string":
            items["maxLength"] = v.max_item_bytes


def _raw_schema(tool: ToolDef) -> dict[str, Any]:
    """A discovered tool's own schema as the model should see it (an object, no meta keys)."""
    assert tool.input_schema is not None
    schema = copy.deepcopy(dict(tool.input_schema))
    for key in ("$schema", "$id", "title"):
        schema.pop(key, None)
    schema["type"] = "object"
    schema.setdefault("properties", {})
    return schema


@lru_cache(maxsize=256)
def _schema_for(tool: ToolDef) -> dict[str, Any]:
    if tool.input_schema is not None:
        return _raw_schema(tool)
    schema = copy.deepcopy(tool.args_model.model_json_schema())
    schema.pop("title", None)
    props: dict[str, Any] = schema.get("properties", {})
    for name in tool.config_only:
        props.pop(name, None)
    if "required" in schema:
        schema["required"] = [r for r in schema["required"] if r not in tool.config_only]
        if not schema["required"]:
            del schema["required"]
    for name, prop in props.items():
        prop.pop("title", None)
        _apply_bounds(tool, name, prop)
        note = _bound_note(tool, name)
        if note:
            desc = prop.get("description", "")
            prop["description"] = f"{desc} {note}".strip()
    schema["additionalProperties"] = False
    return schema


def llm_visible_schema(tool: ToolDef) -> dict[str, Any]:
    """A fresh copy each call so callers may mutate it."""
    return copy.deepcopy(_schema_for(tool))
