"""Store thread safety: one RunStore (one connection) written from many threads at once.

The desktop records a run's events on the Qt loop while worker threads flush
and read the same store; the session store is shared the same way.  Every
event must land exactly once, and no thread may see a sqlite error
("cannot start a transaction within a transaction", "recursive use of
cursors", a lost buffer entry, ...).
"""

from __future__ import annotations

import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from relavium_desktop.engine.workflow.journal import RunInfo
from relavium_desktop.store.db import history_db_path, open_db, write_tx
from relavium_desktop.store.runs import MIGRATIONS as RUN_MIGRATIONS
from relavium_desktop.store.runs import RunStore
from relavium_desktop.store.sessions import MIGRATIONS as SESSION_MIGRATIONS

RECORDERS = 4
EVENTS_PER_RECORDER = 1500
ROUNDS = 3


@pytest.fixture(autouse=True)
def _switch_often() -> Iterator[None]:
    """Switch threads as often as the interpreter allows, so an unlocked window is hit."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


def _run_threads(targets: list[Callable[[], None]]) -> list[BaseException]:
    errors: list[BaseException] = []
    start = threading.Barrier(len(targets))

    def wrap(fn: Callable[[], None]) -> Callable[[], None]:
        def body() -> None:
            try:
                start.wait()
                fn()
            except BaseException as exc:
                errors.append(exc)

        return body

    threads = [threading.Thread(target=wrap(t)) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads), "a store thread hung"
    return errors


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_concurrent_record_flush_checkpoint_and_read_keep_every_event_once(
    relavium_home: Path, round_: int
) -> None:
    store = RunStore.open(relavium_home)
    runs = [f"run-{round_}-{i}" for i in range(RECORDERS)]
    for i, run_id in enumerate(runs):
        store.run_started(RunInfo(run_id, "wf", None, "wf.relavium.yaml", 1000.0 + i))
    done = threading.Event()

    def recorder(run_id: str) -> Callable[[], None]:
        def body() -> None:
            for seq in range(EVENTS_PER_RECORDER):
                store.record({"type": "agent:token", "runId": run_id, "sequenceNumber": seq,
                              "timestamp": "t", "text": "x" * 20})
        return body

    def flusher() -> None:
        while not done.is_set():
            store.flush()

    def checkpointer() -> None:
        n = 0
        while not done.is_set():
            store.checkpoint(runs[n % len(runs)], {"nextSeq": n}, "running")
            n += 1

    def reader() -> None:
        while not done.is_set():
            store.list_runs()
            store.get_run(runs[0])

    recorders = [recorder(r) for r in runs]

    def recorders_then_stop() -> None:
        errors = _run_threads(recorders)
        done.set()
        if errors:
            raise errors[0]

    errors = _run_threads([recorders_then_stop, flusher, flusher, checkpointer, reader])
    assert errors == [], errors
    store.close()

    conn = sqlite3.connect(history_db_path(relavium_home))
    for run_id in runs:
        seqs = [r[0] for r in conn.execute("SELECT seq FROM run_events WHERE run_id = ? ORDER BY seq", (run_id,))]
        assert seqs == list(range(EVENTS_PER_RECORDER)), f"{run_id}: {EVENTS_PER_RECORDER - len(seqs)} events lost"
    conn.close()


class _SlowClearList(list):  # type: ignore[type-arg]
    """A buffer whose ``clear()`` lingers, widening the window between a flush's copy and its clear."""

    def clear(self) -> None:
        time.sleep(0.0005)
        super().clear()


def test_an_event_recorded_while_a_flush_empties_the_buffer_is_not_lost(relavium_home: Path) -> None:
    """record() must not touch the buffer while a flush is taking it (it lost events before the lock)."""
    store = RunStore.open(relavium_home)
    store.run_started(RunInfo("r", "wf", None, "wf.relavium.yaml", 1.0))
    store._buffer = _SlowClearList()
    done = threading.Event()
    total = 3000

    def recorder() -> None:
        for seq in range(total):
            store.record({"type": "agent:token", "runId": "r", "sequenceNumber": seq, "timestamp": "t"})
        done.set()

    def flusher() -> None:
        while not done.is_set():
            store.flush()

    assert _run_threads([recorder, flusher]) == []
    assert [e["sequenceNumber"] for e in store.events("r")] == list(range(total))
    store.close()


