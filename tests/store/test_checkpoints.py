"""The checkpoints table: retention oldest-first, rows leaving with their chat or run, filters."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

from relavium_desktop.engine.llm.messages import Message
from relavium_desktop.engine.workflow.journal import RunInfo
from relavium_desktop.store.checkpoints import CheckpointRow, CheckpointStore
from relavium_desktop.store.db import history_db_path, open_db
from relavium_desktop.store.runs import RunStore
from relavium_desktop.store.sessions import SqliteSessionStore

ROW = CheckpointRow(
    id="cp-1",
    scope="run",
    scope_id="r1",
    kind="write",
    message_index=None,
    node_id="n",
    tool_call_id="c1",
    path="/p/a.txt",
    project="/p",
    before_sha256="a" * 64,
    before_handle="media://sha256-" + "a" * 64,
    after_sha256="b" * 64,
    bytes=100,
    lines_added=1,
    lines_removed=2,
    undoes=(),
    created_at=1000.0,
)


def _conn(tmp_path: Path) -> sqlite3.Connection:
    return open_db(history_db_path(tmp_path))


def test_retention_removes_the_oldest_until_the_bytes_fit(tmp_path: Path) -> None:
    store = CheckpointStore(_conn(tmp_path))
    for i in range(4):
        store.add(replace(ROW, id=f"cp-{i}", created_at=1000.0 + i, bytes=100))
    assert store.prune(max_age_s=1e9, max_bytes=250, now=2000.0) == ["cp-0", "cp-1"]
    assert [r.id for r in store.find()] == ["cp-2", "cp-3"]
    assert store.prune(max_age_s=999.5, max_bytes=10**9, now=2002.0) == ["cp-2"]
    assert store.handles() == {ROW.before_handle}


def test_rows_leave_with_their_chat_and_their_run(tmp_path: Path) -> None:
    conn = _conn(tmp_path)
    sessions = SqliteSessionStore(conn, owns_connection=False)
    runs = RunStore(conn, owns_connection=False)
    store = CheckpointStore(conn, owns_connection=False)
    session = sessions.create(title="Title", agent_id="agent", mode="confirm")
    sessions.append_message(session.id, Message.user("hello"))
    stored = store.add(replace(ROW, id="cp-chat", scope="chat", scope_id=session.id))
    assert stored.message_index == 0  # the newest stored message when the write happened
    runs.run_started(RunInfo("run-1", "wf", "Workflow", "wf.yaml", 1000.0))
    store.add(replace(ROW, id="cp-run", scope_id="run-1"))
    assert sessions.delete(session.id)
    assert store.get("cp-chat") is None and store.get("cp-run") is not None
    # No surface deletes a run today; when one does, its checkpoints go with it.
    with conn:
        conn.execute("DELETE FROM runs WHERE id = 'run-1'")
    assert store.get("cp-run") is None


def test_an_orphaned_chat_row_is_pruned_only_after_a_grace_period(tmp_path: Path) -> None:
    conn = _conn(tmp_path)
    SqliteSessionStore(conn, owns_connection=False)
    store = CheckpointStore(conn, owns_connection=False)
    store.add(replace(ROW, id="cp-new", scope="chat", scope_id="gone", created_at=9_000.0))
    store.add(replace(ROW, id="cp-old", scope="chat", scope_id="gone", created_at=1_000.0))
    assert store.prune(max_age_s=1e9, max_bytes=10**9, now=9_100.0) == ["cp-old"]


def test_find_filters_by_scope_message_and_call(tmp_path: Path) -> None:
    store = CheckpointStore(_conn(tmp_path))
    store.add(replace(ROW, id="a", scope="chat", scope_id="s", message_index=1))
    store.add(
        replace(
            ROW, id="b", scope="chat", scope_id="s", message_index=3, tool_call_id="c2", created_at=1001.0
        )
    )
    store.add(
        replace(ROW, id="u", scope="chat", scope_id="s", kind="undo", undoes=("a", "b"), created_at=1002.0)
    )
    assert [r.id for r in store.find(scope="chat", scope_id="s")] == ["a", "b"]
    assert [r.id for r in store.find(scope="chat", scope_id="s", since_message=2)] == ["b"]
    assert [r.id for r in store.find(tool_call_id="c2")] == ["b"]
    undo = store.find(kinds=("undo",))
    assert [(r.id, r.undoes) for r in undo] == [("u", ("a", "b"))]
