"""Chat sessions in a real history.db (SQLite, WAL) under the test's data dir."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from relavium_desktop.engine.agent.outcome import UsageRecord
from relavium_desktop.engine.llm.messages import Message, TextPart, ToolCallPart, ToolResultPart
from relavium_desktop.store.db import SchemaTooNewError, history_db_path, migrate, open_db
from relavium_desktop.store.sessions import MIGRATIONS, SqliteSessionStore

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4"


def store(home: Path) -> SqliteSessionStore:
    return SqliteSessionStore(open_db(history_db_path(home)))


def test_messages_round_trip_across_connections(relavium_home: Path) -> None:
    s = store(relavium_home)
    info = s.create(title="t", agent_id="a", mode="ask")
    msgs = [
        Message.user("read my notes"),
        Message("assistant", (TextPart("sure"), ToolCallPart("c1", "read_file", {"path": "notes.txt"}))),
        Message("tool", (ToolResultPart("c1", "read_file", "milk"),)),
        Message("assistant", (TextPart("milk"),)),
    ]
    for m in msgs:
        s.append_message(info.id, m)
    again = store(relavium_home)  # a fresh connection: the app restarted
    assert again.messages(info.id) == msgs
    assert again.get(info.id).message_count == 4  # type: ignore[union-attr]
    mode = sqlite3.connect(history_db_path(relavium_home)).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_tool_arguments_and_results_are_masked_and_bounded(relavium_home: Path) -> None:
    s = store(relavium_home)
    sid = s.create(title="t", agent_id="a", mode="ask").id
    s.append_message(sid, Message("assistant", (ToolCallPart("c", "http_request", {"url": "https://x",
                                                                                  "api_key": TOKEN}),)))
    s.append_message(sid, Message("tool", (ToolResultPart("c", "run_command", f"token={TOKEN} done\n" + "x" * 50_000),)))
    stored = s.messages(sid)
    assert stored[0].parts[0].args["api_key"] == "***"  # type: ignore[union-attr]
    result = stored[1].parts[0].content  # type: ignore[union-attr]
    assert TOKEN not in result and len(result) < 20_000 and "more characters" in result
    raw = history_db_path(relavium_home).read_bytes() + (relavium_home / "history.db-wal").read_bytes()
    assert TOKEN.encode() not in raw


def test_usage_and_cost_per_model(relavium_home: Path) -> None:
    s = store(relavium_home)
    sid = s.create(title="t", agent_id="a", mode="ask").id
    s.record_usage(sid, UsageRecord("openai", "gpt-4o-mini", 1000, 500, 0.00045))
    s.record_usage(sid, UsageRecord("openai", "gpt-4o-mini", 1000, 500, 0.00045))
    s.record_usage(sid, UsageRecord("local", "llama3", 10, 5, None))
    assert s.usage_by_model(sid) == [
        {"provider": "local", "model": "llama3", "inputTokens": 10, "outputTokens": 5, "costUsd": None},
        {"provider": "openai", "model": "gpt-4o-mini", "inputTokens": 2000, "outputTokens": 1000,
         "costUsd": pytest.approx(0.0009)},
    ]


def test_rename_delete_and_list(relavium_home: Path) -> None:
    s = store(relavium_home)
    a = s.create(title="first", agent_id="x", mode="ask").id
    b = s.create(title="second", agent_id="x", mode="auto").id
    s.append_message(a, Message.user("hi"))
    s.record_usage(a, UsageRecord("p", "m", 1, 1, None))
    assert s.rename(b, "renamed") and not s.rename("nope", "x")
    assert {i.title for i in s.list_sessions()} == {"first", "renamed"}
    assert s.delete(a) and not s.delete(a)
    assert [i.id for i in s.list_sessions()] == [b]
    conn = sqlite3.connect(history_db_path(relavium_home))
    assert conn.execute("SELECT COUNT(*) FROM chat_messages").fetchone()[0] == 0
    assert conn.execute("SELECT COUNT(*) FROM chat_usage").fetchone()[0] == 0


def test_a_newer_schema_is_refused(relavium_home: Path) -> None:
    store(relavium_home)
    conn = open_db(history_db_path(relavium_home))
    conn.execute("UPDATE schema_versions SET version = ? WHERE component = 'sessions'", (len(MIGRATIONS) + 1,))
    with pytest.raises(SchemaTooNewError, match="sessions"):
        store(relavium_home)


def test_an_older_history_db_loses_the_unread_tool_events_table_and_keeps_its_sessions(
    relavium_home: Path,
) -> None:
    conn = open_db(history_db_path(relavium_home))
    migrate(conn, "sessions", MIGRATIONS[:1])  # a history.db written before the table was dropped
    conn.execute("INSERT INTO chat_sessions(id, title, agent_id, mode, created_at, updated_at) "
                 "VALUES('s1', 'kept', 'a', 'ask', 0, 0)")
    conn.execute("INSERT INTO chat_tool_events(session_id, seq, type, tool_id, payload_json, created_at) "
                 "VALUES('s1', 0, 'agent:tool_call', 'read_file', '{}', 0)")
    s = store(relavium_home)
    assert [i.title for i in s.list_sessions()] == ["kept"]
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "chat_tool_events" not in tables and "chat_messages" in tables
    version = conn.execute("SELECT version FROM schema_versions WHERE component = 'sessions'").fetchone()[0]
    assert version == len(MIGRATIONS)


def test_sessions_stored_under_the_old_mode_names_keep_their_behaviour(relavium_home: Path) -> None:
    """``accept-edits`` asked before every edit before the modes were renamed: it is ``confirm`` now."""
    conn = open_db(history_db_path(relavium_home))
    migrate(conn, "sessions", MIGRATIONS[:2])  # a history.db from before the rename
    for sid, mode in (("s1", "accept-edits"), ("s2", "ask"), ("s3", "plan"), ("s4", "auto")):
        conn.execute("INSERT INTO chat_sessions(id, title, agent_id, mode, created_at, updated_at) "
                     "VALUES(?, ?, 'chat', ?, 0, 0)", (sid, sid, mode))
    s = store(relavium_home)
    assert {i.id: i.mode for i in s.list_sessions()} == {
        "s1": "confirm", "s2": "read-only", "s3": "read-only", "s4": "auto"}
    # Migrated once: a session created now under the new meaning keeps it.
    fresh = s.create(title="new", agent_id="chat", mode="accept-edits")
    assert store(relavium_home).get(fresh.id).mode == "accept-edits"


def _chat(s: SqliteSessionStore, title: str, *turns: Message) -> str:
    sid = s.create(title=title, agent_id="chat", mode="auto").id
    for m in turns:
        s.append_message(sid, m)
    return sid


def test_search_finds_a_chat_by_a_word_said_only_in_the_conversation(relavium_home: Path) -> None:
    s = store(relavium_home)
    pricing = _chat(s, "Pricing bug", Message.user("why is the total wrong?"),
                    Message("assistant", (TextPart("The discount is applied twice in Straße.py"),)))
    other = _chat(s, "Holiday plans", Message.user("Where should we go in May?"))
    assert [i.id for i in s.search("discount")] == [pricing]
    assert [i.id for i in s.search("DISCOUNT  is")] == [pricing]  # case and spacing do not matter
    assert [i.id for i in s.search("STRASSE")] == [pricing]  # Unicode case folding, not ASCII only
    assert [i.id for i in s.search("holiday")] == [other]  # the title counts too
    assert s.search("nowhere said") == []
    assert {i.id for i in s.search("  ")} == {pricing, other}  # an empty query lists every chat


def test_search_looks_at_masked_text_so_a_secret_cannot_be_found_by_its_value(relavium_home: Path) -> None:
    s = store(relavium_home)
    sid = _chat(s, f"check {TOKEN}", Message.user(f"is this token still valid: {TOKEN} ?"))
    assert s.search(TOKEN) == [] and s.search(TOKEN[4:20].lower()) == []
    assert [i.id for i in s.search("still valid")] == [sid]


def test_search_skips_tool_output_so_reading_a_file_does_not_match_every_word_in_it(relavium_home: Path) -> None:
    s = store(relavium_home)
    _chat(s, "notes", Message.user("read notes.txt"),
          Message("assistant", (ToolCallPart("c1", "read_file", {"path": "notes.txt"}),)),
          Message("tool", (ToolResultPart("c1", "read_file", "buy marzipan"),)))
    assert s.search("marzipan") == []
    assert len(s.search("notes.txt")) == 1


def test_chats_stored_before_search_existed_are_found_after_the_upgrade(relavium_home: Path) -> None:
    conn = open_db(history_db_path(relavium_home))
    migrate(conn, "sessions", MIGRATIONS[:3])  # a history.db from before search
    conn.execute("INSERT INTO chat_sessions(id, title, agent_id, mode, created_at, updated_at) "
                 "VALUES('s1', 'old chat', 'chat', 'auto', 0, 0)")
    conn.execute("INSERT INTO chat_messages(session_id, seq, role, parts_json, created_at) "
                 """VALUES('s1', 0, 'user', '[{"kind": "text", "text": "Ask about the Lighthouse"}]', 0)""")
    s = store(relavium_home)
    assert [i.id for i in s.search("lighthouse")] == ["s1"]
    s.append_message("s1", Message.user("and the harbour"))
    assert [i.id for i in store(relavium_home).search("HARBOUR")] == ["s1"]


def test_a_deleted_chat_leaves_nothing_searchable_behind(relavium_home: Path) -> None:
    s = store(relavium_home)
    sid = _chat(s, "gone", Message.user("the word zeppelin"))
    assert s.delete(sid) and s.search("zeppelin") == []
    conn = sqlite3.connect(history_db_path(relavium_home))
    assert conn.execute("SELECT COUNT(*) FROM chat_search").fetchone()[0] == 0


def test_words_indexed_in_the_column_of_migration_4_move_to_their_own_table(relavium_home: Path) -> None:
    conn = open_db(history_db_path(relavium_home))
    migrate(conn, "sessions", MIGRATIONS[:4])
    conn.execute("INSERT INTO chat_sessions(id, title, agent_id, mode, created_at, updated_at) "
                 "VALUES('s1', 'old chat', 'chat', 'auto', 0, 0)")
    conn.execute("INSERT INTO chat_messages(session_id, seq, role, parts_json, created_at, search_text) "
                 """VALUES('s1', 0, 'user', '[{"kind": "text", "text": "Kept"}]', 0, 'ask about the lighthouse')""")
    s = store(relavium_home)
    assert [i.id for i in s.search("lighthouse")] == ["s1"]
    assert conn.execute("SELECT search_text FROM chat_messages").fetchone()[0] is None
