"""The Application's stores share one history.db connection per process.

Why it matters to a user: the Runs view and the chat list refresh often; each
refresh used to open history.db again, rerun every migration check and the
liveness sweep, and leave another file handle open.  Here the real stores run
over a real history.db; "one connection" is checked the way an administrator
would see it -- the process's open handles on the file (psutil, i.e.
/proc/self/fd) -- and the liveness sweep with a run row owned by a process
that really exited.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import psutil
import pytest

from relavium_desktop.application.app import Application
from relavium_desktop.application.paths import AppPaths
from relavium_desktop.engine.llm.messages import Message, TextPart
from relavium_desktop.engine.workflow.journal import RunInfo
from relavium_desktop.store.db import StorageError, history_db_path, move_aside
from relavium_desktop.store.runs import RunStore


def _handles_on(path: Path) -> int:
    """How many file descriptors this process holds on ``path`` itself (not its -wal/-shm files)."""
    target = str(path.resolve())
    return sum(1 for f in psutil.Process().open_files() if f.path == target)


def _dead_process() -> tuple[int, float]:
    """A pid and start time of a process that has exited (and was reaped)."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    started = psutil.Process(proc.pid).create_time()
    proc.kill()
    proc.wait()
    return proc.pid, started


def _running_run_of_a_dead_process(home: Path, run_id: str) -> None:
    """A run left ``running`` by a process that is gone (written through its own store, as that process did)."""
    store = RunStore.open(home)
    store.run_started(RunInfo(run_id, "wf", "Wf", "wf.relavium.yaml", 100.0))
    store.close()
    pid, started = _dead_process()
    conn = sqlite3.connect(history_db_path(home))
    conn.execute("UPDATE runs SET owner_pid = ?, owner_started = ? WHERE id = ?", (pid, started, run_id))
    conn.commit()
    conn.close()


def _status_on_disk(home: Path, run_id: str) -> str:
    """The run's status as another program reading history.db sees it."""
    conn = sqlite3.connect(history_db_path(home))
    try:
        return str(conn.execute("SELECT status FROM runs WHERE id = ?", (run_id,)).fetchone()[0])
    finally:
        conn.close()


def test_every_store_of_one_application_uses_one_connection(relavium_home: Path) -> None:
    app = Application(AppPaths(relavium_home))
    db = history_db_path(relavium_home)
    sessions, runs, grants, consents = app.sessions(), app.runs(), app.grants(), app.consents()
    assert _handles_on(db) == 1
    # Asking again (as every view refresh does) hands back the same stores and opens nothing.
    for _ in range(5):
        assert (app.sessions(), app.runs(), app.grants(), app.consents()) == (
            sessions,
            runs,
            grants,
            consents,
        )
    assert _handles_on(db) == 1

    info = sessions.create(title="hello", agent_id="chat", mode="confirm")
    sessions.append_message(info.id, Message("user", (TextPart("hi there"),)))
    runs.run_started(RunInfo("r1", "wf", "Wf", "wf.relavium.yaml", 100.0))
    assert [s.title for s in app.sessions().list_sessions()] == ["hello"]
    assert [r["id"] for r in app.runs().list_runs()] == ["r1"]
    assert grants.list() == [] and consents.list() == []

    app.close()
    assert _handles_on(db) == 0


def test_a_store_closing_leaves_the_shared_connection_to_the_others(relavium_home: Path) -> None:
    app = Application(AppPaths(relavium_home))
    sessions = app.sessions()
    runs = app.runs()
    sessions.close()
    app.grants().close()
    runs.run_started(RunInfo("r1", "wf", "Wf", "wf.relavium.yaml", 100.0))  # still works
    assert [r["id"] for r in runs.list_runs()] == ["r1"]
    assert sessions.list_sessions() == []  # its connection is the shared one, still open
    app.close()


