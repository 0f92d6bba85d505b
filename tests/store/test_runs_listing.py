"""Listing runs from history.db: status filter, paging and the total behind "showing N of M"."""

from __future__ import annotations

from pathlib import Path

from relavium_desktop.engine.workflow.journal import RunInfo
from relavium_desktop.store.runs import RunStore


def test_runs_page_newest_first_with_a_total_and_a_status_filter(tmp_path: Path) -> None:
    store = RunStore.open(tmp_path)
    for i in range(7):
        run_id = f"run-{i}"
        store.run_started(RunInfo(run_id, "wf", "Flow", "wf.relavium.yaml", 1000.0 + i))
        store.finished(run_id, "failed" if i % 3 == 0 else "completed", {"durationMs": 5})
    assert store.count_runs() == 7 and store.count_runs(status="failed") == 3
    first = [r["id"] for r in store.list_runs(limit=3)]
    second = [r["id"] for r in store.list_runs(limit=3, offset=3)]
    rest = [r["id"] for r in store.list_runs(limit=3, offset=6)]
    assert first + second + rest == [f"run-{i}" for i in range(6, -1, -1)]  # every run, once, newest first
    assert [r["id"] for r in store.list_runs(status="failed")] == ["run-6", "run-3", "run-0"]
    assert store.count_runs(status="paused") == 0 and store.list_runs(status="paused") == []
    store.close()


def test_a_step_child_is_recorded_and_only_a_live_one_counts(tmp_path: Path) -> None:
    import os

    import psutil

    store = RunStore.open(tmp_path)
    store.run_started(RunInfo("run-x", "wf", "Flow", "wf.relavium.yaml", 1000.0))
    me = psutil.Process(os.getpid())
    store.child_started("run-x", "build", me.pid, me.create_time())  # alive: this very process
    store.child_started("run-x", "test", me.pid, me.create_time() - 3600)  # that pid, another start: gone
    assert store.live_children("run-x") == [("build", me.pid)]
    store.close()
    again = RunStore.open(tmp_path)  # the record survives the process that wrote it
    assert again.live_children("run-x") == [("build", me.pid)]
    again.finished("run-x", "completed", {"durationMs": 1})
    assert again.live_children("run-x") == []  # a finished run keeps no such records
    again.close()
