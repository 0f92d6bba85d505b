"""A tool's JSON Schema rewritten into the subset each provider accepts.

Our own tools' schemas come from pydantic (``$defs`` + ``$ref`` for nested
models, ``anyOf`` with ``null`` for optionals); a discovered MCP tool's come
from whoever wrote the server.  Providers differ in what they take:

- every dialect gets local ``$ref`` inlined (``$defs``/``definitions``
  dropped afterwards) and an object root with ``properties``, because a
  provider that does not resolve references would otherwise receive
  dangling pointers;
- ``gemini`` (OpenAPI-3.0 flavoured function declarations) takes a closed
  set of keywords: anything else is dropped, ``["x", "null"]`` types and
  ``anyOf``/``oneOf`` with a ``null`` branch become ``nullable``, ``const``
  becomes a one-value ``enum``.  ``default`` is kept: Gemini's Schema object
  accepts it (a ``google.protobuf.Value``, documented as accepted so schemas
  carrying it don't fail), and dropping it would hide a default the
  description does not always repeat;
- ``openai`` and ``anthropic`` take JSON Schema as written once references
  are inlined.

The walk knows which keywords hold sub-schemas, so a *property* that happens
to be called ``title``, ``default`` or ``$defs`` is kept: only keywords are
ever dropped.  A recursive reference, a non-local one or a schema whose
inlining would explode is refused with a reason (:class:`SchemaDialectError`)
-- a discovered tool is checked with :func:`check_portable` when it is built,
so a schema no provider could be sent makes its tool unavailable instead of
failing every later request.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any, Literal

Dialect = Literal["anthropic", "openai", "gemini"]
DIALECTS: tuple[Dialect, ...] = ("anthropic", "openai", "gemini")

MAX_REF_DEPTH = 16  # nested $ref resolutions on one path
MAX_NODES = 20_000  # schema objects after inlining (a DAG of refs can grow exponentially)

# Keywords whose value is a map of sub-schemas, a list of sub-schemas, or one sub-schema.
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
_SCHEMA_LISTS = frozenset({"anyOf", "oneOf", "allOf", "prefixItems"})
_SCHEMA_ONE = frozenset({"items", "additionalProperties", "not", "contains", "if", "then", "else",
                         "propertyNames", "unevaluatedProperties", "unevaluatedItems", "additionalItems"})
_DEFS = ("$defs", "definitions")

# What a Gemini function declaration's Schema object accepts.
_GEMINI_KEYWORDS = frozenset({
    "type", "format", "description", "nullable", "enum", "items", "properties", "required",
    "minItems", "maxItems", "minimum", "maximum", "minLength", "maxLength", "pattern", "anyOf",
    "minProperties", "maxProperties", "propertyOrdering", "default",
})


class SchemaDialectError(ValueError):
    """The schema cannot be expressed to a provider; the message says why (never a value from it)."""


Schema = dict[str, Any]


def _map_children(key: str, value: Any, fn: Callable[[Any], Any]) -> Any:
    """``value`` of keyword ``key`` with ``fn`` applied to each sub-schema it holds (data copied as is)."""
    if key in _SCHEMA_MAPS and isinstance(value, Mapping):
        return {name: fn(sub) for name, sub in value.items()}
    if key in _SCHEMA_LISTS and isinstance(value, list):
        return [fn(sub) for sub in value]
    if key in _SCHEMA_ONE:
        if isinstance(value, Mapping):
            return fn(value)
        if isinstance(value, list):  # draft-4 tuple ``items``
            return [fn(sub) for sub in value]
        return value  # a boolean schema
    return copy.deepcopy(value)


def _pointer(root: Mapping[str, Any], ref: str) -> Any:
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        raise SchemaDialectError("only local references (#/...) are supported in a tool schema")
    node: Any = root
    for raw in ref[2:].split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise SchemaDialectError(f"a $ref points at nothing ({ref[:80]!r})")
    return node


class _Inliner:
    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.nodes = 0

    def walk(self, node: Any, stack: tuple[str, ...] = ()) -> Any:
        if not isinstance(node, Mapping):
            return node
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise SchemaDialectError(f"the schema expands to more than {MAX_NODES} parts once $refs are inlined")
        ref = node.get("$ref")
        if isinstance(ref, str):
            if ref in stack:
                raise SchemaDialectError(f"the schema is recursive ({ref[:80]!r} refers to itself)")
            if len(stack) >= MAX_REF_DEPTH:
                raise SchemaDialectError(f"$refs nest deeper than {MAX_REF_DEPTH} levels")
            target = self.walk(_pointer(self.root, ref), (*stack, ref))
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            if not siblings:
                return target
            merged = dict(target) if isinstance(target, Mapping) else {}
            merged.update(self.walk(siblings, stack))  # a sibling description wins over the target's
            return merged
        return {k: _map_children(k, v, lambda sub: self.walk(sub, stack)) for k, v in node.items()
                if k not in _DEFS}


def inline_refs(schema: Mapping[str, Any]) -> Schema:
    """``schema`` with every local ``$ref`` replaced by its target and the definitions dropped."""
    out = _Inliner(schema).walk(schema)
    if not isinstance(out, dict):
        raise SchemaDialectError("a tool schema must be a JSON object")
    return out


def _object_root(schema: Schema) -> Schema:
    for key in ("$schema", "$id"):
        schema.pop(key, None)
    if schema.get("type", "object") != "object":
        raise SchemaDialectError("a tool's parameters must be an object schema")
    schema["type"] = "object"
    if not isinstance(schema.get("properties"), Mapping):
        schema["properties"] = {}
    return schema


# -- gemini ---------------------------------------------------------------------------


def _is_null(sub: Any) -> bool:
    return isinstance(sub, Mapping) and sub.get("type") == "null" and len(sub) == 1


def _gemini(node: Any) -> Any:
    if not isinstance(node, Mapping):
        return {}  # a boolean schema: "anything" is the closest Gemini can say
    node = dict(node)
    nullable = bool(node.get("nullable"))
    # ["string", "null"] -> string + nullable; several real types -> anyOf of each.
    kind = node.get("type")
    if isinstance(kind, list):
        real = [t for t in kind if t != "null"]
        nullable = nullable or len(real) < len(kind)
        if len(real) == 1:
            node["type"] = real[0]
        else:
            node.pop("type")
            if real:
                node["anyOf"] = [{"type": t} for t in real] + list(node.get("anyOf", []))
    # oneOf reads as anyOf here; a null branch becomes nullable; one branch left is merged in.
    branches = list(node.pop("oneOf", [])) + list(node.get("anyOf", []))
    if branches:
        kept = [b for b in branches if not _is_null(b)]
        nullable = nullable or len(kept) < len(branches)
        node.pop("anyOf", None)
        if len(kept) == 1 and isinstance(kept[0], Mapping):
            base = dict(kept[0])
            base.update({k: v for k, v in node.items() if k != "type" or "type" not in base})
            if nullable:
                base["nullable"] = True
            return _gemini(base)  # the branch may carry its own type list or branches
        elif kept:
            node["anyOf"] = kept
    parts = node.pop("allOf", None)
    if isinstance(parts, list):
        for part in parts:
            if isinstance(part, Mapping):
                for k, v in part.items():
                    if k == "properties" and isinstance(v, Mapping):
                        node.setdefault("properties", {}).update(v)
                    elif k == "required" and isinstance(v, list):
                        node["required"] = list(dict.fromkeys([*node.get("required", []), *v]))
                    else:
                        node.setdefault(k, v)
    if "const" in node and "enum" not in node:
        node["enum"] = [node["const"]]
    enum = node.get("enum")
    if isinstance(enum, list) and not all(isinstance(v, str) for v in enum):
        # Gemini enums are strings only: keep the choice in words instead of a refused declaration.
        node.pop("enum")
        choices = ", ".join(str(v) for v in enum)[:200]
        node["description"] = f"{node.get('description', '')} One of: {choices}.".strip()
    if node.get("type") == "null":
        node.pop("type")
        nullable = True
    out: Schema = {}
    for key, value in node.items():
        if key not in _GEMINI_KEYWORDS:
            continue
        out[key] = _map_children(key, value, _gemini)
    if nullable:
        out["nullable"] = True
    props = out.get("properties")
    if isinstance(out.get("required"), list) and isinstance(props, Mapping):
        out["required"] = [r for r in out["required"] if r in props]
    return out


# -- entry points ---------------------------------------------------------------------


def normalise_schema(schema: Mapping[str, Any], dialect: Dialect) -> Schema:
    """A fresh copy of ``schema`` in ``dialect``'s subset; SchemaDialectError when it cannot be."""
    out = _object_root(inline_refs(schema))
    if dialect == "gemini":
        out = _gemini(out)
        out["type"] = "object"
        out.setdefault("properties", {})
        out.pop("nullable", None)
    return out


def check_portable(schema: Mapping[str, Any]) -> None:
    """Raise SchemaDialectError unless ``schema`` can be sent to every provider dialect."""
    for dialect in DIALECTS:
        normalise_schema(schema, dialect)
