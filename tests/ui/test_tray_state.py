"""The tray says what the app is doing: working during a turn, attention while something waits, idle after.

Observed through the window's own tray (its state and tooltip, what a user
hovering the icon reads).  The offscreen test platform has no system tray,
so the icon itself is never on screen here; the Tray object and its state
exist all the same.
"""

from __future__ import annotations

import asyncio

from relavium_desktop.engine.tools.tooldef import ActionClass, ApprovalRequest
from relavium_desktop.ui.permission_dialog import PermissionDialog
from relavium_desktop.ui.qt import QWidget
from relavium_desktop.ui.tray import TrayState
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.ui.chat_driver import finish, type_and_enter


def tray_of(window, qtbot):
    qtbot.waitUntil(lambda: window.tray is not None and window.tray_status is not None)
    return window.tray


def write_request(path: str) -> ApprovalRequest:
    return ApprovalRequest(
        tool_id="write_file", action_class=ActionClass.FS_WRITE, target=path,
        masked_args={"path": path, "content": "x\n"}, node_id="chat",
    )


def test_working_while_a_chat_turn_runs_and_idle_after(chat, qtbot, llm_server: ScriptedLLMServer) -> None:
    tray = tray_of(chat.window(), qtbot)
    assert tray.state is TrayState.IDLE
    seen: list[TrayState] = []
    chat.window().tray_status.changed.connect(lambda: seen.append(tray.state))
    llm_server.script(Reply.say("Done."))
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000) as done:
        type_and_enter(qtbot, chat, "short one")
    assert done.args == ["completed"]
    assert seen == [TrayState.WORKING, TrayState.IDLE]

    llm_server.script(Reply.stall("Thinking about"))
    type_and_enter(qtbot, chat, "a long answer please")
    qtbot.waitUntil(lambda: tray.state is TrayState.WORKING, timeout=15_000)
    assert "working" in tray.icon.toolTip()
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000):
        chat.stop_button.click()
    assert tray.state is TrayState.IDLE
    assert tray.icon.toolTip() == "Relavium — idle"


def test_a_waiting_permission_prompt_is_attention_until_answered(make_window, qtbot, project) -> None:
    window = make_window()
    window.context.set_project(str(project))
    window.after_first_paint()  # builds the services and the tray, as after the first paint
    tray = tray_of(window, qtbot)
    assert window.context.approvals is not None
    opened: list[PermissionDialog] = []
    window.context.approvals.dialog_opened.connect(opened.append)

    task = asyncio.ensure_future(window.context.approvals.confirm(write_request("src/new.py")))
    qtbot.waitUntil(lambda: bool(opened))
    assert tray.state is TrayState.ATTENTION
    assert tray.waiting == 1
    assert tray.icon.toolTip() == "Relavium — needs your attention (1 waiting)"

    opened[0].deny_button.click()
    qtbot.waitUntil(task.done)
    assert not task.result().approved
    assert tray.state is TrayState.IDLE and tray.waiting == 0
    assert "waiting" not in tray.icon.toolTip()


def test_a_failed_turn_while_the_user_looks_elsewhere_is_attention_until_the_window_is_activated(
    chat, qtbot, llm_server: ScriptedLLMServer,
) -> None:
    window = chat.window()
    tray = tray_of(window, qtbot)
    elsewhere = QWidget()
    qtbot.addWidget(elsewhere)
    elsewhere.show()
    elsewhere.activateWindow()
    qtbot.waitUntil(elsewhere.isActiveWindow)
    assert not window.isActiveWindow()

    llm_server.script(Reply.error(401))
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000) as done:
        chat.send("hello?")  # not typed: typing would focus (activate) the window
    assert done.args == ["failed"]
    assert tray.state is TrayState.ATTENTION and tray.waiting == 1

    window.activateWindow()
    qtbot.waitUntil(lambda: tray.state is TrayState.IDLE)
    assert tray.waiting == 0


def test_a_failure_the_user_sees_happen_does_not_ask_for_attention(
    chat, qtbot, llm_server: ScriptedLLMServer,
) -> None:
    window = chat.window()
    tray = tray_of(window, qtbot)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    llm_server.script(Reply.error(401))
    type_and_enter(qtbot, chat, "hello?")
    assert finish(qtbot, chat) == "failed"
    assert tray.state is TrayState.IDLE


def test_a_failure_while_the_window_is_hidden_waits_until_open_shows_it(
    chat, qtbot, llm_server: ScriptedLLMServer,
) -> None:
    window = chat.window()
    tray = tray_of(window, qtbot)
    window.hide()
    llm_server.script(Reply.error(401))
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000) as done:
        chat.send("anyone there?")
    assert done.args == ["failed"]
    assert tray.state is TrayState.ATTENTION

    tray.open_action.trigger()
    assert window.isVisible()
    assert tray.state is TrayState.IDLE
