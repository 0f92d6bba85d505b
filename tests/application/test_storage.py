"""application.storage: history.db's health and storage failures, said the same way for every surface.

On real files in a temporary data folder: a damaged history.db is named as
damaged, moved aside (kept) and checked again as usable; a full disk or a
SQLite error deep in a command's causes becomes one line naming the file.
"""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

import pytest

from relavium_desktop.application.paths import AppPaths
from relavium_desktop.application.storage import (
    StorageError,
    check_history,
    describe_storage_failure,
    move_history_aside,
    salvage_history,
)


def _damage(paths: AppPaths) -> None:
    paths.history_db.write_bytes(b"this is not a database, " * 200)


def test_a_damaged_history_is_named_moved_aside_and_the_next_check_is_clean(tmp_path: Path) -> None:
    paths = AppPaths(tmp_path)
    assert check_history(paths) is None  # a fresh folder: usable (and created)
    paths.history_db.unlink()
    _damage(paths)

    problem = check_history(paths)
    assert isinstance(problem, StorageError) and problem.kind == "corrupt"
    assert problem.describe() == f"history.db is not a database or is damaged ({paths.history_db})"

    kept = move_history_aside(paths)
    assert kept.parent == tmp_path and kept.name.startswith("history.db.corrupt-")
    assert kept.read_bytes().startswith(b"this is not a database")
    assert check_history(paths) is None


@pytest.mark.spawns  # salvage tries the sqlite3 command first when it is installed
def test_salvage_of_unreadable_bytes_fails_and_leaves_no_history_behind(tmp_path: Path) -> None:
    from relavium_desktop.application.storage import RecoveryFailed

    paths = AppPaths(tmp_path)
    _damage(paths)
    kept = move_history_aside(paths)
    with pytest.raises(RecoveryFailed):
        salvage_history(kept, paths)
    assert not paths.history_db.exists()


def test_a_full_disk_deep_in_a_commands_causes_is_one_line_naming_the_file(tmp_path: Path) -> None:
    full = OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "providers.yaml"))
    try:
        try:
            raise full
        except OSError as exc:
            raise RuntimeError("saving the provider failed") from exc
    except RuntimeError as wrapped:
        line = describe_storage_failure(wrapped, lambda: AppPaths(tmp_path))
    assert line == f"cannot write providers.yaml: the disk holding {tmp_path} is full"


def test_sqlite_errors_name_history_db_and_the_paths_are_asked_for_only_then(tmp_path: Path) -> None:
    asked: list[int] = []

    def paths_of() -> AppPaths:
        asked.append(1)
        return AppPaths(tmp_path)

    assert describe_storage_failure(ValueError("not storage"), paths_of) is None
    assert asked == []  # an unrelated error never chooses a data folder
    line = describe_storage_failure(sqlite3.DatabaseError("file is not a database"), paths_of)
    assert line == f"history.db is not a database or is damaged ({tmp_path / 'history.db'})"
    assert asked == [1]
