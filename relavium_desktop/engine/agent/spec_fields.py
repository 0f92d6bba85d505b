"""Agent fields from upstream's agent spec that the agent file and a workflow's agent share.

- ``input_schema``: a JSON Schema the agent's input must match; the schema
  itself is checked when the file is read, the input when the agent runs
  (:func:`input_problem`), before any request is sent.
- ``mcp_servers`` in upstream's list form (``[{name: x, ...}, ...]``, ``id``
  accepted as upstream spells it) becomes this engine's ``{name: entry}``
  mapping, so both forms reach the same server checks.
- ``memory``: upstream's conversational-memory policy.  ``type: none`` is
  what this engine does (each run starts fresh); ``window`` and ``summary``
  belong to upstream's later chat-memory phase and are refused with a
  message that says so, never accepted and ignored.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from relavium_desktop.engine.llm.reasoning import ReasoningEffort


class AgentMemory(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    type: Literal["none", "window", "summary"] = "none"
    window_size: int | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _only_what_runs(self) -> AgentMemory:
        if self.type != "none":
            raise PydanticCustomError(
                "memory_later_phase",
                "memory type '{kind}' is not supported yet: window and summary memory are a later phase "
                "upstream; use type: none (every run starts without memory)",
                {"kind": self.type},
            )
        if self.window_size is not None:
            raise PydanticCustomError("memory_window", "memory.window_size goes with type: window", {})
        return self


def mcp_servers_mapping(value: Any) -> Any:
    """Upstream's list of servers as ``{name: entry}``; a mapping (or anything else) is returned as is."""
    if not isinstance(value, list):
        return value
    out: dict[str, Any] = {}
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            raise PydanticCustomError("mcp_server_item", "mcp_servers[{i}] must be a mapping with a name", {"i": i})
        entry = dict(item)
        name = entry.pop("name", None) or entry.pop("id", None)
        if "ref" in entry and name is None:
            raise PydanticCustomError(
                "mcp_server_ref",
                "mcp_servers[{i}]: a by-name ref to a registration is not supported yet (a later phase "
                "upstream); declare the server here with a name, or in mcp.yaml",
                {"i": i},
            )
        if not isinstance(name, str) or not name:
            raise PydanticCustomError("mcp_server_name", "mcp_servers[{i}] needs a name", {"i": i})
        if name in out:
            raise PydanticCustomError("mcp_server_twice", "mcp_servers names '{name}' twice", {"name": name})
        out[name] = entry
    return out


def check_input_schema(schema: dict[str, Any] | None) -> dict[str, Any] | None:
    """A usable JSON Schema, or a clear error naming what is wrong with it."""
    if schema is None:
        return None
    import jsonschema
    from jsonschema.exceptions import SchemaError

    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except SchemaError as exc:
        raise PydanticCustomError("input_schema", "input_schema is not a valid JSON Schema: {why}",
                                  {"why": exc.message}) from None
    return schema


def input_problem(schema: dict[str, Any], text: str) -> str | None:
    """Why the input ``text`` does not match ``schema`` (None when it does).

    The input is the agent's rendered prompt: read as JSON when it is JSON
    (a prompt template that renders an object), else as the string itself;
    either reading that matches is a match.  The message names the path and
    the schema's rule, never the input's value.
    """
    import jsonschema

    candidates: list[Any] = [text]
    with contextlib.suppress(ValueError):
        candidates.insert(0, json.loads(text))
    validator = jsonschema.validators.validator_for(schema)(schema)
    reported: list[Any] = []
    for value in candidates:
        errors = sorted(validator.iter_errors(value), key=lambda e: [str(p) for p in e.absolute_path])
        if not errors:
            return None
        reported = reported or errors
    first = reported[0]
    where = "input" + "".join(f"[{p!r}]" if isinstance(p, str) else f"[{p}]" for p in first.absolute_path)
    rule = json.dumps(first.validator_value, ensure_ascii=False, default=str)
    if len(rule) > 200:
        rule = rule[:197] + "..."
    return f"{where} does not match the agent's input_schema ({first.validator}: {rule})"


class UpstreamAgentFields(BaseModel):
    """The upstream agent fields, declared once for the agent file and a workflow's inline agent.

    Each model that inherits it keeps its own config (the agent file is
    strict, the workflow agent is not), so the fields validate as before.
    """

    # The agent's own MCP servers (upstream's ``mcp_servers``), ``{name: entry}`` in mcp.yaml's shape
    # (upstream's list form is turned into it); raw here (validated by the surface), and a stdio one
    # starts only with the user's consent; a workflow run adds them to its own.
    mcp_servers: dict[str, Any] | None = None
    reasoning_effort: ReasoningEffort | None = None  # engine/llm/reasoning.py
    input_schema: dict[str, Any] | None = None
    memory: AgentMemory | None = None

    @field_validator("mcp_servers", mode="before")
    @classmethod
    def _mcp_list_form(cls, value: Any) -> Any:
        return mcp_servers_mapping(value)

    @field_validator("input_schema")
    @classmethod
    def _input_schema_usable(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        return check_input_schema(value)
