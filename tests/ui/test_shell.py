"""The main window shell: navigation, project and mode, persistence, tray, single instance."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from relavium_desktop.ui import app_settings as keys
from relavium_desktop.ui.qt import QSize, Qt
from relavium_desktop.ui.shell import NAV_CHAT, NAV_RUNS, NAV_SETTINGS, NAV_WORKFLOWS
from relavium_desktop.ui.single_instance import InstanceServer, server_name
from relavium_desktop.ui.theme.palette import DARK, LIGHT
from relavium_desktop.ui.tray import Tray, TrayState, state_icon


def test_window_shows_navigation_project_and_mode(make_window, qtbot) -> None:
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    nav = [window.nav.item(i) for i in range(window.nav.count())]
    assert [i.text() for i in nav if not i.isHidden()] == ["Chats", "Workflows", "Activity", "Settings"]
    assert window.project_note.isVisible() and window.project_note.text() == "No project · tools off"
    assert not window.top_bar.tools_on.isVisible()
    assert window.mode_picker.text() == "Ask before acting"
    assert window.context.mode == keys.DEFAULT_MODE
    assert window.project_button.isVisible() and window.mode_picker.isVisible()
    window.nav.setCurrentRow(NAV_WORKFLOWS)
    assert window.pages.currentWidget() is window.workflows_view
    window.nav.setCurrentRow(NAV_RUNS)
    assert window.pages.currentWidget() is window.runs_view
    assert window.project_button.isVisible() and window.mode_picker.isVisible()
    window.nav.setCurrentRow(NAV_SETTINGS)
    assert window.pages.currentWidget() is window.settings_view
    assert window.project_button.isVisible() and window.mode_picker.isVisible()
    window.nav.setCurrentRow(NAV_CHAT)
    assert window.pages.currentIndex() == NAV_CHAT


def test_project_geometry_and_mode_are_restored_on_the_next_start(
    make_window, folder_picker, project: Path, qtbot
) -> None:
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    folder_picker.answers.append(str(project))
    with qtbot.waitSignal(window.context.project_changed):
        qtbot.mouseClick(window.project_button, Qt.MouseButton.LeftButton)
    assert folder_picker.calls == 1
    assert window.top_bar.project_name.text() == "project"
    assert window.top_bar.tools_on.isVisible() and not window.project_note.isVisible()
    assert window.project_button.toolTip() == os.path.realpath(project)
    window.context.set_mode("plan")  # an upstream id: stored as the mode it names
    window.resize(QSize(712, 534))
    window.close()

    again = make_window()
    assert again.context.project == os.path.realpath(project)
    assert again.top_bar.project_name.text() == "project"
    assert again.context.mode == "read-only"
    assert again.size() == QSize(712, 534)


def test_cancelled_folder_dialog_keeps_the_project(make_window, folder_picker, project: Path) -> None:
    window = make_window()
    window.context.set_project(str(project))
    folder_picker.answers.append(None)
    window.choose_project()
    assert window.context.project == os.path.realpath(project)


def test_a_removed_project_folder_is_not_restored(make_window, tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    window = make_window()
    window.context.set_project(str(gone))
    window.close()
    gone.rmdir()
    assert make_window().context.project == ""


def test_tray_states_and_menu(make_window, qtbot, qapp) -> None:
    window = make_window()
    tray = Tray(window, window.context.theme)
    images = {}
    for state in TrayState:
        tray.set_state(state)
        assert tray.state is state
        images[state] = tray.icon.icon().pixmap(32, 32).toImage()
    # Whichever source draws them (the app's identity icons or the painted badges), the states differ.
    assert images[TrayState.IDLE] != images[TrayState.WORKING] != images[TrayState.ATTENTION]
    assert images[TrayState.IDLE] != images[TrayState.ATTENTION]
    assert "attention" in tray.icon.toolTip()
    assert [a.text() for a in tray.menu.actions()] == ["Open", "Process what I copied", "Quit"]


def test_painted_tray_badges_follow_the_theme() -> None:
    """The fallback badges (no identity icon): drawn in the theme's accent while working."""
    light = state_icon(TrayState.WORKING, LIGHT).pixmap(32, 32).toImage()
    dark = state_icon(TrayState.WORKING, DARK).pixmap(32, 32).toImage()
    assert light.pixelColor(16, 4).name() == LIGHT["accent"]
    assert dark.pixelColor(16, 4).name() == DARK["accent"]


