"""A resumed gate is completed in the run story by its ``human_gate:resumed`` (no node:completed follows).

Real engine events: a workflow pauses at its gate, a new engine resumes it,
and the story built from the whole log shows the gate completed when it was
approved, failed when it was rejected.
"""

from __future__ import annotations

from relavium_desktop.engine.workflow.journal import MemoryJournal
from relavium_desktop.engine.workflow.run import GateDecision
from relavium_desktop.ui.runs.run_story import node_spans
from tests.engine.workflow.wfhelpers import engine, load

GATED = """schema_version: '1.0'
workflow:
  id: gated
  nodes:
    - {id: s, type: input}
    - {id: ask, type: human_gate, message_template: 'Ship it?'}
    - {id: ship, type: transform, transform: '"shipped"'}
  edges: [{from: s, to: ask}, {from: ask, to: ship}]
"""


async def story_after(decision: str) -> dict[str, str]:
    journal = MemoryJournal()
    paused = await engine(journal=journal).start(load(GATED), {}).run()
    await engine(journal=journal).resume(paused.run_id, GateDecision(decision, "cli")).run()  # type: ignore[arg-type]
    events = journal.events[paused.run_id]
    assert not any(e["type"] == "node:completed" and e["nodeId"] == "ask" for e in events)
    return {span.node: span.state for span in node_spans(events)}


async def test_an_approved_gate_is_completed_and_a_rejected_one_failed() -> None:
    assert await story_after("approved") == {"s": "completed", "ask": "completed", "ship": "completed"}
    assert (await story_after("rejected"))["ask"] == "failed"
