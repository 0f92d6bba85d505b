"""Salvage what is still readable from a damaged history.db into a fresh one.

Two ways, best first: SQLite's own ``.recover`` (the ``sqlite3`` command-line
shell, when installed and built with it: it reads page by page and keeps rows
a damaged index or b-tree would hide), else a copy table by table, row by row,
in Python (the idea of ``iterdump``, but one unreadable table does not end the
rest: each keeps the rows read before its damage).  The damaged file is only
ever read; the result is written to a new file and checked before it is put
in place, so a failed recovery leaves nothing half-made behind.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

RECOVER_TIMEOUT_S = 300.0


@dataclass(frozen=True, slots=True)
class Recovery:
    """What a recovery put at ``target``: by which ``method``, and how many rows of the chats it kept."""

    target: Path
    method: str  # "sqlite3 .recover" or "table copy"
    sessions: int
    messages: int


class RecoveryFailed(Exception):
    """Nothing usable could be read from the damaged file; the message says why."""


def recover(damaged: Path, target: Path, *, sqlite_cli: str | None = None) -> Recovery:
    """Salvage ``damaged`` into ``target`` (which must not exist); ``RecoveryFailed`` when nothing could be."""
    if target.exists():
        raise RecoveryFailed(f"{target.name} already exists")
    work = target.with_name(f".{target.name}.recovering")
    problems: list[str] = []
    cli = sqlite_cli if sqlite_cli is not None else shutil.which("sqlite3")
    attempts: list[tuple[str, Callable[[Path, Path, str], None]]] = (
        [("sqlite3 .recover", _with_cli)] if cli else []
    )
    attempts.append(("table copy", _with_table_copy))
    for method, attempt in attempts:
        _remove(work)
        try:
            attempt(damaged, work, cli or "")
            sessions, messages = _check(work)
        except (sqlite3.Error, OSError, subprocess.SubprocessError, RecoveryFailed) as exc:
            problems.append(f"{method}: {exc}")
            continue
        os.chmod(work, 0o600)  # history.db is owner-only
        os.replace(work, target)
        return Recovery(target, method, sessions, messages)
    _remove(work)
    if not cli:
        problems.append("the sqlite3 command is not installed")
    raise RecoveryFailed("; ".join(problems) or "nothing could be read")


def _with_cli(damaged: Path, work: Path, cli: str) -> None:
    dumped = subprocess.run(
        [cli, "-readonly", str(damaged), ".recover"],
        capture_output=True,
        timeout=RECOVER_TIMEOUT_S,
        check=False,
    )
    if dumped.returncode != 0 or not dumped.stdout.strip():
        raise RecoveryFailed(_first_line(dumped.stderr) or "it produced nothing")
    loaded = subprocess.run(
        [cli, str(work)], input=dumped.stdout, capture_output=True, timeout=RECOVER_TIMEOUT_S, check=False
    )
    if loaded.returncode != 0:
        raise RecoveryFailed(_first_line(loaded.stderr) or "the recovered SQL did not load")


def _with_table_copy(damaged: Path, work: Path, cli: str) -> None:
    """Copy table by table, row by row: a damaged table keeps the rows before the damage, the others all theirs."""
    del cli  # the same shape as _with_cli
    src = sqlite3.connect(f"{damaged.as_uri()}?mode=ro", uri=True)
    dst = sqlite3.connect(work, isolation_level=None)
    kept_tables = 0
    try:
        schema = src.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' "
            "ORDER BY CASE type WHEN 'table' THEN 0 ELSE 1 END, name"
        ).fetchall()
        dst.execute("BEGIN")
        for kind, name, sql in schema:
            try:
                dst.execute(sql)
            except sqlite3.Error:
                continue
            if kind != "table":
                continue
            kept_tables += 1
            quoted = '"' + str(name).replace('"', '""') + '"'
            try:
                for row in src.execute(f"SELECT * FROM {quoted}"):  # a name from sqlite_master, quoted
                    marks = ",".join("?" * len(row))
                    with contextlib.suppress(sqlite3.Error):
                        dst.execute(f"INSERT INTO {quoted} VALUES ({marks})", row)
            except sqlite3.Error:
                pass  # this table cannot be read past here: keep its rows so far
        dst.execute("COMMIT")
    finally:
        src.close()
        dst.close()
    if kept_tables == 0:
        raise RecoveryFailed("no table could be read")


def _check(work: Path) -> tuple[int, int]:
    """The recovered file passes SQLite's integrity check; how many chat sessions and messages it holds."""
    conn = sqlite3.connect(work)
    try:
        verdict = conn.execute("PRAGMA integrity_check").fetchone()
        if verdict is None or verdict[0] != "ok":
            raise RecoveryFailed("the recovered file does not pass SQLite's integrity check")
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "schema_versions" not in tables:
            raise RecoveryFailed("the damaged file's own tables could not be read")
        sessions = (
            conn.execute("SELECT count(*) FROM chat_sessions").fetchone()[0]
            if "chat_sessions" in tables
            else 0
        )
        messages = (
            conn.execute("SELECT count(*) FROM chat_messages").fetchone()[0]
            if "chat_messages" in tables
            else 0
        )
        return int(sessions), int(messages)
    finally:
        conn.close()


def _remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            path.with_name(path.name + suffix).unlink()


def _first_line(data: bytes) -> str:
    text = data.decode("utf-8", "replace").strip()
    return text.splitlines()[0][:200] if text else ""
