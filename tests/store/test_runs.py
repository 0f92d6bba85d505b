"""RunStore: runs, gap-free events and paused checkpoints survive reopening history.db."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS
from relavium_desktop.engine.tools.registry import ToolRegistry
from relavium_desktop.engine.workflow.run import GateDecision, WorkflowEngine
from relavium_desktop.store.db import history_db_path
from relavium_desktop.store.runs import MIGRATIONS, RunStore
from tests.engine.workflow.wfhelpers import HARNESS, load

GATE = """schema_version: '1.0'
workflow:
  id: gated
  name: Gated
  nodes:
    - {id: s, type: input}
    - {id: ask, type: human_gate}
    - {id: done, type: transform, transform: '"ok"'}
  edges: [{from: s, to: ask}, {from: ask, to: done}]
"""


def _engine(store: RunStore) -> WorkflowEngine:
    return WorkflowEngine(ToolRegistry(BUILTIN_TOOLS, ToolHost()), journal=store)


async def test_completed_run_is_listed_with_its_events(relavium_home: Path) -> None:
    store = RunStore.open(relavium_home)
    result = await _engine(store).start(load(HARNESS.read_text(), "h.relavium.yaml"), {"n": 3}).run()
    store.close()

    store = RunStore.open(relavium_home)
    (row,) = store.list_runs()
    assert (row["id"], row["status"], row["workflow_id"], row["source"]) == (
        result.run_id, "completed", "harness-conditional", "h.relavium.yaml")
    assert row["duration_ms"] is not None and row["error"] is None
    events = store.events(result.run_id)
    assert [e["sequenceNumber"] for e in events] == list(range(11))
    assert events[-1]["type"] == "run:completed"
    assert store.load_checkpoint(result.run_id) is None  # only paused runs can be resumed


async def test_paused_run_resumes_from_a_reopened_database(relavium_home: Path) -> None:
    store = RunStore.open(relavium_home)
    paused = await _engine(store).start(load(GATE), {}).run()
    store.close()
    assert paused.status == "paused"

    store = RunStore.open(relavium_home)
    assert store.get_run(paused.run_id)["status"] == "paused"  # type: ignore[index]
    done = await _engine(store).resume(paused.run_id, GateDecision("approved")).run()
    assert done.status == "completed" and done.outputs == {"done": "ok"}
    events = store.events(paused.run_id)
    assert [e["sequenceNumber"] for e in events] == list(range(len(events)))
    assert [e["type"] for e in events if e["type"].startswith("run:")] == [
        "run:started", "run:paused", "run:completed"]
    assert store.get_run(paused.run_id)["status"] == "completed"  # type: ignore[index]
    store.close()


def test_migration_is_per_component_and_idempotent(relavium_home: Path) -> None:
    RunStore.open(relavium_home).close()
    RunStore.open(relavium_home).close()
    conn = sqlite3.connect(history_db_path(relavium_home))
    assert conn.execute("SELECT version FROM schema_versions WHERE component = 'runs'").fetchone() == (
        len(MIGRATIONS),)