@pytest.mark.spawns  # a real process that exits, so its run row has a dead owner
def test_the_liveness_sweep_runs_once_per_process(relavium_home: Path) -> None:
    _running_run_of_a_dead_process(relavium_home, "before-start")
    app = Application(AppPaths(relavium_home))

    runs = app.runs()  # opening the run journal sweeps: the dead process's run is interrupted
    assert _status_on_disk(relavium_home, "before-start") == "interrupted"

    # Another process dies leaving a run 'running'.  Reaching the stores again (every view
    # refresh does) neither reopens history.db nor sweeps again...
    _running_run_of_a_dead_process(relavium_home, "later")
    for _ in range(3):
        assert app.runs() is runs
        app.sessions(), app.grants(), app.consents()
    assert _status_on_disk(relavium_home, "later") == "running"
    # ...while listing runs still checks the runs it shows (RunStore.list_runs reaps).
    listed = {r["id"]: r["status"] for r in runs.list_runs()}
    assert listed == {"before-start": "interrupted", "later": "interrupted"}
    app.close()


def test_close_writes_buffered_run_events_and_closes_the_connection(relavium_home: Path) -> None:
    app = Application(AppPaths(relavium_home))
    runs = app.runs()
    runs.run_started(RunInfo("r1", "wf", "Wf", "wf.relavium.yaml", 100.0))
    runs.record({"type": "run:started", "runId": "r1", "sequenceNumber": 0, "timestamp": "t"})  # buffered

    app.close()
    app.close()  # idempotent

    assert _handles_on(history_db_path(relavium_home)) == 0
    with pytest.raises(sqlite3.ProgrammingError):  # a store kept past close cannot reach the file
        runs.list_runs()
    conn = sqlite3.connect(history_db_path(relavium_home))
    assert conn.execute("SELECT type FROM run_events WHERE run_id = 'r1'").fetchall() == [("run:started",)]
    conn.close()
    # A later call opens history.db afresh.
    assert [r["id"] for r in app.runs().list_runs()] == ["r1"]
    app.close()


def test_stores_on_the_shared_connection_can_be_used_from_many_threads_at_once(relavium_home: Path) -> None:
    """The loop thread and to_thread workers use different stores on one connection at the same time.

    Without one lock for the connection a session write would land inside the
    run journal's write transaction (or fail with "cannot start a transaction
    within a transaction").
    """
    app = Application(AppPaths(relavium_home))
    sessions, runs = app.sessions(), app.runs()
    info = sessions.create(title="busy", agent_id="chat", mode="confirm")
    runs.run_started(RunInfo("r1", "wf", "Wf", "wf.relavium.yaml", 100.0))
    errors: list[BaseException] = []
    start = threading.Barrier(3)
    per_thread = 300

    def chat() -> None:
        start.wait()
        for i in range(per_thread):
            sessions.append_message(info.id, Message("user", (TextPart(f"message {i}"),)))

    def journal() -> None:
        start.wait()
        for i in range(per_thread):
            runs.record({"type": "node:output", "runId": "r1", "sequenceNumber": i, "timestamp": "t"})
            if i % 10 == 0:
                runs.checkpoint("r1", {"nextSeq": i + 1}, "running")

    def grants() -> None:
        start.wait()
        for _ in range(per_thread):
            app.grants().list()
            app.consents().list()

    def guarded(fn: object) -> threading.Thread:
        def body() -> None:
            try:
                fn()  # type: ignore[operator]
            except BaseException as exc:
                errors.append(exc)

        return threading.Thread(target=body)

    threads = [guarded(chat), guarded(journal), guarded(grants)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads), "a store thread hung"
    assert errors == []
    assert len(sessions.messages(info.id)) == per_thread
    assert len(runs.events("r1")) == per_thread
    app.close()


def test_a_damaged_history_is_a_storage_error_and_the_next_call_opens_the_fresh_file(
    relavium_home: Path,
) -> None:
    db = history_db_path(relavium_home)
    db.write_bytes(b"this is not a database" * 100)
    app = Application(AppPaths(relavium_home))
    with pytest.raises(StorageError) as caught:
        app.sessions()
    assert caught.value.kind == "corrupt"
    assert "history.db is not a database or is damaged" in caught.value.describe()
    move_aside(db)  # what the window's "Move it aside and start fresh" does
    assert app.sessions().list_sessions() == []
    app.close()
