"""Which media digests the app still refers to, for :meth:`MediaStore.gc`.

A reference is any ``media://sha256-<hex>`` string in history.db (chat
messages, tool events, run events, checkpoints -- every text column, so a
new table that stores handles is covered without touching this module) or
in a file under the runs directory.  Over-collecting only keeps an object
longer; under-collecting would delete something a transcript still shows,
so the scan is deliberately broad.
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

from relavium_desktop.host.media.handles import HANDLE_RE

_SCAN_CHUNK = 1024 * 1024
_OVERLAP = 80  # longer than a handle, so one split across two chunks is still seen


def collect_references(home: Path) -> set[str]:
    """Digests referenced from ``home``'s history.db and runs directory."""
    found: set[str] = set()
    db = home / "history.db"
    if db.is_file():
        found |= _from_db(db)
    runs = home / "runs"
    if runs.is_dir():
        for path in runs.rglob("*"):
            if path.is_file() and not path.is_symlink():
                found |= _from_file(path)
    return found


def _from_db(path: Path) -> set[str]:
    found: set[str] = set()
    conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        tables = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            quoted = '"' + table.replace('"', '""') + '"'
            columns = [row[1] for row in conn.execute(f"PRAGMA table_info({quoted})")]
            for column in columns:
                col = '"' + column.replace('"', '""') + '"'
                # Identifiers come from sqlite_master and are quoted; no user text is spliced in.
                text_col = f"CAST({col} AS TEXT)"
                query = f"SELECT {text_col} FROM {quoted} WHERE instr({text_col}, 'media://sha256-') > 0"
                with contextlib.suppress(sqlite3.DatabaseError):
                    for (text,) in conn.execute(query):
                        found.update(HANDLE_RE.findall(text or ""))
    finally:
        conn.close()
    return found


def _from_file(path: Path) -> set[str]:
    found: set[str] = set()
    tail = ""
    with contextlib.suppress(OSError), open(path, "rb") as fh:
        while chunk := fh.read(_SCAN_CHUNK):
            text = tail + chunk.decode("utf-8", "replace")
            found.update(HANDLE_RE.findall(text))
            tail = text[-_OVERLAP:]
    return found
