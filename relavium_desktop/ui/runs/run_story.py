"""A run's recorded events told as rows a person reads, and as per-node time spans.

The event log is exact but it is JSON; this turns it into "draft finished in
12 ms", "run_command: exit 1 after 2.3 s", "explode failed: null has no
property boom" -- one row per event that matters (streamed tokens are not
rows), each tagged with what the History filter selects on.  It also works
out each node's span (first start to its end) and cost for the waterfall.
Pure Python: no Qt, so it is cheap to test and to reuse.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from relavium_desktop.engine.display_text import one_spaced, show_line
from relavium_desktop.engine.jsontypes import JsonDict
from relavium_desktop.engine.workflow.budget_words import budget_words
from relavium_desktop.engine.workflow.run_state import NodeStatus, fold
from relavium_desktop.ui.runs.local_time import parse_wire_time

NODE, TOOL, RUN = "node", "tool", "run"
SKIP_REASONS = {
    "branch_not_taken": "its branch was not taken",
    "upstream_unreachable": "an earlier step did not finish",
    "run_failed": "the run had failed",
}


@dataclass(frozen=True, slots=True)
class StoryRow:
    at: float | None  # epoch seconds of the event
    kind: str  # node | tool | run: what the filter's Nodes / Tools pick
    text: str
    node: str | None = None
    error: bool = False  # what the Errors filter picks
    detail: str = ""  # the tooltip: the error code, the full preview
    event_type: str = ""


@dataclass(slots=True)
class NodeSpan:
    node: str
    node_type: str
    start: float
    end: float | None = None
    state: NodeStatus = "running"  # the reducer's NodeState.status once the log is read
    cost_microcents: int = 0
    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def duration_ms(self) -> int:
        return 0 if self.end is None else max(0, round((self.end - self.start) * 1000))


def one_line(text: Any, limit: int = 120) -> str:
    """``text`` on one line, shortened with an ellipsis."""
    flat = one_spaced(str(text))  # a CR stays, for the display rule to mark
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def format_ms(ms: int | float | None) -> str:
    if ms is None:
        return "—"
    if ms < 1000:
        return f"{int(ms)} ms"
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:.1f} s"
    return f"{int(seconds // 60)} min {int(seconds % 60)} s"


def dollars(microcents: int) -> str:
    """Micro-cents (1e-6 cent) as dollars; small costs keep their significant digits."""
    value = microcents / 100_000_000
    return f"${value:.4f}" if value < 1 else f"${value:.2f}"


def _error_words(error: Any) -> tuple[str, str]:
    """(the message a person reads, the code for the tooltip)."""
    if not isinstance(error, dict):
        return "an unknown error", ""
    message = str(error.get("message") or error.get("code") or "an unknown error")
    code = str(error.get("code") or "")
    reason = error.get("reason")
    return one_line(message, 300), f"{code} ({reason})" if reason else code


def _tool_preview(tool_input: Any) -> str:
    if isinstance(tool_input, dict) and isinstance(tool_input.get("preview"), str):
        return str(tool_input["preview"])
    if isinstance(tool_input, dict):
        return ", ".join(f"{k}={one_line(v, 60)}" for k, v in tool_input.items())
    return one_line(tool_input)


def _summary_words(summary: Any) -> str:
    """A tool's output summary; one that is a JSON object reads as "key: value, key: value"."""
    text = str(summary or "").strip()
    if text[:1] in "{[":
        try:
            value = json.loads(text)
        except ValueError:
            return text
        if isinstance(value, dict):
            return ", ".join(f"{k}: {one_line(v, 80)}" for k, v in value.items())
    return text


def _result_line(tool_id: str, summary: Any) -> str:
    """A successful call in the chat tool card's words ("Read · 2 files", "Wrote notes.md · 12 B").

    The card's summaries are pure functions of the result; a result they say
    nothing about falls back to its own words, "key: value" for an object.
    """
    from relavium_desktop.ui.chat.tool_cards.results import Outcome, parse
    from relavium_desktop.ui.chat.tool_cards.summaries import summary_line

    text = str(summary or "")
    data, clipped = parse(text)
    path = data.get("path") if isinstance(data, dict) else None
    line = summary_line(Outcome(tool_id, {"path": path} if isinstance(path, str) else {}, ok=True, text=text,
                                data=data, clipped=clipped))
    if line not in (tool_id, f"Used {tool_id}"):  # the card said more than the tool's name
        return line
    return f"{tool_id}: {one_line(_summary_words(summary) or 'done', 120)}"


def _tokens(event: JsonDict) -> str:
    used = event.get("tokensUsed") or event.get("totalTokensUsed")
    if isinstance(used, dict) and (used.get("input") or used.get("output")):
        return f"{used.get('input', 0)} in / {used.get('output', 0)} out tokens"
    return ""


