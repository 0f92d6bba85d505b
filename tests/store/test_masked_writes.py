"""history.db never stores a credential: every write's text is masked at the connection."""

from __future__ import annotations

from pathlib import Path

from relavium_desktop.engine.workflow.journal import RunInfo
from relavium_desktop.store.db import history_db_path, open_db
from relavium_desktop.store.runs import RunStore

KEY = "AKIAQ7WERTY8UIOP9ASD"
ANT = "sk-ant-api03-Zx9Cv8Bn7Mm6Ll5Kk4Jj3Hh2"


def _raw(home: Path) -> bytes:
    return b"".join(p.read_bytes() for p in home.glob("history.db*"))


def test_run_events_checkpoint_and_error_are_stored_masked(tmp_path: Path) -> None:
    store = RunStore.open(tmp_path)
    store.run_started(RunInfo("run-1", "wf", "Flow", "wf.yaml", 1.0))
    store.record({"type": "node:failed", "runId": "run-1", "sequenceNumber": 0,
                  "error": {"code": "tool_failed", "message": f"bad key {KEY}"}})
    store.checkpoint("run-1", {"inputs": {"who": ANT}, "nextSeq": 1}, "running")
    store.finished("run-1", "failed", {"error": {"code": "tool_failed", "message": f"cannot use {ANT[:20]}\n{ANT[20:]}"},
                                       "durationMs": 5})
    store.close()
    raw = _raw(tmp_path)
    for key in (KEY, ANT):
        for i in range(len(key) - 7):
            assert key[i:i + 8].encode() not in raw, key[i:i + 8]
    again = RunStore.open(tmp_path)
    assert again.events("run-1")[0]["error"]["message"] == "bad key ***"
    assert again.get_run("run-1")["error"]["message"] == "cannot use ***"  # type: ignore[index]
    again.close()


def test_reads_are_not_masked_and_plain_text_is_stored_as_is(tmp_path: Path) -> None:
    conn = open_db(history_db_path(tmp_path))
    conn.execute("CREATE TABLE t (v TEXT)")
    conn.execute("INSERT INTO t(v) VALUES (?)", ("plain words",))
    conn.executemany("INSERT INTO t(v) VALUES (?)", [(f"k={KEY}",), ("more",)])
    conn.execute("UPDATE t SET v = ? WHERE v = ?", (f"x {ANT}", "more"))
    rows = [r[0] for r in conn.execute("SELECT v FROM t ORDER BY rowid")]
    assert rows == ["plain words", "k=***", "x ***"]
    # A query's own parameters are compared as given (nothing masked on reads).
    assert conn.execute("SELECT count(*) FROM t WHERE v = ?", ("plain words",)).fetchone()[0] == 1
    conn.close()
