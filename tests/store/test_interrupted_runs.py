"""Runs whose process died are found by a liveness check (pid + process start time) and read ``interrupted``."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import psutil

from relavium_desktop.engine.workflow.journal import RunInfo
from relavium_desktop.store.db import history_db_path, migrate, open_db
from relavium_desktop.store.runs import MIGRATIONS, RunStore, owner_alive, this_process


def _start(store: RunStore, run_id: str, started_at: float = 100.0) -> None:
    store.run_started(RunInfo(run_id, "wf", "Wf", "wf.relavium.yaml", started_at))
    store.record({"type": "run:started", "runId": run_id, "sequenceNumber": 0, "timestamp": "t"})
    store.checkpoint(run_id, {"nextSeq": 1, "status": {"a": "running"}}, "running")


def _set_owner(home: Path, run_id: str, pid: int, started: float) -> None:
    conn = sqlite3.connect(history_db_path(home))
    conn.execute("UPDATE runs SET owner_pid = ?, owner_started = ? WHERE id = ?", (pid, started, run_id))
    conn.commit()
    conn.close()


def _dead_process() -> tuple[int, float]:
    """A pid and start time of a process that has exited (and was reaped)."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    started = psutil.Process(proc.pid).create_time()
    proc.kill()
    proc.wait()
    return proc.pid, started


def test_a_run_owned_by_a_live_process_stays_running(relavium_home: Path) -> None:
    store = RunStore.open(relavium_home)
    _start(store, "mine")
    row = store.get_run("mine")
    assert row is not None and row["status"] == "running"
    me = this_process()
    assert (row["owner_pid"], row["owner_started"], row["owner_host"]) == (me.pid, me.started, me.host)
    store.close()
    # Another store (as the Runs view opens one per read) does not reap it either.
    store = RunStore.open(relavium_home)
    assert store.reap_dead_runs() == []
    assert [r["status"] for r in store.list_runs()] == ["running"]
    store.close()


def test_a_run_whose_process_is_gone_is_interrupted_and_keeps_its_log_and_checkpoint(relavium_home: Path) -> None:
    store = RunStore.open(relavium_home)
    _start(store, "gone")
    store.close()
    pid, started = _dead_process()
    _set_owner(relavium_home, "gone", pid, started)

    store = RunStore.open(relavium_home)  # opening reaps
    row = store.get_run("gone")
    assert row is not None and row["status"] == "interrupted"
    assert row["error"]["code"] == "process_ended"
    assert f"pid {pid}" in row["error"]["message"]
    assert [e["type"] for e in store.events("gone")] == ["run:started"]
    conn = sqlite3.connect(history_db_path(relavium_home))
    status, state = conn.execute("SELECT status, state FROM run_checkpoints WHERE run_id = 'gone'").fetchone()
    assert (status, json.loads(state)["nextSeq"]) == ("running", 1)  # the last checkpoint is kept as taken
    conn.close()
    assert store.load_checkpoint("gone") is None  # not resumable as a paused run
    store.close()


def test_a_reused_pid_does_not_keep_a_dead_run_running(relavium_home: Path) -> None:
    """The current (live) pid, but recorded with another start time: that process is not ours."""
    store = RunStore.open(relavium_home)
    _start(store, "reused")
    _start(store, "live")
    store.close()
    me = this_process()
    _set_owner(relavium_home, "reused", me.pid, me.started - 3600)

    store = RunStore.open(relavium_home)
    assert {r["id"]: r["status"] for r in store.list_runs()} == {"reused": "interrupted", "live": "running"}
    store.close()


def test_listing_reaps_a_run_that_died_after_the_store_opened(relavium_home: Path) -> None:
    store = RunStore.open(relavium_home)
    _start(store, "later")
    pid, started = _dead_process()
    _set_owner(relavium_home, "later", pid, started)
    assert [r["status"] for r in store.list_runs()] == ["interrupted"]
    store.close()


def test_a_resumed_run_is_owned_by_the_resuming_process(relavium_home: Path) -> None:
    """Ownership moves with every checkpoint, so a run resumed elsewhere is judged by its new owner."""
    store = RunStore.open(relavium_home)
    _start(store, "moved")
    pid, started = _dead_process()
    _set_owner(relavium_home, "moved", pid, started)
    store.checkpoint("moved", {"nextSeq": 1}, "running")  # this (live) process checkpoints it now
    assert store.reap_dead_runs() == []
    assert store.get_run("moved")["status"] == "running"  # type: ignore[index]
    store.close()


def test_finished_paused_and_ownerless_runs_are_left_alone(relavium_home: Path) -> None:
    store = RunStore.open(relavium_home)
    for run_id, status in (("done", "completed"), ("held", "paused")):
        _start(store, run_id)
        store.checkpoint(run_id, {"nextSeq": 1}, status)
    pid, started = _dead_process()
    for run_id in ("done", "held"):
        _set_owner(relavium_home, run_id, pid, started)
    assert store.reap_dead_runs() == []
    assert {r["id"]: r["status"] for r in store.list_runs()} == {"done": "completed", "held": "paused"}
    store.close()


def test_zombies_and_missing_processes_are_not_alive() -> None:
    me = this_process()
    assert owner_alive(me.pid, me.started)
    assert not owner_alive(me.pid, me.started + 5)
    pid, started = _dead_process()
    assert not owner_alive(pid, started)
    # Killed but not yet reaped by its parent: a zombie runs nothing.
    zombie = subprocess.Popen([sys.executable, "-c", "pass"])
    started = psutil.Process(zombie.pid).create_time()
    try:
        deadline = time.monotonic() + 10
        while psutil.Process(zombie.pid).status() != psutil.STATUS_ZOMBIE:
            assert time.monotonic() < deadline, "the child did not exit"
            time.sleep(0.05)
        assert not owner_alive(zombie.pid, started)
    finally:
        zombie.wait()


def test_mark_interrupted_writes_pending_events_and_the_reason(relavium_home: Path) -> None:
    store = RunStore.open(relavium_home)
    _start(store, "piped")
    store.record({"type": "run:cancelled", "runId": "piped", "sequenceNumber": 1, "timestamp": "t"})
    store.mark_interrupted("piped", "output_closed", "stdout was closed before the run ended")
    store.close()
    store = RunStore.open(relavium_home)
    row = store.get_run("piped")
    assert row is not None and row["status"] == "interrupted"
    assert row["error"] == {"code": "output_closed", "message": "stdout was closed before the run ended"}
    assert [e["type"] for e in store.events("piped")] == ["run:started", "run:cancelled"]
    store.close()


def test_migration_2_marks_runs_an_earlier_version_left_running(relavium_home: Path) -> None:
    conn = open_db(history_db_path(relavium_home))
    migrate(conn, "runs", MIGRATIONS[:1])
    conn.execute("INSERT INTO runs(id, workflow_id, source, status, started_at) VALUES "
                 "('old-running', 'wf', 's', 'running', 1), ('old-paused', 'wf', 's', 'paused', 2)")
    conn.close()
    store = RunStore.open(relavium_home)
    rows = {r["id"]: r for r in store.list_runs()}
    assert rows["old-running"]["status"] == "interrupted"
    assert rows["old-running"]["error"]["code"] == "process_ended"
    assert rows["old-paused"]["status"] == "paused" and rows["old-paused"]["owner_pid"] is None
    store.close()
