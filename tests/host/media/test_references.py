"""References for gc come from what the app really stores: a chat message's media part, run files."""

from __future__ import annotations

from pathlib import Path

from relavium_desktop.engine.llm.messages import MediaPart, Message, TextPart
from relavium_desktop.host.media import MediaStore
from relavium_desktop.host.media.references import collect_references
from relavium_desktop.store.db import history_db_path, open_db
from relavium_desktop.store.sessions import SqliteSessionStore


def test_gc_keeps_what_a_chat_or_a_run_refers_to(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    media = MediaStore(home / "media")
    in_chat, in_run, orphan = (media.publish_bytes(f"image {i}".encode(), "image/png") for i in range(3))

    sessions = SqliteSessionStore(open_db(history_db_path(home)))
    sid = sessions.create(title="pictures", agent_id="a", mode="chat").id
    sessions.append_message(sid, Message("user", (TextPart("look"), MediaPart(in_chat.handle, "image/png"))))
    runs = home / "runs" / "r1"
    runs.mkdir(parents=True)
    # A handle split across the scanner's chunk boundary is still found.
    (runs / "events.jsonl").write_text("x" * (1024 * 1024 - 20) + f'{{"media": "{in_run.handle}"}}\n')

    referenced = collect_references(home)
    assert {in_chat.sha256, in_run.sha256} <= referenced and orphan.sha256 not in referenced
    result = media.gc(referenced, min_age_s=0)
    assert result["removed"] == [orphan.sha256]
    assert sorted(media.list()) == sorted([in_chat.sha256, in_run.sha256])


def test_no_history_means_no_references(tmp_path: Path) -> None:
    assert collect_references(tmp_path) == set()
