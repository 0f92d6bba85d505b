"""Chat with no project: it answers, offers no tools, and offers the folder picker when a tool is wanted.

Real parts: the scripted OpenAI-dialect server, the real file host once a
folder is chosen; the folder dialog is the test double every UI test uses.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.ui.chat_driver import ROUTE, finish, type_and_enter


@pytest.fixture(autouse=True)
def no_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")


@pytest.fixture
def bare_chat(make_window, providers: None, qtbot):
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    assert window.context.project == ""
    view = window.chat_view
    qtbot.waitUntil(lambda: view.backend is not None)
    view.set_route(ROUTE)
    return view


def test_a_plain_message_is_answered_with_no_tools_offered(bare_chat, qtbot, llm_server: ScriptedLLMServer) -> None:
    view = bare_chat
    header = view.window().project_note
    assert header.isVisibleTo(view.window()) and header.text().startswith("No project")
    assert "tools" in header.text() and "off" in header.text()
    llm_server.script(Reply.say("Hello! How can I help?"))
    type_and_enter(qtbot, view, "hello")
    assert finish(qtbot, view) == "completed"
    assert "Hello! How can I help?" in view.transcript.plain_text()
    assert not llm_server.requests[-1].body.get("tools")
    assert not view.banner.isVisibleTo(view)


def test_a_tool_request_offers_the_folder_picker_and_the_tool_runs_after_choosing(
    bare_chat, qtbot, folder_picker, project: Path, llm_server: ScriptedLLMServer,
) -> None:
    view = bare_chat
    window = view.window()
    llm_server.script(Reply.call("read_file", {"path": "src/app.py"}))
    type_and_enter(qtbot, view, "what does my app print?")
    assert finish(qtbot, view) == "failed"
    offer = view.folder_offer
    assert offer.isVisibleTo(view) and not view.banner.isVisibleTo(view)
    assert "needs a project folder" in offer.label.text() and "read_file" not in offer.label.text()
    assert offer.project_button.isVisibleTo(view)

    folder_picker.answers.append(str(project))
    offer.project_button.click()  # the window's folder dialog answers the intent
    assert window.context.project == os.path.realpath(project)
    assert not window.project_note.isVisibleTo(window)
    assert offer.retry_button.isVisibleTo(view) and "Tools are on" in offer.label.text()

    llm_server.script(Reply.call("read_file", {"path": "src/app.py"}), Reply.say("It prints hello."))
    offer.retry_button.click()
    assert finish(qtbot, view) == "completed"
    offered = {t["function"]["name"] for t in llm_server.requests[-2].body["tools"]}
    assert "read_file" in offered
    assert "print('hello')" in llm_server.requests[-1].body["messages"][-1]["content"]
    assert "It prints hello." in view.transcript.plain_text()
    users = [m.text for m in view.backend.store.messages(view.session_id) if m.role == "user"]
    assert users == ["what does my app print?"]


def test_cancelling_the_folder_dialog_changes_nothing(bare_chat, qtbot, folder_picker,
                                                      llm_server: ScriptedLLMServer) -> None:
    view = bare_chat
    llm_server.script(Reply.call("list_directory", {"path": "."}))
    type_and_enter(qtbot, view, "list my files")
    finish(qtbot, view)
    view.folder_offer.project_button.click()  # the double answers None: cancelled
    assert view.context.project == ""
    assert view.folder_offer.project_button.isVisibleTo(view)
