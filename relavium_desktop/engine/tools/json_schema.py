"""Arguments checked against a JSON Schema someone else wrote (an MCP server's ``inputSchema``).

A pydantic model is how our own tools describe their arguments; a discovered
tool arrives with a JSON Schema instead, and the model's arguments must be
checked against exactly that before anything is sent.  The schema itself is
untrusted input too: one that is not a valid schema (or is absurdly large) is
refused when the tool is built, so a broken server makes its tool unavailable
rather than making validation silently pass.  Messages name the path and the
rule, never the value (it may be a pasted secret).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from relavium_desktop.engine.errors import InvalidArgsError

MAX_SCHEMA_BYTES = 256 * 1024
MAX_ERRORS = 5


class InputSchemaError(ValueError):
    """The schema a tool declared is not one we can check arguments against."""


def _canonical(schema: Mapping[str, Any]) -> str:
    try:
        text = json.dumps(schema, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InputSchemaError(f"the input schema is not JSON ({type(exc).__name__})") from None
    if len(text.encode("utf-8")) > MAX_SCHEMA_BYTES:
        raise InputSchemaError(f"the input schema is larger than {MAX_SCHEMA_BYTES // 1024} KiB")
    return text


@lru_cache(maxsize=512)
def _validator(canonical: str) -> Any:
    # jsonschema is imported on the first discovered tool, not by every CLI start.
    import jsonschema
    from jsonschema.exceptions import SchemaError

    schema = json.loads(canonical)
    if not isinstance(schema, dict):
        raise InputSchemaError("the input schema must be a JSON object")
    if schema.get("type", "object") != "object":
        raise InputSchemaError("the input schema must describe an object (type: object)")
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except SchemaError as exc:
        where = "/".join(str(p) for p in exc.path) or "(root)"
        raise InputSchemaError(f"the input schema is invalid at {where}: {exc.validator} rule") from None
    # Formats are annotations here (as in most MCP servers): no format checker.
    return cls(schema)


def validate_input_schema(schema: Mapping[str, Any]) -> None:
    """Raise InputSchemaError unless ``schema`` is a usable object schema."""
    _validator(_canonical(schema))


def check_json_schema(tool_id: str, value: Any, schema: Mapping[str, Any]) -> None:
    """InvalidArgsError (fed back to the model) naming each failing path and rule."""
    try:
        validator = _validator(_canonical(schema))
    except InputSchemaError as exc:
        raise InvalidArgsError(f"{tool_id}: {exc}") from None
    errors = sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
    if not errors:
        return
    parts = []
    for err in errors[:MAX_ERRORS]:
        loc = ".".join(str(p) for p in err.absolute_path) or "(arguments)"
        parts.append(f"{loc}: {_rule(err)}")
    more = len(errors) - len(parts)
    suffix = f" (+{more} more)" if more > 0 else ""
    raise InvalidArgsError(f"{tool_id}: invalid arguments: " + "; ".join(parts) + suffix)


def _rule(err: Any) -> str:
    """What the rule asked for, in words, without echoing the offending value."""
    kind = err.validator
    expected = err.validator_value
    if kind == "required":
        missing = [name for name in expected if isinstance(err.instance, dict) and name not in err.instance]
        return f"missing required field(s) {', '.join(repr(m) for m in missing)}" if missing else "missing field"
    if kind == "type":
        return f"must be of type {expected if isinstance(expected, str) else ' or '.join(expected)}"
    if kind == "additionalProperties":
        return "has a field the schema does not allow"
    if kind == "enum":
        return "must be one of the allowed values"
    if kind in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength",
                "minItems", "maxItems", "pattern", "const", "multipleOf"):
        return f"violates {kind} {expected!r}"[:200]
    return f"violates the {kind} rule"
