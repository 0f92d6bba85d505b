"""Parse agent YAML text into an :class:`AgentSpec` with located problems.

Pure (the caller reads the file): ruamel.yaml's round-trip loader keeps each
key's line and column, so every schema miss is reported as
``file:line:column: problem`` — one line per problem, never a traceback.

An agent file comes in two shapes, and both are read everywhere an agent
file is read (``relavium agent run``, ``relavium chat --agent``, the
window's agent picker and a workflow's ``$ref``):

- flat: the agent's own keys at the top (``id``, ``provider``, ``model``,
  ...), as upstream's agent spec documents it;
- wrapped: ``schema_version: '1.0'`` and the same keys under ``agent:``,
  the way a workflow file wraps ``workflow:`` (the shipped example).

:func:`agent_document` decides which one a document is, once, for every
reader, so the two cannot drift: the agent file's strict model here and the
workflow loader's ``$ref`` resolution both start from its answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from relavium_desktop.engine.agent.spec import AgentSpec


@dataclass(frozen=True, slots=True)
class Problem:
    file: str
    line: int  # 1-based
    column: int  # 1-based
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: {self.message}"


class AgentSpecError(ValueError):
    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("\n".join(str(p) for p in problems))
        self.problems = problems


AGENT_SCHEMA_VERSION = "1.0"
# The keys of the wrapped shape; a flat agent has neither (they are not agent fields).
WRAPPER_KEYS = ("schema_version", "agent")


@dataclass(frozen=True, slots=True)
class DocumentProblem:
    """A problem with the file's outer shape, at ``loc`` (the file's own keys)."""

    loc: tuple[str, ...]
    message: str


@dataclass(frozen=True, slots=True)
class AgentDocument:
    """Where the agent's own keys are: ``body`` sits at ``prefix`` in the file (``()`` flat, ``("agent",)`` wrapped).

    ``body`` is None when the shape itself is wrong; ``problems`` then says why.
    """

    body: Mapping[str, Any] | None
    prefix: tuple[str, ...]
    problems: tuple[DocumentProblem, ...] = ()


def agent_document(data: Mapping[str, Any]) -> AgentDocument:
    """The agent's keys in a parsed agent file, flat or wrapped; the outer shape's problems, if any.

    A wrapped file holds ``schema_version`` (optional, ``'1.0'``) and ``agent``
    (a mapping) and nothing else beside them; ``schema_version`` without
    ``agent:`` is a half-converted file, and a ``workflow:`` document is a
    workflow, each said plainly rather than as a list of unknown keys.
    """
    if "agent" not in data:
        if "workflow" in data:
            return AgentDocument(
                None,
                (),
                (
                    DocumentProblem(
                        ("workflow",),
                        "this is a workflow file, not an agent file: an agent file holds the agent's "
                        "keys (id, provider, model, ...), at the top or under agent:",
                    ),
                ),
            )
        if "schema_version" in data:
            return AgentDocument(
                None,
                (),
                (
                    DocumentProblem(
                        ("schema_version",),
                        "schema_version goes with an agent: block: put the agent's keys under "
                        "agent:, or drop schema_version and keep them at the top",
                    ),
                ),
            )
        return AgentDocument(data, ())
    problems: list[DocumentProblem] = []
    version = data.get("schema_version", AGENT_SCHEMA_VERSION)
    if not isinstance(version, str) or version != AGENT_SCHEMA_VERSION:
        number = isinstance(version, int | float) and not isinstance(version, bool)
        quoted = " (quoted: unquoted it is read as a number)" if number else ""
        problems.append(
            DocumentProblem(("schema_version",), f"schema_version must be '{AGENT_SCHEMA_VERSION}'{quoted}")
        )
    for key in data:
        if key not in WRAPPER_KEYS:
            problems.append(
                DocumentProblem(
                    (str(key),),
                    f"unknown key {str(key)!r} beside agent: (a wrapped agent file holds only "
                    "schema_version and agent; the agent's own keys go under agent:)",
                )
            )
    body = data["agent"]
    if not isinstance(body, Mapping):
        problems.append(
            DocumentProblem(
                ("agent",), "agent: must be a mapping of the agent's keys (id, provider, model, ...)"
            )
        )
        return AgentDocument(None, ("agent",), tuple(problems))
    return AgentDocument(body, ("agent",), tuple(problems))


def _locate(root: Any, loc: tuple[int | str, ...], *, at_key: bool) -> tuple[int, int]:
    """0-based (line, col) of the deepest node on ``loc``: its key, or its value."""
    node, line, col = root, 0, 0
    for i, step in enumerate(loc):
        last = i == len(loc) - 1
        if isinstance(node, CommentedMap) and isinstance(step, str) and step in node:
            line, col = node.lc.key(step) if (at_key or not last) else node.lc.value(step)
            node = node[step]
        elif isinstance(node, CommentedSeq) and isinstance(step, int) and 0 <= step < len(node):
            line, col = node.lc.item(step)
            node = node[step]
        else:
            break
    return line, col


def _describe(err: Any) -> str:
    loc = ".".join(str(p) for p in err.get("loc", ())) or "(document)"
    kind = err.get("type", "")
    if kind == "extra_forbidden":
        return f"unknown key {loc!r}"
    if kind == "missing":
        return f"missing required key {loc!r}"
    if kind == "tool_config_not_granted":
        return str(err.get("msg", "tool_config names a tool the agent does not list"))
    return f"{loc}: {err.get('msg', 'invalid value')}"


def parse_agent_yaml(text: str, filename: str) -> AgentSpec:
    """The validated spec, or :class:`AgentSpecError` listing every problem."""
    yaml = YAML(typ="rt")
    try:
        data = yaml.load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line, mark.column) if mark else (0, 0)
        what = exc.problem or exc.context or "malformed YAML"
        raise AgentSpecError([Problem(filename, line + 1, col + 1, f"malformed YAML: {what}")]) from None
    except YAMLError as exc:
        raise AgentSpecError([Problem(filename, 1, 1, f"malformed YAML: {type(exc).__name__}")]) from None
    if not isinstance(data, CommentedMap):
        raise AgentSpecError([Problem(filename, 1, 1, "an agent file must be a mapping of keys")])
    doc = agent_document(data)
    problems: list[Problem] = []
    for shape in doc.problems:
        line, col = _locate(data, shape.loc, at_key=True)
        problems.append(Problem(filename, line + 1, col + 1, shape.message))
    if doc.body is None:
        raise AgentSpecError(problems)
    try:
        spec = AgentSpec.model_validate(_plain(doc.body))
    except ValidationError as exc:
        for err in exc.errors(include_url=False, include_input=False):
            loc = (*doc.prefix, *err.get("loc", ()))
            # Missing keys sit at their parent; point there.
            target = loc[:-1] if err.get("type") == "missing" else loc
            at_key = err.get("type") in ("extra_forbidden", "missing", "tool_config_not_granted")
            if err.get("type") == "tool_config_not_granted":
                # The refused entry's own key, not the whole block.
                target = (*loc, str(err.get("ctx", {}).get("tool", "")))
            line, col = _locate(data, target, at_key=at_key)
            problems.append(Problem(filename, line + 1, col + 1, _describe(err)))
        problems.sort(key=lambda p: (p.line, p.column))
        raise AgentSpecError(problems) from None
    if problems:
        raise AgentSpecError(sorted(problems, key=lambda p: (p.line, p.column)))
    return spec


def _plain(node: Any) -> Any:
    """ruamel's containers as plain dicts/lists, so strict validation sees JSON types."""
    if isinstance(node, CommentedMap):
        return {str(k): _plain(v) for k, v in node.items()}
    if isinstance(node, CommentedSeq):
        return [_plain(v) for v in node]
    if isinstance(node, str):
        return str(node)
    return node