def test_tray_menu_actions_drive_the_window(make_window, qtbot, qapp) -> None:
    qapp.clipboard().setText("tray clipboard text")
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    window.after_first_paint()
    assert window.tray is not None
    window.hide()
    window.tray.open_action.trigger()
    assert window.isVisible()
    window.tray.clipboard_action.trigger()
    qtbot.waitUntil(lambda: window.quick_panel is not None and window.quick_panel.isVisible())
    assert window.quick_panel.text == "tray clipboard text"


def test_in_app_shortcut_opens_the_quick_panel(make_window, qtbot, qapp) -> None:
    qapp.clipboard().setText("shortcut text")
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    assert window.clipboard_shortcut.key().toString() == "Ctrl+Shift+V"
    qtbot.keyClick(window, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: window.quick_panel is not None and window.quick_panel.isVisible())
    assert window.quick_panel.text == "shortcut text"


def test_second_launch_with_process_clipboard_is_forwarded_to_the_running_app(
    make_window, qtbot, qapp, relavium_home: Path
) -> None:
    qapp.clipboard().setText("Meeting notes: ship v2 on Friday; Ana owns the release checklist.")
    window = make_window()
    server = InstanceServer(server_name(relavium_home))
    assert server.listen()
    server.command_received.connect(window.handle_instance_command)
    try:
        env = dict(os.environ, RELAVIUM_HOME=str(relavium_home), QT_QPA_PLATFORM="offscreen")
        proc = subprocess.Popen(
            [sys.executable, "-m", "relavium_desktop", "--process-clipboard"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        # The forwarding process must connect while this (first) instance keeps serving events.
        qtbot.waitUntil(lambda: proc.poll() is not None, timeout=30_000)
        assert proc.returncode == 0, proc.stderr.read().decode() if proc.stderr else ""
        qtbot.waitUntil(lambda: window.quick_panel is not None and window.quick_panel.isVisible())
        panel = window.quick_panel
        assert panel.text.startswith("Meeting notes: ship v2")
        assert "Meeting notes" in panel.preview.toPlainText()
        titles = [panel.action_list.item(i).text() for i in range(panel.action_list.count())]
        assert {"Summarize", "Explain", "Translate to English", "Turn into a checklist"} <= set(titles)
        assert window.isVisible()
    finally:
        server.close()


def test_instance_socket_ignores_unknown_commands(qtbot, qloop, relavium_home: Path) -> None:
    from relavium_desktop.ui.single_instance import forward_to_running

    server = InstanceServer(server_name(relavium_home))
    assert server.listen()
    got: list[str] = []
    server.command_received.connect(got.append)
    try:
        assert forward_to_running(server.name, "rm -rf /")
        assert forward_to_running(server.name, "show")
        qtbot.waitUntil(lambda: got == ["show"])
    finally:
        server.close()


def test_no_running_instance_means_no_forward(qloop, relavium_home: Path) -> None:
    from relavium_desktop.ui.single_instance import forward_to_running

    assert not forward_to_running(server_name(relavium_home), "show", timeout_ms=200)


def test_the_picker_offers_exactly_the_engine_chat_modes() -> None:
    from relavium_desktop.engine.agent.mode_ids import ChatMode
    from relavium_desktop.ui.mode_picker import ModePicker

    assert tuple(mode.value for mode in ChatMode) == keys.MODES
    assert tuple(ModePicker(keys.DEFAULT_MODE).actions_by_mode) == keys.MODES
    assert keys.DEFAULT_MODE in keys.MODES


def test_a_mode_saved_by_an_earlier_version_keeps_its_behaviour(make_window, relavium_home: Path) -> None:
    """``accept-edits`` was the old default and asked before every edit: that is "Ask before acting" now."""
    settings = keys.ui_settings(relavium_home)
    settings.setValue(keys.KEY_MODE, "accept-edits")
    settings.sync()
    window = make_window()
    assert window.context.mode == "confirm"
    window.context.set_mode("accept-edits")  # chosen under the new meaning: kept
    window.close()
    assert make_window().context.mode == "accept-edits"


def test_an_upstream_mode_id_in_the_settings_is_read_as_the_mode_it_names(make_window, relavium_home: Path) -> None:
    settings = keys.ui_settings(relavium_home)
    settings.setValue(keys.KEY_MODE, "ask")
    settings.sync()
    assert make_window().context.mode == "read-only"


def test_no_view_imports_the_shell() -> None:
    """Views get the AppContext and emit intents; only the shell knows the window."""
    ui = Path(keys.__file__).resolve().parent
    importers = sorted(
        str(path.relative_to(ui)) for path in ui.rglob("*.py")
        if path.name != "shell.py" and "relavium_desktop.ui.shell" in path.read_text(encoding="utf-8")
    )
    assert importers == []


def test_views_take_the_context_and_ask_the_window_through_intents(
    make_window, folder_picker, qtbot, project: Path
) -> None:
    window = make_window()
    chat = window.chat_view
    assert chat.context is window.context
    folder_picker.answers.append(str(project))
    chat.folder_offer.offer_project("read_file")
    with qtbot.waitSignal(chat.choose_project), qtbot.waitSignal(window.context.project_changed) as changed:
        chat.folder_offer.project_button.click()  # "Choose a project folder…" of the chat's offer bar
    assert folder_picker.calls == 1  # the window answered the intent with its folder dialog
    assert changed.args == [os.path.realpath(project)]
    assert window.project_button.toolTip() == os.path.realpath(project)
    with qtbot.waitSignal(window.context.mode_changed) as mode:
        window.context.set_mode("plan")
    assert mode.args == ["read-only"] and window.mode_picker.current_mode() == "read-only"


# -- one sidebar, the top bar, New chat (issue 23) -----------------------------------------


def _is_inside(widget, ancestor) -> bool:
    parent = widget
    while parent is not None:
        if parent is ancestor:
            return True
        parent = parent.parentWidget()
    return False


def test_one_sidebar_holds_new_chat_the_places_the_chat_list_and_settings(make_window, qtbot) -> None:
    from relavium_desktop.ui.theme.tokens import SIDEBAR_WIDTH, TOP_BAR_HEIGHT

    window = make_window()
    window.resize(1440, 900)
    window.show()
    qtbot.waitExposed(window)
    sidebar = window.sidebar
    assert sidebar.width() == SIDEBAR_WIDTH and sidebar.property("surface") == "sidebar"
    assert sidebar.brand.text() == "Relavium"
    assert sidebar.new_chat_label.text() == "New chat" and sidebar.new_chat_hint.text() == "Ctrl N"
    assert sidebar.new_chat_button.accessibleName() == "New chat (Ctrl+N)"
    # Words at the left, the key hint at the right end of the button.
    button = sidebar.new_chat_button
    assert sidebar.new_chat_label.geometry().left() < button.width() // 3
    assert sidebar.new_chat_hint.geometry().right() > button.width() * 2 // 3
    # The chat list is the sidebar's, not a second panel on the chat page.
    sessions = window.chat_view.sessions
    assert _is_inside(sessions, sidebar) and not _is_inside(sessions, window.pages)
    assert sessions.isVisible() and sessions.search_box.isVisible()
    # Icons come after the first paint; the places are top to bottom, Settings at the foot.
    qtbot.waitUntil(lambda: not window.nav.item(NAV_CHAT).icon().isNull())
    assert not sidebar.new_chat_icon.pixmap().isNull() and not window.top_bar.folder_icon.pixmap().isNull()
    tops = [window.nav.item(i).mapTo(sidebar, window.nav.item(i).rect().topLeft()).y() for i in range(4)]
    assert tops == sorted(tops) and tops[NAV_SETTINGS] > sessions.mapTo(sidebar, sessions.rect().topLeft()).y()
    assert window.top_bar.height() == TOP_BAR_HEIGHT
    # The top bar names the page; clicking a place (a real click) shows it and checks only it.
    assert window.top_bar.title.full_text() == "Chats"
    for row, title in ((NAV_WORKFLOWS, "Workflows"), (NAV_RUNS, "Activity"), (NAV_SETTINGS, "Settings")):
        qtbot.mouseClick(window.nav.item(row), Qt.MouseButton.LeftButton)
        assert window.nav.currentRow() == row
        assert [window.nav.item(i).isChecked() for i in range(4)] == [i == row for i in range(4)]
        assert window.top_bar.title.full_text() == title
    assert window.pages.currentWidget() is window.settings_view
    qtbot.mouseClick(window.nav.item(NAV_CHAT), Qt.MouseButton.LeftButton)
    assert window.pages.currentWidget() is window.chat_view


def test_new_chat_and_ctrl_n_start_an_empty_chat_and_the_top_bar_shows_the_open_chats_title(
    chat, qtbot, llm_server
) -> None:
    from tests.fixtures.llm_server import Reply
    from tests.ui.chat_driver import type_and_enter

    window = chat.window()
    llm_server.script(Reply.say("Hi."))
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000):
        type_and_enter(qtbot, chat, "Plan the release")
    first = chat.session_id
    assert first is not None
    qtbot.waitUntil(lambda: window.top_bar.title.full_text() == "Plan the release")
    window.nav.setCurrentRow(NAV_WORKFLOWS)
    assert window.top_bar.title.full_text() == "Workflows"
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    qtbot.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert window.pages.currentWidget() is chat and window.nav.currentRow() == NAV_CHAT
    assert chat.session_id is None and window.top_bar.title.full_text() == "Chats"
    qtbot.waitUntil(chat.composer.hasFocus)
    chat.sessions.select(first)
    qtbot.waitUntil(lambda: window.top_bar.title.full_text() == "Plan the release")
    qtbot.mouseClick(window.sidebar.new_chat_button, Qt.MouseButton.LeftButton)
    assert chat.session_id is None and window.top_bar.title.full_text() == "Chats"


def test_the_sidebar_foot_says_which_providers_are_ready_after_the_first_paint(
    make_window, qtbot, providers: None
) -> None:
    window = make_window()
    assert window.sidebar.readiness.text() == ""  # nothing read before the paint
    window.show()
    qtbot.waitUntil(lambda: window.sidebar.readiness.text() == "scripted-openai · ready", timeout=15_000)
    assert window.sidebar.settings_button.accessibleName() == "Settings, scripted-openai · ready"


def test_with_no_provider_the_sidebar_foot_says_no_model_yet(make_window, qtbot) -> None:
    window = make_window()
    window.show()
    qtbot.waitUntil(lambda: window.sidebar.readiness.text() == "No model yet", timeout=15_000)
    readiness = window.sidebar.readiness
    assert readiness.palette().color(readiness.foregroundRole()) == window.context.theme.qcolor("warning")
    # A provider that needs no key, added to providers.yaml while the window is open: the foot follows.
    (window.context.app.paths.providers_file).write_text(json.dumps({"providers": {"ollama": {
        "kind": "openai", "base_url": "http://127.0.0.1:11434/v1", "api_key": None, "allow_local": True,
    }}}))
    window.context.check_providers()
    qtbot.waitUntil(lambda: readiness.text() == "Ollama · ready", timeout=15_000)


def test_readiness_words() -> None:
    from relavium_desktop.ui.sidebar import readiness_words

    assert readiness_words([]) == "No model yet"
    assert readiness_words(["ollama"]) == "Ollama · ready"
    assert readiness_words(["openai"]) == "OpenAI · ready"
    assert readiness_words(["ollama", "anthropic"]) == "2 providers ready"


def test_workflows_says_how_many_gates_wait_for_an_answer(
    make_window, qtbot, project: Path, cli_env: dict[str, str]
) -> None:
    import shutil

    from tests.conftest import relavium_cmd

    examples = Path(__file__).resolve().parents[2] / "resources" / "examples"
    (project / "flows").mkdir()
    shutil.copy(examples / "release-gate.relavium.yaml", project / "flows" / "gate.relavium.yaml")
    proc = subprocess.run([*relavium_cmd(), "run", "flows/gate.relavium.yaml", "--input", "version=2.0"],
                          env=cli_env, cwd=project, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 3, proc.stderr  # paused at its gate
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    waiting = window.sidebar.waiting
    qtbot.waitUntil(lambda: waiting.isVisible() and waiting.text() == "1 waiting", timeout=15_000)
    assert window.nav.item(NAV_WORKFLOWS).accessibleName() == "Workflows, 1 waiting"
    run_id = window.gate_board().pending()[0][0]
    approved = subprocess.run([*relavium_cmd(), "gate", "approve", run_id], env=cli_env, cwd=project,
                              capture_output=True, text=True, timeout=120, check=False)
    assert approved.returncode == 0, approved.stderr
    qtbot.waitUntil(lambda: not waiting.isVisible(), timeout=15_000)