def story_row(event: JsonDict) -> StoryRow | None:
    """The row for one event, or None for events that are not worth a row (tokens, unknown types)."""
    kind = str(event.get("type", ""))
    at = parse_wire_time(event.get("timestamp"))
    node = str(event["nodeId"]) if event.get("nodeId") is not None else None
    if kind == "node:started":
        attempt = event.get("attemptNumber")
        again = f" (attempt {attempt})" if isinstance(attempt, int) and attempt > 1 else ""
        return StoryRow(at, NODE, f"{node} started{again} · {event.get('nodeType', '')}".rstrip(" ·"), node)
    if kind == "node:completed":
        extras = [x for x in (_tokens(event),) if x]
        text = f"{node} finished in {format_ms(event.get('durationMs'))}"
        return StoryRow(at, NODE, " · ".join([text, *extras]), node)
    if kind == "node:failed":
        words, code = _error_words(event.get("error"))
        return StoryRow(at, NODE, f"{node} failed: {words}", node, error=True, detail=code)
    if kind == "node:skipped":
        why = SKIP_REASONS.get(str(event.get("reason")), str(event.get("reason", "")))
        return StoryRow(at, NODE, f"{node} skipped: {why}", node)
    if kind == "node:retrying":
        words, code = _error_words(event.get("error"))
        return StoryRow(at, NODE, f"{node} will try again (attempt {event.get('attemptNumber')}) after: {words}",
                        node, error=True, detail=code)
    if kind == "agent:tool_call":
        preview = _tool_preview(event.get("toolInput"))
        return StoryRow(at, TOOL, f"{node} calls {event.get('toolId')} {one_line(preview, 100)}".rstrip(), node,
                        detail=one_line(preview, 2000))
    if kind == "agent:tool_result":
        if event.get("success"):
            return StoryRow(at, TOOL, _result_line(str(event.get("toolId")), event.get("outputSummary")), node,
                            detail=one_line(event.get("outputSummary") or "", 2000))
        words, code = _error_words(event.get("error"))
        return StoryRow(at, TOOL, f"{event.get('toolId')} failed: {words}", node, error=True, detail=code)
    if kind == "cost:updated":
        cost = event.get("costMicrocents")
        price = f" · {dollars(int(cost))}" if isinstance(cost, int) else ""
        return StoryRow(at, NODE, f"{node} used {event.get('inputTokens', 0)} in / {event.get('outputTokens', 0)} "
                        f"out tokens on {event.get('model', 'a model')}{price}", node)
    if kind == "human_gate:paused":
        return StoryRow(at, NODE, f"{node} waits for a person: {one_line(event.get('message', ''), 120)}", node)
    if kind == "human_gate:resumed":
        return StoryRow(at, NODE, f"{node}: {event.get('decision')} by {event.get('decidedBy')}", node)
    return _run_row(kind, event, at)


def _run_row(kind: str, event: JsonDict, at: float | None) -> StoryRow | None:
    if kind == "run:started":
        return StoryRow(at, RUN, "Run started")
    if kind == "run:paused":
        return StoryRow(at, RUN, "Run paused: waiting for a person at a human gate")
    totals = [x for x in (_tokens(event),) if x]
    if isinstance(event.get("totalCostMicrocents"), int) and event["totalCostMicrocents"]:
        totals.append(dollars(event["totalCostMicrocents"]))
    tail = (" · " + " · ".join(totals)) if totals else ""
    if kind == "run:completed":
        return StoryRow(at, RUN, f"Run completed in {format_ms(event.get('durationMs'))}{tail}")
    if kind == "run:failed":
        words, code = _error_words(event.get("error"))
        return StoryRow(at, RUN, f"Run failed: {words}{tail}", error=True, detail=code)
    if kind == "run:cancelled":
        return StoryRow(at, RUN, f"Run stopped{tail}")
    budget = budget_words(event)
    if budget is not None:  # the CLI's words too (engine/workflow/budget_words.py)
        node_id = str(event["nodeId"]) if event.get("nodeId") is not None else None
        return StoryRow(at, NODE if node_id else RUN, f"Budget: {budget}", node_id, error=kind != "budget:paused")
    return None


def story(events: list[JsonDict]) -> list[StoryRow]:
    """The rows of ``events``; their words come from models, tools and authors, so they are shown by the
    display rule (controls, bidi and invisible characters as markers)."""
    rows = []
    for event in events:
        row = story_row(event)
        if row is not None:
            rows.append(replace(row, text=show_line(row.text), detail=show_line(row.detail),
                                event_type=str(event.get("type", ""))))
    return rows


def node_spans(events: list[JsonDict]) -> list[NodeSpan]:
    """Each node that started: its first start, its end, final state and cost, in start order."""
    spans: dict[str, NodeSpan] = {}
    last_at: float | None = None
    for event in events:
        at = parse_wire_time(event.get("timestamp"))
        last_at = at if at is not None else last_at
        kind = event.get("type")
        node = event.get("nodeId")
        if node is None or at is None:
            continue
        node = str(node)
        span = spans.get(node)
        if kind == "node:started" and span is None:
            spans[node] = NodeSpan(node, str(event.get("nodeType", "")), at)
        elif span is None:
            continue
        elif kind == "human_gate:resumed" and event.get("decision") != "rejected":
            span.end = at  # the gate's completion: no node:completed follows it
        elif kind in ("node:completed", "node:failed", "node:skipped"):
            span.end = at
        elif kind == "cost:updated":
            span.cost_microcents += int(event.get("costMicrocents") or 0)
            span.input_tokens += int(event.get("inputTokens") or 0)
            span.output_tokens += int(event.get("outputTokens") or 0)
    # Each node's final state is the one reducer's (engine/workflow/run_state.py), as every other view shows it.
    state = fold(events)
    for span in spans.values():
        node_state = state.node(span.node)
        if node_state is not None:
            span.state = node_state.status
        if span.end is None:  # still running, waiting, or cut off: it lasted until the log's last event
            span.end = last_at
    return sorted(spans.values(), key=lambda s: s.start)
