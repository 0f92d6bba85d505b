"""``output_schema``: the JSON-Schema subset an agent/transform output is checked against.

Supported: ``type`` (one or a list), ``required``, ``properties``, ``items``,
``enum``, ``additionalProperties: false``.  A mismatch is a fatal
``validation`` node error that names the path, not the value.
"""

from __future__ import annotations

from typing import Any

from relavium_desktop.engine.workflow.errors import NodeError

_TYPES: dict[str, Any] = {
    "object": dict,
    "array": list,
    "string": str,
    "boolean": bool,
    "null": type(None),
}


def _is(value: Any, kind: str) -> bool:
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer()
        )
    py = _TYPES.get(kind)
    return py is not None and isinstance(value, py) and not (kind != "boolean" and isinstance(value, bool))


def _check(value: Any, schema: dict[str, Any], path: str) -> str | None:
    kind = schema.get("type")
    if kind is not None:
        kinds = kind if isinstance(kind, list) else [kind]
        if not any(_is(value, k) for k in kinds):
            return f"{path} should be {' or '.join(kinds)}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{path} is not one of the allowed values"
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                return f"{path}.{key} is required"
        props = schema.get("properties", {})
        for key, sub in props.items():
            if key in value and isinstance(sub, dict):
                problem = _check(value[key], sub, f"{path}.{key}")
                if problem:
                    return problem
        if schema.get("additionalProperties") is False:
            extra = sorted(set(value) - set(props))
            if extra:
                return f"{path} has unexpected key {extra[0]!r}"
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            problem = _check(item, schema["items"], f"{path}[{i}]")
            if problem:
                return problem
    return None


def check_output_schema(node_id: str, value: Any, schema: dict[str, Any]) -> None:
    problem = _check(value, schema, "output")
    if problem:
        raise NodeError("validation", f"node {node_id!r} output does not match output_schema: {problem}",
                        reason="output_schema")
