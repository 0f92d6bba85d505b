"""Shared by the kill -9 chat tests (CLI and app): read a child's streamed answer, kill it, read what was kept.

A plain module (not a test module) so the CLI and the UI tests share it
without importing each other's tests.
"""

from __future__ import annotations

import os
import random
import re
import signal
import sqlite3
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from relavium_desktop.store.db import history_db_path, open_db
from relavium_desktop.store.sessions import SqliteSessionStore

# Saves come at most about a second apart; what was on screen this long before the kill is kept.
KEPT_WITHIN_S = 1.6


@dataclass
class Streamed:
    """A child's stdout as it arrived: (monotonic time, text so far)."""

    proc: subprocess.Popen[bytes]
    seen: list[tuple[float, str]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> Streamed:
        threading.Thread(target=self._read, daemon=True).start()
        return self

    def _read(self) -> None:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        text = ""
        while True:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                return
            if not chunk:
                return
            text += chunk.decode("utf-8", "replace")
            with self._lock:
                self.seen.append((time.monotonic(), text))

    def text(self) -> str:
        with self._lock:
            return self.seen[-1][1] if self.seen else ""

    def text_at(self, when: float) -> str:
        with self._lock:
            before = [t for at, t in self.seen if at <= when]
        return before[-1] if before else ""

    def wait_for(self, needle: str, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while needle not in self.text():
            assert self.proc.poll() is None, f"the child ended early: {self.text()!r}"
            assert time.monotonic() < deadline, f"never saw {needle!r}: {self.text()!r}"
            time.sleep(0.01)


def session_of(text: str) -> str:
    match = re.search(r"session ([0-9a-f]{16})", text)
    assert match, text
    return match.group(1)


def kill_mid_answer(streamed: Streamed, rng: random.Random, first_word: str) -> tuple[float, float]:
    """SIGKILL the child at a random moment while its answer streams: (when the answer began, the kill)."""
    streamed.wait_for(first_word)
    began = time.monotonic()
    time.sleep(rng.uniform(0.3, 3.0))
    killed_at = time.monotonic()
    streamed.proc.send_signal(signal.SIGKILL)
    streamed.proc.wait(30)
    return began, killed_at


def shown_answer(output: str, first_word: str) -> str:
    """The part of the output that is the answer (from its first word on)."""
    index = output.find(first_word)
    return output[index:] if index >= 0 else ""


def check_kept(
    home: Path, session_id: str, question: str, answer: str, *, shown_before: str, streamed_for_s: float
) -> str:
    """history.db is intact, the question is kept, the partial answer is kept and marked cut off.

    ``shown_before`` is what was on screen :data:`KEPT_WITHIN_S` before the
    kill: the kept answer covers at least that.  An answer that streamed for
    half a second or more is never lost whole.
    """
    raw = sqlite3.connect(history_db_path(home))
    try:
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        raw.close()
    store = SqliteSessionStore(open_db(history_db_path(home)))
    try:
        messages = store.messages(session_id)  # the dead process's draft is kept as a cut-off answer
        assert messages and messages[0].role == "user" and messages[0].text == question
        roles = [m.role for m in messages]
        assert roles in (["user"], ["user", "assistant"]), roles
        kept = messages[1].text if len(messages) == 2 else ""
        assert store.cut_off_indexes(session_id) == ({1} if kept else set())
        assert store.partial(session_id) is None  # nothing left half-kept
    finally:
        store._conn.close()
    assert answer.startswith(kept), kept  # what the model said, never more
    assert len(kept) >= len(shown_before.rstrip()), (kept, shown_before)  # at most ~1 s of it lost
    if streamed_for_s >= 0.5:
        assert kept, "an answer on screen for half a second was lost"
    return kept