def test_first_opens_from_many_connections_migrate_once(tmp_path: Path) -> None:
    """Processes opening an old (here: new) history.db at once apply each migration exactly once."""
    from relavium_desktop.host.fs.preview import HOST_GRANT_PATHS
    from relavium_desktop.store.grants import GrantStore
    from relavium_desktop.store.sessions import SqliteSessionStore

    path = history_db_path(tmp_path)
    conns = [open_db(path) for _ in range(6)]

    def opener(conn: sqlite3.Connection) -> Callable[[], None]:
        def body() -> None:
            RunStore(conn)
            SqliteSessionStore(conn)
            GrantStore(conn, HOST_GRANT_PATHS)
        return body

    assert _run_threads([opener(c) for c in conns]) == []
    versions = dict(conns[0].execute("SELECT component, version FROM schema_versions").fetchall())
    assert versions == {"runs": len(RUN_MIGRATIONS), "sessions": len(SESSION_MIGRATIONS), "grants": 1, "folder_grants": 1}
    for c in conns:
        c.close()


def test_concurrent_finish_and_record_on_other_runs(relavium_home: Path) -> None:
    """finished() writes the run row and the remaining events in one transaction while others record."""
    store = RunStore.open(relavium_home)
    runs = [f"fin-{i}" for i in range(RECORDERS)]
    for i, run_id in enumerate(runs):
        store.run_started(RunInfo(run_id, "wf", None, "wf.relavium.yaml", 2000.0 + i))

    def life(run_id: str) -> Callable[[], None]:
        def body() -> None:
            for seq in range(EVENTS_PER_RECORDER):
                store.record({"type": "node:started", "runId": run_id, "sequenceNumber": seq, "timestamp": "t"})
                if seq % 300 == 299:
                    store.checkpoint(run_id, {"nextSeq": seq + 1}, "running")
            store.finished(run_id, "completed", {"durationMs": 5, "totalTokensUsed": {"input": 1, "output": 2}})
        return body

    assert _run_threads([life(r) for r in runs]) == []
    for run_id in runs:
        assert [e["sequenceNumber"] for e in store.events(run_id)] == list(range(EVENTS_PER_RECORDER))
        row = store.get_run(run_id)
        assert row is not None and (row["status"], row["input_tokens"], row["output_tokens"]) == ("completed", 1, 2)
    store.close()


def test_session_store_shared_between_threads(relavium_home: Path) -> None:
    from relavium_desktop.engine.llm.messages import Message
    from relavium_desktop.store.sessions import SqliteSessionStore

    store = SqliteSessionStore(open_db(history_db_path(relavium_home)))
    sessions = [store.create(title=f"s{i}", agent_id="a", mode="chat").id for i in range(RECORDERS)]
    per_thread = 150

    def writer(sid: str) -> Callable[[], None]:
        def body() -> None:
            for i in range(per_thread):
                store.append_message(sid, Message.user(f"hello {i}"))
                store.list_sessions()
                store.messages(sid)
        return body

    assert _run_threads([writer(s) for s in sessions]) == []
    for sid in sessions:
        assert [m.text for m in store.messages(sid)] == [
            f"hello {i}" for i in range(per_thread)]


def test_write_tx_commits_or_rolls_back(tmp_path: Path) -> None:
    conn = open_db(tmp_path / "t.db")
    conn.execute("CREATE TABLE t (x INTEGER UNIQUE)")
    with write_tx(conn):
        conn.execute("INSERT INTO t VALUES (1)")
    with pytest.raises(sqlite3.IntegrityError), write_tx(conn):
        conn.execute("INSERT INTO t VALUES (2)")
        conn.execute("INSERT INTO t VALUES (1)")
    with pytest.raises(KeyboardInterrupt), write_tx(conn):
        conn.execute("INSERT INTO t VALUES (3)")
        raise KeyboardInterrupt
    assert not conn.in_transaction
    assert [r[0] for r in conn.execute("SELECT x FROM t")] == [1]
