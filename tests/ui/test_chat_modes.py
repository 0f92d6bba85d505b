"""Each chat mode against a read, an edit, a protected edit and a command -- as a table.

Real parts: the chat view on the scripted OpenAI-dialect server, the real
file and process hosts on a tmp project, the real permission dialog (its
buttons clicked as a user would).  The table is the product's promise in the
mode menu; a row that drifts from it fails here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from relavium_desktop.engine.agent.mode_ids import MODE_DESCRIPTIONS, MODE_IDS, MODE_TITLES, ChatMode
from relavium_desktop.ui.chat.backend import KEY_POLICY
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.ui.chat_driver import finish, type_and_enter
from tests.ui.words import assert_words_for_people

RAN, ASKED, REFUSED = "ran without asking", "asked first", "refused by the mode"

ACTIONS = {
    "read": ("read_file", {"path": "src/app.py"}),
    "edit": ("write_file", {"path": "notes.md", "content": "hello\n"}),
    "protected edit": ("write_file", {"path": ".env", "content": "TOKEN=1\n"}),
    "command": ("run_command", {"command": "echo", "args": ["hi"]}),
}
TABLE = {
    ChatMode.READ_ONLY: {"read": RAN, "edit": REFUSED, "protected edit": REFUSED, "command": REFUSED},
    ChatMode.CONFIRM: {"read": RAN, "edit": ASKED, "protected edit": ASKED, "command": ASKED},
    ChatMode.ACCEPT_EDITS: {"read": RAN, "edit": RAN, "protected edit": ASKED, "command": ASKED},
    ChatMode.AUTO: {"read": RAN, "edit": RAN, "protected edit": ASKED, "command": RAN},
}


@pytest.fixture(autouse=True)
def no_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")


def test_the_menu_lists_every_mode_with_its_description(make_window) -> None:
    window = make_window()
    picker = window.mode_picker
    assert list(picker.actions_by_mode) == list(MODE_IDS) == [m.value for m in TABLE]
    for mode, action in picker.actions_by_mode.items():
        assert MODE_TITLES[ChatMode(mode)] in action.text()
        assert MODE_DESCRIPTIONS[ChatMode(mode)] in action.text()
        assert action.toolTip() == MODE_DESCRIPTIONS[ChatMode(mode)]
    assert window.context.mode == ChatMode.CONFIRM  # the default asks before acting
    assert picker.text().endswith("Ask before acting")  # the top bar's chip names the mode
    picker.actions_by_mode["auto"].trigger()
    assert window.context.mode == "auto" and picker.toolTip() == MODE_DESCRIPTIONS[ChatMode.AUTO]


@pytest.mark.parametrize("mode", list(TABLE), ids=[m.value for m in TABLE])
def test_mode_table(mode: ChatMode, chat, qtbot, project: Path, llm_server: ScriptedLLMServer) -> None:
    view = chat
    view.context.settings.setValue(KEY_POLICY, json.dumps({"allowedCommands": ["echo hi"]}))
    view.context.set_mode(mode.value)
    dialogs: list = []
    view.context.approvals.dialog_opened.connect(dialogs.append)
    outcomes = {}
    for name, (tool, args) in ACTIONS.items():
        view.new_session()
        dialogs.clear()
        llm_server.script(Reply.call(tool, args))
        if TABLE[mode][name] != REFUSED and name != "protected edit":  # a refusal ends the turn
            llm_server.script(Reply.say("done"))
        type_and_enter(qtbot, view, f"please do the {name}")
        if TABLE[mode][name] == ASKED:
            qtbot.waitUntil(lambda: bool(dialogs), timeout=10_000)
            # A protected file is refused by the write floor even when allowed, so say no to it.
            (dialogs[0].reject if name == "protected edit" else dialogs[0].allow_button.click)()
        outcome = finish(qtbot, view)
        if dialogs:
            outcomes[name] = ASKED
        elif view.mode_offer.isVisibleTo(view):
            outcomes[name] = REFUSED
            assert outcome == "failed"
            assert "Read-only" in view.mode_offer.label.text()
            assert view.mode_offer.switch_button.text() == "Switch to Ask before acting"
        else:
            assert outcome == "completed", (name, view.banner.label.text())
            outcomes[name] = RAN
        if dialogs and name != "protected edit":
            assert outcome == "completed", (name, view.banner.label.text())
    assert outcomes == TABLE[mode]
    assert llm_server.pending == 0
    written = (project / "notes.md").exists()
    assert written is (TABLE[mode]["edit"] != REFUSED)


def test_the_refusal_offers_the_mode_that_allows_it_and_the_switch_carries_on(
    chat, qtbot, project: Path, llm_server: ScriptedLLMServer,
) -> None:
    view = chat
    view.context.set_mode("plan")  # the upstream id still works: read-only
    assert view.context.mode == ChatMode.READ_ONLY
    tools_offered: list[set[str]] = []
    llm_server.script(Reply.call("write_file", {"path": "notes.md", "content": "hello\n"}))
    type_and_enter(qtbot, view, "write my notes")
    assert finish(qtbot, view) == "failed"
    tools_offered.append({t["function"]["name"] for t in llm_server.requests[-1].body.get("tools", [])})
    assert "write_file" not in tools_offered[0] and "read_file" in tools_offered[0]  # read tools only
    offer = view.mode_offer
    assert offer.isVisibleTo(view) and not view.banner.isVisibleTo(view)
    assert "Read-only" in offer.label.text() and "Ask before acting" in offer.label.text()
    assert "write_file" not in offer.label.text() and "notes.md" in offer.label.text()  # words, not the tool id
    assert_words_for_people(view, "the mode offer and the refused card")
    card_text = view.transcript.plain_text()
    assert "not granted" not in card_text

    offer.switch_button.click()
    assert view.context.mode == ChatMode.CONFIRM
    assert view.window().mode_picker.text().endswith("Ask before acting")
    dialogs: list = []
    view.context.approvals.dialog_opened.connect(dialogs.append)
    llm_server.script(Reply.call("write_file", {"path": "notes.md", "content": "hello\n"}), Reply.say("written"))
    offer.retry_button.click()
    qtbot.waitUntil(lambda: bool(dialogs), timeout=10_000)
    dialogs[0].allow_button.click()
    assert finish(qtbot, view) == "completed"
    assert (project / "notes.md").read_text() == "hello\n"
    stored = view.backend.store.messages(view.session_id)
    assert [m.text for m in stored if m.role == "user"] == ["write my notes"]  # continued, not re-sent


def test_a_reloaded_session_keeps_the_reason_of_a_refusal(
    chat, qtbot, llm_server: ScriptedLLMServer,
) -> None:
    view = chat
    view.context.set_mode("read-only")
    llm_server.script(Reply.call("write_file", {"path": "notes.md", "content": "hi\n"}))
    type_and_enter(qtbot, view, "write it")
    assert finish(qtbot, view) == "failed"
    session = view.session_id
    view.new_session()
    view.open_session(session)
    shown = view.transcript.plain_text()
    assert "not available in Read-only mode" in shown and "Ask before acting" in shown, shown
