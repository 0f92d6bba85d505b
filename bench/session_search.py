"""Chat search over a large history.db: the narrow ``chat_search`` table against a column of chat_messages.

Builds a history through the real :class:`SqliteSessionStore` (default 300
chats of 40 turns: a user question, an assistant answer, and every other
turn a tool call whose result is 8 kB of file content, as a chat that reads
files has) and times ``store.search`` for a word that occurs nowhere (the
whole index is scanned) and one that occurs in a few chats.

The baseline, measured in the same run on the same database, is the first
layout (migration 4): the same case-folded text as the last column of
chat_messages, which a scan reaches only by walking each row's parts_json
overflow pages.  The bench fills that column itself; the store no longer does.

    .venv/bin/python bench/session_search.py [--chats 300] [--turns 40] [--runs 7]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from relavium_desktop.engine.llm.messages import Message, TextPart, ToolCallPart, ToolResultPart
from relavium_desktop.store.db import history_db_path, open_db, write_tx
from relavium_desktop.store.sessions import SqliteSessionStore, searchable_text

WORDS = ["pricing", "module", "discount", "total", "refund", "invoice", "customer", "report", "test", "failure",
         "import", "function", "return", "value", "error", "branch", "merge", "deploy", "staging", "config"]


def sentence(i: int, n: int) -> str:
    return " ".join(WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(n))


def build(home: Path, chats: int, turns: int) -> SqliteSessionStore:
    store = SqliteSessionStore(open_db(history_db_path(home)))
    file_content = ("def total(items):\n    return sum(i.price for i in items)\n" * 160)[:8000]
    for c in range(chats):
        sid = store.create(title=f"chat {c}", agent_id="chat", mode="auto").id
        for t in range(turns):
            store.append_message(sid, Message.user(sentence(c + t, 30) + "?"))
            if t % 2:
                store.append_message(sid, Message("assistant", (ToolCallPart(f"c{t}", "read_file",
                                                                             {"path": "src/pricing.py"}),)))
                store.append_message(sid, Message("tool", (ToolResultPart(f"c{t}", "read_file", file_content),)))
            rare = " zeppelin" if c % 50 == 0 and t == turns // 2 else ""
            store.append_message(sid, Message("assistant", (TextPart(sentence(c * t, 120) + rare),)))
    return store


def fill_baseline_column(store: SqliteSessionStore) -> None:
    conn = store._conn  # the bench builds the old layout beside the new one
    rows = conn.execute("SELECT session_id, seq, role, parts_json FROM chat_messages").fetchall()
    with write_tx(conn):
        conn.executemany(
            "UPDATE chat_messages SET search_text = ? WHERE session_id = ? AND seq = ?",
            [(searchable_text(Message.from_json({"role": r["role"], "parts": json.loads(r["parts_json"])})),
              r["session_id"], r["seq"]) for r in rows])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chats", type=int, default=300)
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        t0 = time.perf_counter()
        store = build(home, args.chats, args.turns)
        fill_baseline_column(store)
        conn = store._conn
        messages = conn.execute("SELECT COUNT(*) FROM chat_messages").fetchone()[0]
        size = history_db_path(home).stat().st_size + (home / "history.db-wal").stat().st_size
        print(f"built {args.chats} chats, {messages} messages, {size / 1e6:.0f} MB "
              f"in {time.perf_counter() - t0:.1f}s")

        def column_scan(word: str) -> Callable[[], object]:
            return lambda: conn.execute(
                "SELECT DISTINCT session_id FROM chat_messages WHERE instr(search_text, ?) > 0", (word,)).fetchall()

        def store_search(word: str) -> Callable[[], object]:
            return lambda: store.search(word)

        cases = {
            "baseline column, absent word": column_scan("quasar"),
            "chat_search, absent word": store_search("quasar"),
            "baseline column, rare word": column_scan("zeppelin"),
            "chat_search, rare word": store_search("zeppelin"),
        }
        assert len(store.search("zeppelin")) == len(column_scan("zeppelin")()) > 0  # type: ignore[arg-type]
        times: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(args.runs):  # interleaved, so drift hits every case alike
            for name, fn in cases.items():
                start = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - start)
        med = {name: statistics.median(t) for name, t in times.items()}
        for name, value in med.items():
            print(f"{name:32s} median {value * 1000:8.1f} ms")
        for word in ("absent word", "rare word"):
            ratio = med[f"chat_search, {word}"] / med[f"baseline column, {word}"]
            print(f"ratio chat_search / baseline ({word}) {ratio:5.2f}x")


if __name__ == "__main__":
    main()
