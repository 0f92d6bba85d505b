"""The tray says what the app is doing: working during a turn, attention while something waits, idle after.

Observed through the window's own tray (its state and tooltip, what a user
hovering the icon reads).  The offscreen test platform has no system tray,
so the icon itself is never on screen here; the Tray object and its state
exist all the same.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

from relavium_desktop.engine.tools.tooldef import ActionClass, ApprovalRequest
from relavium_desktop.ui import app_settings as keys
from relavium_desktop.ui.permission_dialog import PermissionDialog
from relavium_desktop.ui.qt import QWidget
from relavium_desktop.ui.shell import NAV_WORKFLOWS
from relavium_desktop.ui.tray import TrayState
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.ui.chat_driver import finish, type_and_enter
from tests.ui.workflow_samples import RUN_TIMEOUT_MS


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
    qtbot.waitUntil(lambda: seen == [TrayState.WORKING, TrayState.IDLE])

    llm_server.script(Reply.stall("Thinking about"))
    type_and_enter(qtbot, chat, "a long answer please")
    qtbot.waitUntil(lambda: tray.state is TrayState.WORKING, timeout=15_000)
    assert "working" in tray.icon.toolTip()
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000):
        chat.stop_button.click()
    qtbot.waitUntil(lambda: tray.state is TrayState.IDLE)
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
    qtbot.waitUntil(lambda: tray.state is TrayState.ATTENTION)
    assert tray.waiting == 1
    assert tray.icon.toolTip() == "Relavium — needs your attention (1 waiting)"

    opened[0].reject()  # Esc, Deny and closing all deny
    qtbot.waitUntil(task.done)
    assert not task.result().approved
    qtbot.waitUntil(lambda: tray.state is TrayState.IDLE and tray.waiting == 0)
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
    qtbot.waitUntil(lambda: tray.state is TrayState.ATTENTION and tray.waiting == 1)

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
    qtbot.wait(100)  # let any change the failure caused reach the tray
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
    qtbot.waitUntil(lambda: tray.state is TrayState.ATTENTION)

    tray.open_action.trigger()
    assert window.isVisible()
    qtbot.waitUntil(lambda: tray.state is TrayState.IDLE)


def test_a_workflow_run_is_working_its_gate_attention_and_a_failed_run_waits_to_be_seen(
    make_window, qtbot, project,
) -> None:
    examples = Path(__file__).resolve().parents[2] / "resources" / "examples"
    (project / "flows").mkdir()
    shutil.copy(examples / "release-gate.relavium.yaml", project / "flows")
    window = make_window()  # never shown: not the active window, so a failure is not seen as it happens
    window.context.settings.setValue(keys.KEY_NOTIFY_APPROVALS, False)
    window.context.set_project(str(project))
    window.after_first_paint()
    tray = tray_of(window, qtbot)
    seen: list[TrayState] = []
    window.tray_status.changed.connect(lambda: seen.append(tray.state))
    window.nav.setCurrentRow(NAV_WORKFLOWS)  # the Workflows view is built now, after the tray
    view = window.workflows_view
    qtbot.waitUntil(lambda: len(view.entries) == 1, timeout=10_000)
    view.open_workflow("flows/release-gate.relavium.yaml")
    view.inputs.set_value("version", "1.0")
    gates: list = []
    view.gates.dialog_opened.connect(gates.append)

    with qtbot.waitSignal(view.run_finished, timeout=RUN_TIMEOUT_MS) as paused:
        view.run_button.click()
    assert paused.args[0].status == "paused" and gates
    qtbot.waitUntil(lambda: tray.state is TrayState.ATTENTION)
    assert seen == [TrayState.WORKING, TrayState.ATTENTION]  # ran, then stopped at the gate: no idle between
    assert tray.waiting == 1

    with qtbot.waitSignal(view.run_finished, timeout=RUN_TIMEOUT_MS) as rejected:
        gates[0].reject_button.click()
    assert rejected.args[0].status == "failed"
    qtbot.wait(100)  # let the changes reach the tray
    assert tray.state is TrayState.ATTENTION and tray.waiting == 1  # the gate is answered; the failure is not seen

    window.tray.open_action.trigger()
    qtbot.waitUntil(lambda: tray.state is TrayState.IDLE and tray.waiting == 0)
