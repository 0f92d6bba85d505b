"""MCP servers in the chat: discovery off the first paint, discovered tools in a turn, progress, forms.

Everything here is real: the window on the qasync loop, the MCP servers
(``tests/fixtures/mcp_chat_server.py``, the SDK's own server over stdio,
started by the app's MCP host from ``$RELAVIUM_HOME/mcp.yaml``) and the
provider (``tests/fixtures/llm_server.py`` over HTTP).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from relavium_desktop.ui import app_settings as keys
from relavium_desktop.ui.qt import Qt, QTimer
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.ui.chat_driver import ROUTE, type_and_enter

FIXTURE = str(Path(__file__).resolve().parents[1] / "fixtures" / "mcp_chat_server.py")
DISCOVERY_MS = 30_000


def write_mcp_yaml(home: Path, servers: dict[str, dict]) -> None:
    (home / "mcp.yaml").write_text(json.dumps({"servers": servers}))


def serving(*args: str) -> dict:
    return {"transport": "stdio", "command": sys.executable, "args": [FIXTURE, "serve", *args]}


def hanging(connect_ms: int = 1500) -> dict:
    return {"transport": "stdio", "command": sys.executable, "args": [FIXTURE, "hang"],
            "connectTimeoutMs": connect_ms}


def offered(request) -> list[str]:
    return [t["function"]["name"] for t in (request.body.get("tools") or [])]


def discovered(qtbot, view, count: int = 1) -> None:
    qtbot.waitUntil(lambda: view.mcp is not None and view.mcp.discoveries >= count and not view.mcp.running,
                    timeout=DISCOVERY_MS)


@pytest.fixture
def open_project(project: Path, relavium_home: Path) -> Path:
    """The project as a returning user left it: chosen before the window opens."""
    settings = keys.ui_settings(relavium_home)
    settings.setValue(keys.KEY_PROJECT, str(project))
    settings.sync()
    return project


def test_a_hung_server_never_holds_up_the_window_and_is_reported_unavailable(
    make_window, qtbot, relavium_home: Path, open_project: Path, providers: None,
) -> None:
    write_mcp_yaml(relavium_home, {"files": serving(), "stuck": hanging(1500)})
    ticks = [0]
    timer = QTimer()
    timer.setInterval(20)
    timer.timeout.connect(lambda: ticks.__setitem__(0, ticks[0] + 1))
    timer.start()
    window = make_window()
    window.show()
    with qtbot.waitSignal(window.first_painted, timeout=10_000):
        pass
    view = window.chat_view
    # Discovery starts only after the first paint, as a task: the window has painted by then.
    qtbot.waitUntil(lambda: view.mcp is not None and view.mcp.running, timeout=10_000)
    assert window._painted
    assert view.mcp_status.isVisible() and "connecting" in view.mcp_status.full_text()
    at_start = ticks[0]
    discovered(qtbot, view)
    timer.stop()
    # The event loop kept turning while the hung server was waited for (~1.5 s at 20 ms a tick).
    assert ticks[0] - at_start >= 20, ticks[0] - at_start
    text = view.mcp_status.full_text()
    assert text.startswith("MCP: 3 tools from 'files'"), text
    assert "'stuck' unavailable:" in text, text
    assert view.mcp_status.property("tone") == "warning"
    tooltip = view.mcp_status.toolTip()
    assert "files: 3 tools" in tooltip and "add" in tooltip and "stuck: unavailable" in tooltip
    assert sorted(view.mcp.tool_ids()) == ["mcp_files_add", "mcp_files_ask_name", "mcp_files_countdown"]


def test_no_status_when_no_server_is_configured(chat, qtbot) -> None:
    discovered(qtbot, chat)
    assert not chat.mcp_status.isVisible() and chat.mcp_status.full_text() == ""
    assert not chat.attach_button.isVisible()


def test_editing_mcp_yaml_discovers_again(chat, qtbot, relavium_home: Path) -> None:
    discovered(qtbot, chat)
    assert chat.mcp.tool_ids() == []
    write_mcp_yaml(relavium_home, {"files": serving()})
    discovered(qtbot, chat, 2)
    assert "mcp_files_add" in chat.mcp.tool_ids()
    assert chat.mcp_status.full_text().startswith("MCP: 3 tools from 'files'")


@pytest.fixture
def mcp_chat(make_window, folder_picker, project: Path, providers: None, relavium_home: Path, qtbot, tmp_path):
    """The chat on ``project`` with the fixture server configured as 'files' and discovered, in Auto mode."""
    gate = tmp_path / "gate"
    write_mcp_yaml(relavium_home, {"files": serving(str(gate))})
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    folder_picker.answers.append(str(project))
    window.project_button.click()
    view = window.chat_view
    qtbot.waitUntil(lambda: view.backend is not None)
    view.set_route(ROUTE)
    window.context.set_mode("auto")
    qtbot.waitUntil(lambda: view.mcp is not None and "mcp_files_add" in view.mcp.tool_ids(), timeout=DISCOVERY_MS)
    view.gate = gate
    return view


def test_a_turn_calls_a_discovered_tool_and_the_model_gets_its_result(
    mcp_chat, qtbot, llm_server: ScriptedLLMServer,
) -> None:
    llm_server.script(
        Reply.call("mcp_files_add", {"a": 2, "b": 40}, text="Adding."),
        Reply.say("The sum is 42."),
    )
    with qtbot.waitSignal(mcp_chat.turn_finished, timeout=30_000) as done:
        type_and_enter(qtbot, mcp_chat, "What is 2 + 40?")
    assert done.args == ["completed"]
    # The built-in agent offered the discovered tool next to its own.
    assert "mcp_files_add" in offered(llm_server.requests[0]) and "read_file" in offered(llm_server.requests[0])
    cards = mcp_chat.transcript.cards()
    assert [c.tool_id for c in cards] == ["mcp_files_add"]
    assert cards[0].status == "done"
    cards[0].chevron.click()
    assert "42" in cards[0].result_view.toPlainText()
    # The next model request carries the server's answer.
    tool_messages = [m for m in llm_server.requests[1].body["messages"] if m.get("role") == "tool"]
    assert tool_messages and "42" in json.dumps(tool_messages[-1])
    assert mcp_chat.transcript.messages()[-1].shown_text().strip() == "The sum is 42."


def test_progress_of_a_running_mcp_tool_shows_on_its_card(mcp_chat, qtbot, llm_server: ScriptedLLMServer) -> None:
    llm_server.script(Reply.call("mcp_files_countdown", {"steps": 3}), Reply.say("Counted."))
    type_and_enter(qtbot, mcp_chat, "Count to three")
    qtbot.waitUntil(lambda: bool(mcp_chat.transcript.cards()), timeout=30_000)
    card = mcp_chat.transcript.cards()[0]
    # The server reported step 1 and is now held at the gate: the card shows it while running.
    qtbot.waitUntil(lambda: card.progress_bar is not None and card.progress_bar.isVisible(), timeout=30_000)
    assert card.status == "running"
    assert card.progress_bar.maximum() == 1000 and card.progress_bar.value() == 333
    assert card.progress_label.text() == "step 1 of 3 (1/3)"
    with qtbot.waitSignal(mcp_chat.turn_finished, timeout=30_000) as done:
        mcp_chat.gate.write_text("go")
    assert done.args == ["completed"]
    assert card.status == "done" and not card.progress_bar.isVisible()
    assert "counted 3" in json.dumps(llm_server.requests[1].body["messages"])


def test_a_server_form_during_a_chat_tool_call_opens_the_form_dialog(
    mcp_chat, qtbot, llm_server: ScriptedLLMServer,
) -> None:
    from relavium_desktop.ui.mcp.elicitation_dialog import ElicitationDialog
    from relavium_desktop.ui.mcp.hooks import app_mcp_hooks

    context = mcp_chat.context
    app_mcp_hooks(context)  # the window's hooks object, so the test can see each dialog it opens
    opened: list[object] = []
    context.mcp_hooks.dialog_opened.connect(opened.append)
    llm_server.script(Reply.call("mcp_files_ask_name", {}), Reply.say("Greeted."))
    type_and_enter(qtbot, mcp_chat, "Ask my name")
    qtbot.waitUntil(lambda: bool(opened), timeout=30_000)
    dialog = opened[0]
    assert isinstance(dialog, ElicitationDialog) and dialog.isVisible()
    assert "What is your name?" in " ".join(w.text() for w in dialog.findChildren(type(mcp_chat.status)))
    assert mcp_chat.busy and mcp_chat.transcript.cards()[0].status == "running"
    with qtbot.waitSignal(mcp_chat.turn_finished, timeout=30_000) as done:
        qtbot.keyClicks(dialog.fields["name"].widget, "Ada")
        dialog.accept_button.click()
    assert done.args == ["completed"], mcp_chat.transcript.plain_text()
    assert "hello Ada" in json.dumps(llm_server.requests[1].body["messages"])


def test_attaching_a_resource_adds_its_text_with_its_source(mcp_chat, qtbot) -> None:
    qtbot.waitUntil(mcp_chat.attach_button.isVisible)
    mcp_chat.composer.setPlainText("Summarise this:")
    mcp_chat.attach_button.fill()
    actions = mcp_chat.attach_button.menu_.actions()
    assert [a.text() for a in actions] == ["files: readme"]
    actions[0].trigger()
    qtbot.waitUntil(lambda: "Tuesdays" in mcp_chat.composer.toPlainText(), timeout=15_000)
    text = mcp_chat.composer.toPlainText()
    assert text.startswith("Summarise this:\n\nResource notes://readme (from MCP server 'files'):")
    assert "Remember: the build runs on Tuesdays." in text


def test_slash_lists_prompts_and_a_chosen_one_fills_the_composer(mcp_chat, qtbot) -> None:
    from relavium_desktop.ui.chat.mcp_composer import PromptArgsDialog

    mcp_chat.composer.setFocus()
    qtbot.keyClicks(mcp_chat.composer, "/")
    prompts = mcp_chat.slash_prompts.list
    assert prompts.isVisible()
    assert [prompts.item(i).text() for i in range(prompts.count())] == ["/files:review — Review a file"]
    qtbot.keyClick(mcp_chat.composer, Qt.Key.Key_Return)  # picks the prompt, does not send "/"
    assert not mcp_chat.busy
    dialog = mcp_chat.slash_prompts.dialog
    assert isinstance(dialog, PromptArgsDialog)
    assert not dialog.ok_button.isEnabled()  # "path" is required
    qtbot.keyClicks(dialog.fields["path"], "src/app.py")
    dialog.ok_button.click()
    qtbot.waitUntil(lambda: mcp_chat.composer.toPlainText() == "Please review src/app.py for bugs.", timeout=15_000)
    assert not prompts.isVisible()


def test_an_agent_file_does_not_get_the_discovered_tools(mcp_chat, qtbot, llm_server: ScriptedLLMServer) -> None:
    """The built-in agent is offered the discovered tools (test above); an agent file keeps its own list."""
    from relavium_desktop.ui.chat.backend import AgentChoice

    spec = mcp_chat.agents[0].spec.model_copy(update={"id": "mine", "tools": ["read_file"]})
    mcp_chat.agents.append(AgentChoice(spec, "mine.agent.yaml"))
    mcp_chat.agent_combo.addItem("mine", "mine")
    mcp_chat.agent_combo.setCurrentIndex(1)
    mcp_chat.set_route(ROUTE)
    llm_server.script(Reply.say("Only my own tools."))
    with qtbot.waitSignal(mcp_chat.turn_finished, timeout=30_000) as done:
        type_and_enter(qtbot, mcp_chat, "Which tools do you have?")
    assert done.args == ["completed"]
    assert offered(llm_server.requests[0]) == ["read_file"]


def test_confirm_mode_asks_before_each_mcp_tool_call(mcp_chat, qtbot, llm_server: ScriptedLLMServer) -> None:
    view = mcp_chat
    view.context.set_mode("confirm")
    dialogs: list = []
    view.context.approvals.dialog_opened.connect(dialogs.append)
    llm_server.script(Reply.call("mcp_files_add", {"a": 1, "b": 2}), Reply.call("mcp_files_add", {"a": 3, "b": 4}),
                      Reply.say("3 and 7."))
    with qtbot.waitSignal(view.turn_finished, timeout=30_000) as done:
        type_and_enter(qtbot, view, "Add twice")
        qtbot.waitUntil(lambda: len(dialogs) == 1, timeout=30_000)
        assert dialogs[0].tool_label.text() == "mcp_files_add" and dialogs[0].class_label.text() == "egress"
        assert view.transcript.cards() == [] or view.transcript.cards()[0].status == "running"
        dialogs[0].allow_button.click()
        qtbot.waitUntil(lambda: len(dialogs) == 2, timeout=30_000)  # "once" covers one call, not the next
        dialogs[1].allow_button.click()
    assert done.args == ["completed"]
    assert [c.status for c in view.transcript.cards()] == ["done", "done"]
    assert "7" in json.dumps(llm_server.requests[2].body["messages"])


def test_a_third_party_server_in_a_chat_turn_sums_and_reports_progress(
    make_window, folder_picker, project: Path, providers: None, relavium_home: Path, qtbot,
    llm_server: ScriptedLLMServer,
) -> None:
    """@modelcontextprotocol/server-everything (node, installed by scripts/setup) through the chat."""
    from tests.fixtures.mcp_everything import everything_entry

    write_mcp_yaml(relavium_home, {"everything": everything_entry()})
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    folder_picker.answers.append(str(project))
    window.project_button.click()
    view = window.chat_view
    qtbot.waitUntil(lambda: view.backend is not None)
    view.set_route(ROUTE)
    window.context.set_mode("auto")
    qtbot.waitUntil(lambda: view.mcp is not None and "mcp_everything_get-sum" in view.mcp.tool_ids(),
                    timeout=DISCOVERY_MS)
    assert view.mcp_status.full_text().startswith("MCP: ") and "from 'everything'" in view.mcp_status.full_text()
    llm_server.script(
        Reply.call("mcp_everything_get-sum", {"a": 19, "b": 23}),
        Reply.call("mcp_everything_trigger-long-running-operation", {"duration": 1, "steps": 4}),
        Reply.say("Done."),
    )
    with qtbot.waitSignal(view.turn_finished, timeout=60_000) as done:
        type_and_enter(qtbot, view, "Sum, then run the long operation")
    assert done.args == ["completed"], view.transcript.plain_text()
    cards = view.transcript.cards()
    assert [c.status for c in cards] == ["done", "done"]
    assert "42" in json.dumps(llm_server.requests[1].body["messages"])
    # The long operation's progress reached its card while it ran (the bar goes away with the result).
    assert cards[1].progress_bar is not None and not cards[1].progress_bar.isVisible()

    # Its form request opens the app's form dialog; the user's answer goes back to the server.
    from relavium_desktop.ui.mcp.elicitation_dialog import ElicitationDialog
    from relavium_desktop.ui.mcp.hooks import app_mcp_hooks

    app_mcp_hooks(window.context)
    opened: list[object] = []
    window.context.mcp_hooks.dialog_opened.connect(opened.append)
    llm_server.script(Reply.call("mcp_everything_trigger-elicitation-request", {}), Reply.say("Thanks."))
    with qtbot.waitSignal(view.turn_finished, timeout=60_000) as done:
        type_and_enter(qtbot, view, "Ask me for my details")
        qtbot.waitUntil(lambda: bool(opened), timeout=30_000)
        dialog = opened[0]
        assert isinstance(dialog, ElicitationDialog) and "name" in dialog.fields
        qtbot.keyClicks(dialog.fields["name"].widget, "Ada")
        dialog.accept_button.click()
    assert done.args == ["completed"], view.transcript.plain_text()
    answer = json.dumps(llm_server.requests[-1].body["messages"])
    assert "User provided the requested information" in answer and "Ada" in answer


def test_choosing_another_project_discovers_again_for_it(mcp_chat, qtbot, folder_picker, tmp_path: Path) -> None:
    before = mcp_chat.mcp.discoveries
    other = tmp_path / "other-project"
    other.mkdir()
    folder_picker.answers.append(str(other))
    mcp_chat.window().project_button.click()
    discovered(qtbot, mcp_chat, before + 1)
    assert mcp_chat.mcp._project == os.path.realpath(other)
    assert "mcp_files_add" in mcp_chat.mcp.tool_ids()


def test_without_a_project_the_status_says_servers_wait_for_one(
    make_window, folder_picker, project: Path, relavium_home: Path, qtbot,
) -> None:
    write_mcp_yaml(relavium_home, {"files": serving()})
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    assert window.context.project == ""
    view = window.chat_view
    discovered(qtbot, view)
    assert view.mcp.tool_ids() == []
    assert view.mcp_status.isVisible() and view.mcp_status.full_text() == "MCP: servers start once a project is chosen"
    folder_picker.answers.append(str(project))
    window.project_button.click()
    discovered(qtbot, view, 2)
    assert view.mcp_status.full_text().startswith("MCP: 3 tools from 'files'")
