"""What a human gate is asking about, as text a person reads.

A gate's own record holds only its prompt; what is being approved is the
output of the step(s) before it -- a release note's draft, a review's
findings.  This module picks those outputs out of the run's events and
renders them readably: text as text, objects as "key: value" lines, lists
as bullets -- never raw JSON.  Event payloads are already masked and bounded
by the engine; the text is masked once more because it is shown verbatim.
The run id is never part of it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from relavium_desktop.engine.jsontypes import JsonDict
from relavium_desktop.engine.tools.masking import mask_text

INDENT = "  "
MAX_CHARS = 20_000


def readable(value: Any, depth: int = 0) -> str:
    """``value`` as plain, indented text: strings verbatim, mappings as key: value, lists as bullets."""
    pad = INDENT * depth
    if value is None:
        return f"{pad}(empty)"
    if isinstance(value, str):
        return "\n".join(pad + line for line in value.strip("\n").splitlines()) or f"{pad}(empty text)"
    if isinstance(value, bool):
        return pad + ("yes" if value else "no")
    if isinstance(value, int | float):
        return f"{pad}{value}"
    if isinstance(value, dict):
        if not value:
            return f"{pad}(nothing)"
        lines = []
        for key, item in value.items():
            if (isinstance(item, dict | list) and item) or (isinstance(item, str) and "\n" in item.strip("\n")):
                lines.append(f"{pad}{key}:")
                lines.append(readable(item, depth + 1))
            else:
                lines.append(f"{pad}{key}: {readable(item).strip()}")
        return "\n".join(lines)
    if isinstance(value, list):
        if not value:
            return f"{pad}(none)"
        bullets = []
        for item in value:
            body = readable(item, depth + 1).lstrip()
            bullets.append(f"{pad}• {body}")
        return "\n".join(bullets)
    return f"{pad}{value}"


def outputs_before_gate(events: Iterable[JsonDict], gate_node: str) -> list[tuple[str, Any]]:
    """(node, output) of each node that completed before ``gate_node`` opened, latest first."""
    done: dict[str, Any] = {}
    for event in events:
        kind = event.get("type")
        if kind == "node:completed" and event.get("nodeId") != gate_node:
            done.pop(str(event.get("nodeId")), None)
            done[str(event.get("nodeId"))] = event.get("output")
        elif kind == "node:started" and event.get("nodeId") == gate_node:
            break
    return list(reversed(done.items()))


def under_review(events: Iterable[JsonDict], gate_node: str, upstream: Iterable[str] | None = None) -> str:
    """The text the gate dialog shows as "what you are approving".

    ``upstream`` (the gate's predecessors in the plan, when the caller has the
    plan) picks exactly those outputs; without it the latest step that
    finished before the gate is taken -- what a linear workflow's gate reviews.
    """
    found = outputs_before_gate(events, gate_node)
    if upstream is not None:
        wanted = list(upstream)
        picked = [(n, v) for n, v in found if n in wanted]
    else:
        picked = found[:1]
    picked = [(n, v) for n, v in picked if v is not None]
    if not picked:
        return ""
    if len(picked) == 1:
        text = readable(picked[0][1])
    else:
        text = "\n\n".join(f"From {n}:\n{readable(v, 1)}" for n, v in picked)
    return mask_text(text[:MAX_CHARS])
