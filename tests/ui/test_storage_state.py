"""An unusable history.db is a state the window shows, with the actions that fix it.

Real files throughout: a history.db with random first bytes, one with pages
overwritten in the middle (the header still reads), a desktop-settings.ini
cut off mid-line.  The only double is the "open the data folder" call, which
would start the desktop's file manager.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from relavium_desktop.application.app import Application
from relavium_desktop.application.paths import AppPaths
from relavium_desktop.store.db import history_db_path
from relavium_desktop.ui import app_settings as keys
from relavium_desktop.ui.qt import Qt
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.fixtures.small_disk import SmallDisk, small_disk  # noqa: F401 -- the fixture
from tests.ui.chat_driver import ROUTE, finish, type_and_enter


class FolderOpenerDouble:
    """Stands in for the file manager (a test cannot look at one)."""

    def __init__(self) -> None:
        self.opened: list[Path] = []

    def __call__(self, folder: Path) -> None:
        self.opened.append(folder)


def _garbage_history(home: Path) -> bytes:
    data = os.urandom(16384)
    history_db_path(home).write_bytes(data)
    return data


def _history_with_chats(home: Path, count: int = 30) -> None:
    from relavium_desktop.application.stores import session_store
    from relavium_desktop.engine.llm.messages import Message

    store = session_store(home)
    for i in range(count):
        info = store.create(title=f"chat {i}", agent_id="chat", mode="confirm")
        store.append_message(info.id, Message.user(f"question {i} " + "words " * 150))
    conn = store._conn  # fold the WAL in so the damage below hits the main file
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def _damage_middle(path: Path) -> None:
    size = path.stat().st_size
    with open(path, "r+b") as f:
        f.seek((size // 4096 // 2) * 4096)
        f.write(os.urandom(4096 * 2))


def _kept(home: Path) -> list[Path]:
    """The damaged files moved aside (their -wal / -shm went along, under the same name)."""
    return sorted(p for p in home.glob("history.db.corrupt-*") if not p.name.endswith(("-wal", "-shm")))


def _shown(window, qtbot) -> None:
    window.show()
    qtbot.waitExposed(window)


def test_a_damaged_history_is_shown_with_its_actions_and_moving_it_aside_starts_fresh(
    make_window, qtbot, relavium_home: Path, providers: None, llm_server: ScriptedLLMServer,
) -> None:
    original = _garbage_history(relavium_home)
    opener = FolderOpenerDouble()
    window = make_window(open_folder=opener)
    _shown(window, qtbot)
    state = window.storage_state
    qtbot.waitUntil(state.isVisible)
    assert "history.db is not a database or is damaged" in state.detail.text()
    assert str(history_db_path(relavium_home)) in state.detail.text()
    for button in (state.open_button, state.retry_button, state.aside_button, state.recover_button):
        assert button.isVisible() and button.isEnabled()
    # The rest of the window still works: icons drawn, Settings opens.
    assert not window.nav.item(0).icon().isNull()
    window.show_settings()
    assert window.pages.currentWidget() is window.settings_view

    state.open_button.click()
    assert opener.opened == [relavium_home]
    state.retry_button.click()
    assert state.isVisible()  # still damaged

    # Typed text is not dropped: Enter keeps it in the composer and says why.
    window.nav.setCurrentRow(0)
    view = window.chat_view
    type_and_enter(qtbot, view, "keep this question")
    assert view.composer.toPlainText() == "keep this question"
    assert "Not sent" in view.status.text() and "history.db" in view.status.text()

    state.aside_button.click()
    qtbot.waitUntil(lambda: not state.isVisible())
    kept = _kept(relavium_home)
    assert len(kept) == 1 and kept[0].read_bytes() == original
    assert "kept as history.db.corrupt-" in state.outcome.text()

    # A working, empty app: the chat loads and a turn is saved to the new history.db.
    qtbot.waitUntil(lambda: view.backend is not None)
    assert view.backend.store.list_sessions() == []
    view.set_route(ROUTE)
    llm_server.script(Reply.say("Fresh start works."))
    view.send_button.click()
    assert finish(qtbot, view) == "completed"
    assert view.composer.toPlainText() == ""
    sessions = view.backend.store.list_sessions()
    assert len(sessions) == 1
    texts = [m.text for m in view.backend.store.messages(sessions[0].id)]
    assert texts == ["keep this question", "Fresh start works."]


def test_try_to_recover_keeps_what_is_readable_and_the_damaged_file(
    make_window, qtbot, relavium_home: Path,
) -> None:
    _history_with_chats(relavium_home)
    _damage_middle(history_db_path(relavium_home))
    window = make_window(open_folder=FolderOpenerDouble())
    _shown(window, qtbot)
    state = window.storage_state
    qtbot.waitUntil(state.isVisible)
    assert state.recover_button.isVisible()
    state.recover_button.click()
    qtbot.waitUntil(lambda: not state.isVisible(), timeout=30_000)
    assert "Recovered" in state.outcome.text()
    assert len(_kept(relavium_home)) == 1
    view = window.chat_view
    qtbot.waitUntil(lambda: view.backend is not None)
    # The sessions table was not hit: every chat is listed again, from a file SQLite calls sound.
    assert len(view.backend.store.list_sessions()) == 30
    conn = sqlite3.connect(history_db_path(relavium_home))
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()


def test_a_cut_off_settings_file_is_named_not_rewritten_and_its_backup_is_used(
    make_window, qtbot, relavium_home: Path, project: Path,
) -> None:
    settings = keys.ui_settings(relavium_home)  # a good file: its .bak is written once a start has painted
    settings.setValue(keys.KEY_PROJECT, str(project))
    settings.setValue(keys.KEY_WELCOME_DONE, "done")
    settings.sync()
    keys.keep_backup(keys.ui_settings(relavium_home))
    ini = relavium_home / keys.FILE_NAME
    assert (relavium_home / (keys.FILE_NAME + ".bak")).read_bytes() == ini.read_bytes()
    broken = ini.read_bytes() + b"\n[chat]\nmo"  # cut off mid-line
    ini.write_bytes(broken)

    from relavium_desktop.ui.shell import MainWindow

    window = MainWindow(folder_picker=lambda _parent, _start: None)
    qtbot.addWidget(window)
    _shown(window, qtbot)
    banner = window.settings_problems
    assert banner.isVisible()
    assert "desktop-settings.ini is damaged" in banner.label.text()
    assert "desktop-settings.ini.bak" in banner.label.text()
    assert window.context.project == os.path.realpath(project)  # from the last good copy
    window.context.set_mode("auto")
    window.close()
    window.context.close()
    assert ini.read_bytes() == broken  # never rewritten


def test_a_mode_change_on_a_full_disk_says_it_was_not_saved(
    make_window, qtbot, small_disk: SmallDisk, monkeypatch,  # noqa: F811 -- the fixture
) -> None:
    monkeypatch.setenv("RELAVIUM_HOME", str(small_disk.root))
    window = make_window(app=Application(AppPaths(small_disk.root)))
    _shown(window, qtbot)
    qtbot.waitUntil(lambda: window.context.grants is not None)
    small_disk.fill()
    before = (small_disk.root / keys.FILE_NAME).read_bytes()
    window.context.set_mode("auto" if window.context.mode != "auto" else "confirm")
    banner = window.settings_problems
    assert banner.isVisible()
    assert f"cannot save desktop-settings.ini: the disk holding {small_disk.root} is full" in banner.label.text()
    assert (small_disk.root / keys.FILE_NAME).read_bytes() == before  # whole: the old file, not half a new one
    small_disk.free()
    window.context.blockSignals(True)  # the unmount at teardown must not reach the window once the loop is gone
    window.close()
    window.context.close()


def test_a_disk_filling_mid_chat_shows_the_state_and_keeps_the_message(
    make_window, qtbot, small_disk: SmallDisk, monkeypatch, llm_server: ScriptedLLMServer,  # noqa: F811
    folder_picker, project: Path,
) -> None:
    import json

    from tests.ui.chat_driver import KEY

    home = small_disk.root / "home"
    home.mkdir()
    monkeypatch.setenv("RELAVIUM_HOME", str(home))
    monkeypatch.setenv("RELAVIUM_TEST_KEY", KEY)
    (home / "providers.yaml").write_text(json.dumps({"providers": {"scripted-openai": {
        "kind": "openai", "base_url": llm_server.base_url + "/v1", "api_key": "env:RELAVIUM_TEST_KEY",
        "allow_local": True}}}))
    window = make_window(app=Application(AppPaths(home)))
    _shown(window, qtbot)
    view = window.chat_view
    qtbot.waitUntil(lambda: view.backend is not None)
    view.set_route(ROUTE)
    llm_server.script(Reply.say("First answer."))
    type_and_enter(qtbot, view, "first question")
    assert finish(qtbot, view) == "completed"

    small_disk.fill()
    asked = len(llm_server.requests)
    view.composer.setPlainText("a question the disk cannot take " + "words " * 2000)  # typed, then Enter
    qtbot.keyClick(view.composer, Qt.Key.Key_Return)
    finish(qtbot, view)
    state = window.storage_state
    qtbot.waitUntil(state.isVisible)
    assert f"cannot write history.db: the disk holding {home} is full" in state.detail.text()
    assert not state.aside_button.isVisible()  # nothing is damaged: only room is missing
    assert view.composer.toPlainText().startswith("a question the disk cannot take")
    assert len(llm_server.requests) == asked  # the question could not be stored, so it was not sent

    small_disk.free()
    state.retry_button.click()
    assert not state.isVisible()
    llm_server.script(Reply.say("Stored now."))
    view.send_button.click()
    assert finish(qtbot, view) == "completed"
    texts = [m.text for m in view.backend.store.messages(view.session_id)]
    assert [t[:32] for t in texts] == ["first question", "First answer.", "a question the disk cannot take ",
                                       "Stored now."]
    # The tmpfs is unmounted at teardown; its folder watch must not reach the window once the loop is gone.
    window.context.blockSignals(True)


def test_the_window_names_the_same_file_the_store_opens() -> None:
    from relavium_desktop.ui.storage_state import HISTORY_FILE

    assert history_db_path(Path("/x")) == Path("/x") / HISTORY_FILE


def test_a_history_from_a_newer_version_is_shown_and_not_offered_for_moving(
    make_window, qtbot, relavium_home: Path,
) -> None:
    from relavium_desktop.store.db import open_db

    conn = open_db(history_db_path(relavium_home))
    conn.execute("INSERT INTO schema_versions(component, version) VALUES('sessions', 99)")
    conn.close()
    window = make_window(open_folder=FolderOpenerDouble())
    _shown(window, qtbot)
    state = window.storage_state
    qtbot.waitUntil(state.isVisible)
    assert "newer than this app understands" in state.detail.text()
    assert state.title.text() == "This history was written by a newer Relavium Desktop"
    assert not state.aside_button.isVisible() and not state.recover_button.isVisible()


def test_broken_settings_files_are_named_in_the_window_and_left_as_they_are(
    make_window, qtbot, relavium_home: Path,
) -> None:
    broken = {"providers.yaml": b"providers:\n  box: {kind: openai, base_url: htt",
              "mcp.yaml": b"servers: [", "plugins.yaml": b"enabled: [alpha, be"}
    for name, data in broken.items():
        (relavium_home / name).write_bytes(data)
    window = make_window()
    _shown(window, qtbot)
    banner = window.settings_problems
    qtbot.waitUntil(lambda: len(banner.lines) == 3)
    text = banner.label.text()
    assert "providers.yaml: not valid YAML" in text and "mcp.yaml: not valid YAML" in text
    assert "plugins.yaml" in text and "not valid YAML" in text
    assert banner.isVisible()
    banner.dismiss.click()
    assert not banner.isVisible()
    window.close()
    for name, data in broken.items():
        assert (relavium_home / name).read_bytes() == data, name


def test_what_counts_as_a_damaged_settings_file(tmp_path: Path) -> None:
    path = tmp_path / keys.FILE_NAME
    assert keys.ini_problem(path) is None  # absent: defaults, nothing to protect
    good = {
        b"[project]\nlast=/home/a b=c\n\n; comment\n# another\n[window]\ngeometry=@ByteArray(\\x1\\0)\n",
        b"\xef\xbb\xbf[chat]\r\nmode=auto\r\n",  # an editor's BOM and CRLF
        b"",
    }
    for data in good:
        path.write_bytes(data)
        assert keys.ini_problem(path) is None, data
    bad = {
        b"[chat]\nmode=auto\n[proj": "line 3 is not a [section] header",
        b"[chat]\nmo": "line 2 is not a key=value setting (the file may be cut off)",
        b"[chat]\nmode=\x00\x00": "it holds binary data, not settings text",
        b"[chat]\nmode=\xff\xfe\n": "it is not UTF-8 text",
        b"[chat]\n=value\n": "line 2 is not a key=value setting (the file may be cut off)",
    }
    for data, why in bad.items():
        path.write_bytes(data)
        assert keys.ini_problem(path) == why, data
