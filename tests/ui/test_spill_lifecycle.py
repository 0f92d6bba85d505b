"""Spilled tool output in the desktop app: per chat session, gone with the session, swept when old.

The chat runs against the scripted provider server on the real host in a
temporary project and ``$RELAVIUM_HOME`` (as ``test_chat_view.py`` does).
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from relavium_desktop.ui import app_settings as keys
from relavium_desktop.ui.qt import QSettings, Qt
from tests.fixtures.llm_server import Reply, ScriptedLLMServer

KEY = "sk-test-SPILLLIFE0123456789abcdefghijk"
ROUTE = "scripted-openai/gpt-4o-mini"
DAY = 86_400.0


@pytest.fixture
def chat(make_window, folder_picker, project: Path, relavium_home: Path, llm_server: ScriptedLLMServer,
         monkeypatch: pytest.MonkeyPatch, qtbot):
    monkeypatch.setenv("RELAVIUM_TEST_KEY", KEY)
    entries = {"providers": {"scripted-openai": {
        "kind": "openai", "base_url": llm_server.base_url + "/v1", "api_key": "env:RELAVIUM_TEST_KEY",
        "allow_local": True,
    }}}
    (relavium_home / "providers.yaml").write_text(json.dumps(entries))
    (project / "big.txt").write_text("\n".join(f"big line {i}" for i in range(5000)))
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    folder_picker.answers.append(str(project))
    window.project_button.click()
    view = window.chat_view
    qtbot.waitUntil(lambda: view.backend is not None)
    view.set_route(ROUTE)
    view.window().context.set_mode("accept-edits")
    return view


def _turn(qtbot, view, text: str) -> None:
    with qtbot.waitSignal(view.turn_finished, timeout=15_000):
        view.composer.setFocus()
        qtbot.keyClicks(view.composer, text)
        qtbot.keyClick(view.composer, Qt.Key.Key_Return)


def _tool_result(llm_server: ScriptedLLMServer) -> str:
    """The tool message the model got back in the latest request."""
    messages = llm_server.requests[-1].body["messages"]
    return str(next(m for m in reversed(messages) if m["role"] == "tool")["content"])


def test_a_session_reads_its_own_spills_not_another_sessions_and_delete_removes_them(
    chat, qtbot, llm_server: ScriptedLLMServer, relavium_home: Path
) -> None:
    runs = relavium_home / "runs"
    llm_server.script(Reply.call("read_file", {"path": "big.txt"}), Reply.say("It is big."))
    _turn(qtbot, chat, "Read big.txt")
    first = chat.session_id
    folder = runs / f"chat-{first}"
    spills = sorted(folder.iterdir())
    assert len(spills) == 1 and "big line 4999" in spills[0].read_text()
    spill = str(spills[0])
    assert spill in _tool_result(llm_server)  # the marker names it

    # The same session reads it back (the model follows the marker).
    llm_server.script(Reply.call("read_file", {"path": spill}), Reply.say("Read the rest."))
    _turn(qtbot, chat, "Read the rest")
    assert "big line 4999" in folder.joinpath(spills[0].name).read_text()
    assert "outside the allowed folders" not in _tool_result(llm_server)
    assert chat.transcript.cards()[-1].status == "done"

    # Another session may not.
    chat.sessions.new_button.click()
    llm_server.script(Reply.call("read_file", {"path": spill}), Reply.call("list_directory", {"path": str(runs)}),
                      Reply.say("Not allowed."))
    _turn(qtbot, chat, "Peek at the other chat")
    second = chat.session_id
    assert second != first
    cards = chat.transcript.cards()
    assert [c.status for c in cards] == ["failed", "failed"]
    sent = json.dumps([r.body for r in llm_server.requests[-2:]])
    refusals = [str(m["content"]) for m in llm_server.requests[-1].body["messages"] if m["role"] == "tool"]
    assert len(refusals) == 2 and all("outside the allowed folders" in r for r in refusals), refusals
    assert "big line 4999" not in sent

    # Deleting the first session removes its folder (the host does it, off the UI thread).
    chat.sessions.select(first)
    chat.sessions.delete_button.click()
    chat.delete_dialog.delete_button.click()
    assert chat.backend.store.get(first) is None
    qtbot.waitUntil(lambda: not folder.exists(), timeout=5_000)
    assert chat.discarding is not None
    qtbot.waitUntil(chat.discarding.done, timeout=5_000)
    assert chat.discarding.exception() is None


def test_delete_asks_the_host_to_remove_the_sessions_spills(
    chat, qtbot, relavium_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from relavium_desktop.host import output_store

    calls: list[tuple[Path, str, bool]] = []
    real = output_store.remove_chat_spills

    def recording(home: Path, session_id: str) -> bool:
        calls.append((home, session_id, threading.current_thread() is threading.main_thread()))
        return real(home, session_id)

    monkeypatch.setattr(output_store, "remove_chat_spills", recording)
    info = chat.backend.store.create(title="Old chat", agent_id="chat", mode="ask")
    folder = relavium_home / "runs" / f"chat-{info.id}"
    folder.mkdir(parents=True)
    (folder / "x.txt").write_text("spilled")
    chat.refresh_sessions()
    chat.delete_session(info.id)
    chat.delete_dialog.delete_button.click()
    qtbot.waitUntil(lambda: bool(calls) and not folder.exists(), timeout=5_000)
    assert calls == [(relavium_home, info.id, False)]


# -- the start-up sweep -------------------------------------------------------------

def _old_folder(home: Path, name: str, age: float) -> Path:
    folder = home / "runs" / name
    folder.mkdir(parents=True)
    (folder / "out.txt").write_text("old")
    when = time.time() - age
    for path in (folder / "out.txt", folder):
        os.utime(path, (when, when))
    return folder


def test_startup_sweeps_after_first_paint_in_a_worker_thread(
    make_window, qtbot, relavium_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from relavium_desktop.host import output_store

    settings = QSettings(str(relavium_home / keys.FILE_NAME), QSettings.Format.IniFormat)
    settings.setValue(keys.KEY_SPILL_RETENTION_DAYS, 2)
    old = _old_folder(relavium_home, "run-old", 3 * DAY)
    recent = _old_folder(relavium_home, "run-recent", 1 * DAY)
    seen: list[dict[str, Any]] = []
    real = output_store.sweep_spills

    window = make_window(settings=settings)

    def recording(home: Path, older_than: float, **kw: Any) -> list[str]:
        seen.append({"ui_thread": threading.current_thread() is threading.main_thread(),
                     "painted": window._painted, "home": home, "older_than": older_than})
        return real(home, older_than, **kw)

    monkeypatch.setattr(output_store, "sweep_spills", recording)
    qtbot.wait(50)
    assert window.spill_sweep is None and not seen  # nothing before the window is on screen
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.spill_sweep is not None and not window.spill_sweep.is_alive(), timeout=5_000)
    assert seen == [{"ui_thread": False, "painted": True, "home": relavium_home, "older_than": 2 * DAY}]
    assert not old.exists() and recent.is_dir()


def test_a_zero_retention_keeps_everything(make_window, qtbot, relavium_home: Path) -> None:
    settings = QSettings(str(relavium_home / keys.FILE_NAME), QSettings.Format.IniFormat)
    settings.setValue(keys.KEY_SPILL_RETENTION_DAYS, 0)
    old = _old_folder(relavium_home, "run-old", 300 * DAY)
    window = make_window(settings=settings)
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.tray is not None, timeout=5_000)  # after_first_paint ran
    assert window.spill_sweep is None and old.is_dir()
    settings.setValue(keys.KEY_SPILL_RETENTION_DAYS, "not a number")
    assert keys.read_retention_days(settings) == keys.DEFAULT_SPILL_RETENTION_DAYS
