"""A window writes where its Application's paths say, never where the environment points.

The window's entry point decides the data folder once and hands it down
(``app.py`` -> ``run_app`` -> ``MainWindow(app=...)``); a module that still
read ``$RELAVIUM_HOME`` on its own would write to the other folder here.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from relavium_desktop.application.app import Application
from relavium_desktop.application.paths import AppPaths
from relavium_desktop.application.stores import session_store
from relavium_desktop.ui import app_settings as keys
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.ui.chat_driver import ROUTE, type_and_enter


def test_a_window_given_folder_a_writes_only_there_while_the_environment_names_b(
    make_window, folder_picker, project: Path, providers: None, llm_server: ScriptedLLMServer, qtbot,
    relavium_home: Path, tmp_path: Path,
) -> None:
    folder_b = relavium_home  # what RELAVIUM_HOME names in this test
    assert os.environ["RELAVIUM_HOME"] == str(folder_b)
    folder_a = tmp_path / "folder-a"
    folder_a.mkdir(mode=0o700)
    # The providers fixture wrote providers.yaml into B: it moves to A, so B starts empty.
    shutil.move(folder_b / "providers.yaml", folder_a / "providers.yaml")
    assert list(folder_b.iterdir()) == []

    window = make_window(app=Application(AppPaths(folder_a)))
    window.show()
    qtbot.waitExposed(window)
    folder_picker.answers.append(str(project))
    window.project_button.click()  # the project is remembered in the settings file
    view = window.chat_view
    qtbot.waitUntil(lambda: view.backend is not None)
    view.set_route(ROUTE)  # a picked model becomes the default model (defaults.json)
    llm_server.script(Reply.say("Kept in folder A."))
    with qtbot.waitSignal(view.turn_finished, timeout=15_000) as done:
        type_and_enter(qtbot, view, "Where is this chat kept?")
    assert done.args == ["completed"]
    window.context.settings.sync()

    settings_file = folder_a / keys.FILE_NAME
    assert os.path.realpath(project) in settings_file.read_text(encoding="utf-8")
    assert json.loads((folder_a / "defaults.json").read_text(encoding="utf-8"))["model"] == ROUTE
    store = session_store(folder_a)
    try:
        stored = store.list_sessions()
    finally:
        store.close()
    assert len(stored) == 1  # the chat, with its message, is in A's history.db
    assert sorted(p.name for p in folder_b.iterdir()) == []  # nothing of the window's landed in B
