"""history.db under faults: each failure is a StorageError naming the file and the cause.

Real faults only: random bytes over the file, pages overwritten in the middle,
a lock held by another process, a read-only and a full file system (a real
tmpfs, remounted read-only or filled to ENOSPC).
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from relavium_desktop.engine.llm.messages import Message
from relavium_desktop.host.history_recovery import RecoveryFailed, recover
from relavium_desktop.store.db import (
    StorageError,
    check_history,
    history_db_path,
    move_aside,
    open_db,
    storage_error,
    write_tx,
)
from relavium_desktop.store.sessions import SqliteSessionStore
from tests.fixtures.small_disk import SmallDisk, small_disk  # noqa: F401 -- the fixture


def _store(home: Path) -> SqliteSessionStore:
    return SqliteSessionStore(open_db(history_db_path(home)))


def _with_chats(home: Path, count: int = 30) -> None:
    store = _store(home)
    for i in range(count):
        info = store.create(title=f"chat {i}", agent_id="chat", mode="confirm")
        store.append_message(info.id, Message.user(f"question {i} " + "words " * 150))
    conn = store._conn
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the rows in the main file, where the damage goes
    conn.close()


def test_random_bytes_are_named_as_not_a_database_and_left_as_they_are(tmp_path: Path) -> None:
    path = history_db_path(tmp_path)
    data = os.urandom(8192)
    path.write_bytes(data)
    with pytest.raises(StorageError) as caught:
        open_db(path)
    assert caught.value.kind == "corrupt"
    assert caught.value.describe() == f"history.db is not a database or is damaged ({path})"
    assert path.read_bytes() == data
    assert check_history(path) is not None


def test_damage_inside_is_found_by_the_check_and_recovered_around(tmp_path: Path) -> None:
    _with_chats(tmp_path)
    path = history_db_path(tmp_path)
    size = path.stat().st_size
    with open(path, "r+b") as f:
        f.seek((size // 4096 // 2) * 4096)
        f.write(os.urandom(8192))
    problem = check_history(path)
    assert problem is not None and problem.kind == "corrupt"

    kept = move_aside(path)
    assert kept.name.startswith("history.db.corrupt-") and not path.exists()
    done = recover(kept, path)
    assert done.sessions == 30 and 0 < done.messages < 30  # the damaged pages held some messages
    assert check_history(path) is None
    store = _store(tmp_path)
    assert len(store.list_sessions()) == 30
    store._conn.close()
    assert kept.exists()  # the damaged file stays for the user


def test_recovery_of_a_file_with_no_readable_table_fails_and_leaves_nothing(tmp_path: Path) -> None:
    damaged = tmp_path / "history.db.corrupt-x"
    damaged.write_bytes(os.urandom(8192))
    target = history_db_path(tmp_path)
    with pytest.raises(RecoveryFailed):
        recover(damaged, target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["history.db.corrupt-x"]


def test_a_lock_held_by_another_process_is_named(tmp_path: Path) -> None:
    path = history_db_path(tmp_path)
    open_db(path).close()
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sqlite3, sys, time\n"
         f"c = sqlite3.connect({str(path)!r}, isolation_level=None)\n"
         "c.execute('BEGIN EXCLUSIVE')\nprint('locked', flush=True)\ntime.sleep(60)\n"],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        conn = open_db(path)
        conn.execute("PRAGMA busy_timeout=200")  # the app waits 10 s; the answer is the same
        with pytest.raises(StorageError) as caught, write_tx(conn):
            pass
        assert caught.value.kind == "locked"
        assert caught.value.describe() == f"history.db is locked by another program ({path})"
        conn.close()
        started = time.monotonic()
        problem = check_history(path)  # what the window asks, on its own thread: a short wait, then the answer
        assert problem is not None and problem.kind == "locked"
        assert time.monotonic() - started < 8
    finally:
        holder.kill()
        holder.wait()


def test_a_full_disk_refuses_the_write_whole_and_says_so(small_disk: SmallDisk) -> None:  # noqa: F811
    home = small_disk.root / "home"
    store = _store(home)
    info = store.create(title="kept", agent_id="chat", mode="confirm")
    store.append_message(info.id, Message.user("before the disk filled"))
    small_disk.fill()
    with pytest.raises(StorageError) as caught:
        store.append_message(info.id, Message.user("x" * 200_000))
    assert caught.value.kind == "full"
    assert caught.value.describe() == f"cannot write history.db: the disk holding {home} is full"
    store._conn.close()
    problem = check_history(history_db_path(home))
    assert problem is not None and problem.kind == "full"

    small_disk.free()
    assert check_history(history_db_path(home)) is None
    store = _store(home)
    assert [m.text for m in store.messages(info.id)] == ["before the disk filled"]
    assert store._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    store._conn.close()


def test_a_read_only_file_system_is_named(small_disk: SmallDisk) -> None:  # noqa: F811
    home = small_disk.root / "home"
    _store(home)._conn.close()
    done = subprocess.run(["mount", "-o", "remount,ro", str(small_disk.root)], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    try:
        problem = check_history(history_db_path(home))
        assert problem is not None and problem.kind == "readonly", problem
        assert "history.db" in problem.describe() and "read-only" in problem.describe()
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(small_disk.root)], check=False)


def test_a_constraint_error_is_the_callers_not_a_storage_error(tmp_path: Path) -> None:
    conn = open_db(history_db_path(tmp_path))
    conn.execute("CREATE TABLE t (k TEXT PRIMARY KEY)")
    conn.execute("INSERT INTO t VALUES ('a')")
    with pytest.raises(sqlite3.IntegrityError) as caught, write_tx(conn):
        conn.execute("INSERT INTO t VALUES ('a')")
    assert not isinstance(caught.value, StorageError)
    assert storage_error(caught.value, tmp_path / "history.db") is None
    conn.close()
