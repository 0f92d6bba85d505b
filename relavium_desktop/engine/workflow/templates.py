"""``{{ … }}`` templates: references into the run scope plus pipe filters.

A template is data, never code: a site is a dotted/bracketed reference
(``inputs.x``, ``ctx.k``, ``run.outputs["id"].path``, ``run.id``) followed by
the closed filter set ``json``, ``length``, ``default("x")``, ``read_file``.
A value that is exactly one site keeps its JSON type (so ``args: ['{{ inputs.n }}']``
passes a number); mixed text is rendered as a string.  ``read_file`` goes
through the injected reader (the registry's ``read_file`` tool and its policy),
never through the OS directly.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from relavium_desktop.engine.workflow.errors import TemplateError

SITE_RE = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)
_HEAD_RE = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)")
_SEG_RE = re.compile(
    r"""\s*(?:\.([A-Za-z0-9_-]+)|\[\s*"([^"]*)"\s*\]|\[\s*'([^']*)'\s*\]|\[\s*(\d+)\s*\])"""
)
_FILTER_RE = re.compile(r"""^\s*([a-z_]+)\s*(?:\(\s*(.*?)\s*\))?\s*$""", re.DOTALL)
FILTERS = frozenset({"json", "length", "default", "read_file"})
HEADS = frozenset({"inputs", "ctx", "run"})

Segment = str | int
FileReader = Callable[[str], Awaitable[str]]


@dataclass(frozen=True, slots=True)
class Filter:
    name: str
    arg: Any = None


@dataclass(frozen=True, slots=True)
class Site:
    ref: tuple[Segment, ...]
    filters: tuple[Filter, ...]
    source: str

    @property
    def output_node(self) -> str | None:
        """The producer a ``run.outputs[...]`` site reads, for data edges."""
        if len(self.ref) >= 3 and self.ref[0] == "run" and self.ref[1] == "outputs":
            return str(self.ref[2])
        return None


def _split_pipes(text: str) -> list[str]:
    parts, buf, quote = [], [], ""
    for ch in text:
        if quote:
            buf.append(ch)
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
            buf.append(ch)
        elif ch == "|":
            parts.append("".join(buf))
            buf = []
        else:
            buf.append(ch)
    parts.append("".join(buf))
    return parts


def parse_site(body: str) -> Site:
    """Parse the inside of one ``{{ }}``; a malformed site is a TemplateError."""
    pieces = _split_pipes(body)
    ref_text = pieces[0]
    m = _HEAD_RE.match(ref_text)
    if not m or m.group(1) not in HEADS:
        raise TemplateError(
            f"template '{{{{{body.strip()[:60]}}}}}' must start with inputs., ctx. or run.",
            reason="syntax",
        )
    ref: list[Segment] = [m.group(1)]
    pos = m.end()
    while pos < len(ref_text.rstrip()):
        sm = _SEG_RE.match(ref_text, pos)
        if not sm:
            raise TemplateError(f"template '{{{{{body.strip()[:60]}}}}}' has a malformed reference",
                                reason="syntax")
        name, dq, sq, idx = sm.groups()
        if idx is not None:
            ref.append(int(idx))
        elif dq is not None:
            ref.append(dq)
        elif sq is not None:
            ref.append(sq)
        else:
            ref.append(name)
        pos = sm.end()
    filters = []
    for raw in pieces[1:]:
        fm = _FILTER_RE.match(raw)
        if not fm or fm.group(1) not in FILTERS:
            raise TemplateError(
                f"unknown template filter {raw.strip()[:30]!r}; filters are json, length, default, read_file",
                reason="syntax",
            )
        arg: Any = None
        if fm.group(1) == "default":
            if fm.group(2) is None:
                raise TemplateError("default needs a value, e.g. default(\"none\")", reason="syntax")
            try:
                arg = json.loads(fm.group(2).replace("'", '"') if fm.group(2).startswith("'") else fm.group(2))
            except json.JSONDecodeError:
                raise TemplateError("default(...) takes a JSON literal", reason="syntax") from None
        elif fm.group(2):
            raise TemplateError(f"filter {fm.group(1)} takes no argument", reason="syntax")
        filters.append(Filter(fm.group(1), arg))
    if ref[0] == "run" and (len(ref) < 2 or ref[1] not in ("outputs", "id")):
        raise TemplateError("run. references are run.outputs[\"<node>\"] or run.id", reason="syntax")
    if ref[0] in ("inputs", "ctx") and len(ref) < 2:
        raise TemplateError(f"{ref[0]} needs a name, e.g. {ref[0]}.name", reason="syntax")
    return Site(tuple(ref), tuple(filters), body.strip())


