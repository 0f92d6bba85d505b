"""Parse agent YAML text into an :class:`AgentSpec` with located problems.

Pure (the caller reads the file): ruamel.yaml's round-trip loader keeps each
key's line and column, so every schema miss is reported as
``file:line:column: problem`` — one line per problem, never a traceback.
"""

from __future__ import annotations

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
    try:
        return AgentSpec.model_validate(_plain(data))
    except ValidationError as exc:
        problems = []
        for err in exc.errors(include_url=False, include_input=False):
            loc = tuple(err.get("loc", ()))
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


def _plain(node: Any) -> Any:
    """ruamel's containers as plain dicts/lists, so strict validation sees JSON types."""
    if isinstance(node, CommentedMap):
        return {str(k): _plain(v) for k, v in node.items()}
    if isinstance(node, CommentedSeq):
        return [_plain(v) for v in node]
    if isinstance(node, str):
        return str(node)
    return node
