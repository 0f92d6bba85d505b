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
from relavium_desktop.ui.readable import readable

MAX_CHARS = 20_000

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