def sites(text: str) -> list[Site]:
    return [parse_site(m.group(1)) for m in SITE_RE.finditer(text)]


def sites_in(value: Any) -> list[Site]:
    """Every site in a string or a nested list/dict of strings."""
    if isinstance(value, str):
        return sites(value)
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in sites_in(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in sites_in(v)]
    return []


@dataclass(slots=True)
class Scope:
    """What templates (and, as JSON, expressions) can see."""

    run_id: str
    inputs: dict[str, Any] = field(default_factory=dict)
    declared_inputs: frozenset[str] = frozenset()
    ctx: dict[str, Any] = field(default_factory=dict)
    outputs: dict[str, Any] = field(default_factory=dict)
    node_ids: frozenset[str] = frozenset()
    allow_outputs: bool = True

    def expression_scope(self, branches: list[Any] | None = None) -> dict[str, Any]:
        scope: dict[str, Any] = {
            "inputs": self.inputs,
            "ctx": self.ctx,
            "run": {"id": self.run_id, "outputs": self.outputs},
        }
        if branches is not None:
            scope["branches"] = branches
        return scope


def _walk(value: Any, segs: tuple[Segment, ...]) -> Any:
    for seg in segs:
        if isinstance(seg, int) and isinstance(value, list) and -len(value) <= seg < len(value):
            value = value[seg]
        elif isinstance(value, Mapping) and str(seg) in value:
            value = value[str(seg)]
        else:
            return None
    return value


def resolve(site: Site, scope: Scope) -> Any:
    head, rest = site.ref[0], site.ref[1:]
    if head == "inputs":
        name = str(rest[0])
        if name in scope.inputs:
            return _walk(scope.inputs[name], rest[1:])
        if name in scope.declared_inputs:
            return None
        raise TemplateError(f"unresolved_reference: no input named {name!r}")
    if head == "ctx":
        key = str(rest[0])
        if key not in scope.ctx:
            raise TemplateError(f"unresolved_reference: no context entry {key!r}")
        return _walk(scope.ctx[key], rest[1:])
    if rest[0] == "id":
        return scope.run_id
    if not scope.allow_outputs:
        raise TemplateError("unresolved_reference: run.outputs is not available here (no node has run)")
    if len(rest) < 2:
        return dict(scope.outputs)
    node = str(rest[1])
    if node not in scope.node_ids:
        raise TemplateError(f"unresolved_reference: no node named {node!r}")
    return _walk(scope.outputs.get(node), rest[2:])


async def _apply(value: Any, flt: Filter, read_file: FileReader | None) -> Any:
    if flt.name == "json":
        return json.dumps(value, ensure_ascii=False)
    if flt.name == "length":
        if value is None:
            return 0
        if isinstance(value, str | list | dict):
            return len(value)
        raise TemplateError("length applies to a string, list or object", reason="filter")
    if flt.name == "default":
        return flt.arg if value is None or value == "" else value
    if read_file is None:
        raise TemplateError("read_file is not available in this template field", reason="filter")
    if not isinstance(value, str) or not value:
        raise TemplateError("read_file needs a file path string", reason="filter")
    return await read_file(value)


def to_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


async def render(text: str, scope: Scope, read_file: FileReader | None = None) -> Any:
    """Render one template string; a lone site keeps its type."""
    matches = list(SITE_RE.finditer(text))
    if not matches:
        return text
    if len(matches) == 1 and matches[0].span() == (0, len(text)):
        return await _eval_site(parse_site(matches[0].group(1)), scope, read_file)
    out, last = [], 0
    for m in matches:
        out.append(text[last:m.start()])
        out.append(to_text(await _eval_site(parse_site(m.group(1)), scope, read_file)))
        last = m.end()
    out.append(text[last:])
    return "".join(out)


async def render_text(text: str | None, scope: Scope, read_file: FileReader | None = None) -> str:
    if text is None:
        return ""
    return to_text(await render(text, scope, read_file))


async def render_value(value: Any, scope: Scope, read_file: FileReader | None = None) -> Any:
    """Render every template inside a nested literal (an ``input_mapping``)."""
    if isinstance(value, str):
        return await render(value, scope, read_file)
    if isinstance(value, Mapping):
        return {k: await render_value(v, scope, read_file) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [await render_value(v, scope, read_file) for v in value]
    return value


async def _eval_site(site: Site, scope: Scope, read_file: FileReader | None) -> Any:
    value = resolve(site, scope)
    for flt in site.filters:
        value = await _apply(value, flt, read_file)
    return value
