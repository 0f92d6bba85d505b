"""An agent's ``tool_config``: per-tool parameters pinned by the author.

Upstream tool nodes pin a tool's config-only values (a base URL, a key
reference, a cwd) in ``tool_config.parameters``; an agent calls many tools,
so its ``tool_config`` maps each tool id to that same ``parameters`` block.
Chat's Settings -> Chat tools and ``relavium chat --tool-config`` use the
identical shape, so one parser and one set of rules serve every surface.

Two checks, at two moments, because they need different knowledge:

- ``key_problem`` (at load, from the agent alone): a configured tool must be
  one the agent may call — a config for a tool the agent lacks is a typo or a
  stale entry the author believes is active.
- ``parameter_problems`` (where the registry is known): each parameter must be
  a field of that tool's arguments (config-only or model-visible), and its
  value must have the field's type.  Messages name the field, never the value
  (a value may be a secret).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from relavium_desktop.engine.errors import ToolDeniedError
from relavium_desktop.engine.tools.env_policy import check_declared_env
from relavium_desktop.engine.tools.tooldef import NodeToolConfig, ToolDef


class ToolConfigEntry(BaseModel):
    """One tool's pinned values; ``parameters`` as in a tool node's ``tool_config``."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    parameters: dict[str, Any] = Field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ToolConfigProblem:
    """A refused entry: ``path`` below the ``tool_config`` block, and why."""

    path: tuple[str, ...]
    message: str


def key_problem(tools: Collection[str], tool_config: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(tool id, message)`` for the first configured tool the agent cannot call, else None."""
    for tool_id in tool_config:
        if tool_id not in tools:
            listed = ", ".join(tools) if tools else "none"
            return tool_id, (
                f"tool_config names {tool_id!r}, which is not one of this agent's tools "
                f"(tools: {listed}); add it to tools or remove its tool_config entry"
            )
    return None


def _fields_of(tool: ToolDef) -> set[str] | None:
    """The argument names a config may pin; None when the tool's schema does not close them."""
    if tool.input_schema is not None:
        props = tool.input_schema.get("properties")
        return set(props) if isinstance(props, Mapping) and props else None
    return set(tool.args_model.model_fields)


def parameter_problems(
    tool_config: Mapping[str, ToolConfigEntry],
    lookup: Callable[[str], ToolDef | None],
    *,
    allowed_env: Collection[str] | None = None,
) -> list[ToolConfigProblem]:
    """Every parameter that is not a field of its tool, or has the wrong type for it.

    An unknown tool id is left to the unknown-tool check that already runs on
    ``tools`` (the key check guarantees each key is one of them).  A pinned
    ``env`` is checked against the env allowlist with ``allowed_env`` (the
    policy's ``allowedEnv``) when the caller knows the policy; with None only
    the hijack families are refused here and the allowlist applies at the call.
    """
    problems: list[ToolConfigProblem] = []
    for tool_id, entry in tool_config.items():
        tool = lookup(tool_id)
        if tool is None:
            continue
        fields = _fields_of(tool)
        if fields is not None:
            for name in entry.parameters:
                if name not in fields:
                    problems.append(ToolConfigProblem(
                        (tool_id, "parameters", name),
                        f"{tool_id} has no parameter {name!r} (its parameters: {', '.join(sorted(fields))})",
                    ))
        if tool.input_schema is None:
            problems.extend(_type_problems(tool, entry.parameters))
        problems.extend(_env_problems(tool, entry.parameters, allowed_env))
    return problems


def _env_problems(
    tool: ToolDef, parameters: Mapping[str, Any], allowed_env: Collection[str] | None
) -> list[ToolConfigProblem]:
    """A pinned ``env`` naming a refused variable is an authored error now, not a denial at the first call."""
    env = parameters.get("env")
    if "env" not in tool.config_only or not isinstance(env, Mapping):
        return []
    try:
        check_declared_env(tool.id, env, allowed=allowed_env)
    except ToolDeniedError as exc:
        return [ToolConfigProblem((tool.id, "parameters", "env"), exc.message)]
    return []


def _type_problems(tool: ToolDef, parameters: Mapping[str, Any]) -> list[ToolConfigProblem]:
    """Wrong-typed values, found by validating the pinned values alone (missing fields ignored)."""
    try:
        tool.args_model.model_validate(dict(parameters))
    except ValidationError as exc:
        out = []
        for err in exc.errors(include_url=False, include_input=False, include_context=False):
            loc = tuple(str(p) for p in err.get("loc", ()))
            if not loc or loc[0] not in parameters or err.get("type") in ("missing", "extra_forbidden"):
                continue
            where = ".".join(loc)
            out.append(ToolConfigProblem((tool.id, "parameters", *loc),
                                         f"{tool.id} parameter {where}: {err.get('msg', 'invalid value')}"))
        return out
    return []


def node_tool_configs(tool_config: Mapping[str, ToolConfigEntry] | None) -> dict[str, NodeToolConfig]:
    """The dispatch context's ``tool_configs`` for an agent's (or chat's) block."""
    return {tool_id: NodeToolConfig(parameters=dict(entry.parameters))
            for tool_id, entry in (tool_config or {}).items()}


class ToolConfigError(ValueError):
    """A chat tool config (Settings or ``--tool-config``) the engine refuses; the message says where."""


def parse_tool_config(
    data: Any, lookup: Callable[[str], ToolDef | None] | None = None, *, allowed_env: Collection[str] | None = None
) -> dict[str, ToolConfigEntry]:
    """Validate a JSON ``{tool_id: {parameters: {...}}}`` block (chat's form of ``tool_config``).

    With ``lookup`` the ids must be known tools and every parameter must
    pass :func:`parameter_problems`.  Raises :class:`ToolConfigError` naming
    the first problem (tool and field, never a value).
    """
    if not isinstance(data, Mapping):
        raise ToolConfigError("tool config must be a JSON object of tool id -> {\"parameters\": {...}}")
    entries: dict[str, ToolConfigEntry] = {}
    for tool_id, raw in data.items():
        if not isinstance(tool_id, str) or not tool_id:
            raise ToolConfigError("tool config: tool ids must be non-empty strings")
        if lookup is not None and lookup(tool_id) is None:
            raise ToolConfigError(f"tool config: {tool_id!r} is not a known tool")
        try:
            entries[tool_id] = ToolConfigEntry.model_validate(raw)
        except ValidationError as exc:
            err = exc.errors(include_url=False, include_input=False)[0]
            where = ".".join(str(p) for p in err.get("loc", ())) or "(entry)"
            raise ToolConfigError(f"tool config {tool_id}: {where}: {err.get('msg', 'invalid')}") from None
    if lookup is not None:
        problems = parameter_problems(entries, lookup, allowed_env=allowed_env)
        if problems:
            raise ToolConfigError(f"tool config: {problems[0].message}")
    return entries
