"""The chat view driven through the real window against the scripted provider server.

The provider is ``tests/fixtures/llm_server.py`` (real HTTP on 127.0.0.1, the
OpenAI streaming wire format), configured the way the CLI is configured:
``$RELAVIUM_HOME/providers.yaml`` with the local endpoint opted in explicitly
(``allow_local: true``) and the key as an ``env:`` reference.  Tools run on
the real host in a temporary project; the project is chosen through the
folder-picker test double (the native dialog cannot be driven).
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

from relavium_desktop.ui.chat.backend import KEY_POLICY
from relavium_desktop.ui.qt import Qt
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.ui.chat_driver import KEY, type_and_enter


def offered_tools(request) -> list[str]:
    return [t["function"]["name"] for t in (request.body.get("tools") or [])]


def test_message_streams_text_and_shows_a_tool_card(chat, qtbot, llm_server: ScriptedLLMServer) -> None:
    window = chat.window()
    window.context.set_mode("accept-edits")
    llm_server.script(
        Reply.call("read_file", {"path": "src/app.py"}, text="Let me look."),
        Reply.say("The file prints **hello** and nothing else."),
    )
    streamed: list[str] = []
    chat.transcript.flushed.connect(
        lambda _n: streamed.append(chat.transcript.messages()[-1].shown_text()))
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000) as done:
        type_and_enter(qtbot, chat, "What does src/app.py do?")
    assert done.args == ["completed"]

    # The user's message, the streamed reply, the tool card, the final reply.
    messages = chat.transcript.messages()
    assert messages[0].role == "user" and messages[0].shown_text() == "What does src/app.py do?"
    final = messages[-1]
    assert final.role == "assistant"
    # While streaming, the text was rendered as Markdown as it arrived (no raw marker showed) ...
    assert any("hello" in s for s in streamed) and not any("**" in s for s in streamed), streamed
    # ... and reads the same once the message was complete.
    assert final.shown_text().strip() == "The file prints hello and nothing else."
    cards = chat.transcript.cards()
    assert [c.tool_id for c in cards] == ["read_file"]
    assert cards[0].status == "done"
    # One line says what happened: the path, the lines the host read, the time it took.
    summary = cards[0].summary_text
    assert summary.startswith("Read src/app.py · 1 line · ") and summary.endswith(" ms"), summary
    assert not cards[0].expanded
    cards[0].chevron.click()
    assert cards[0].expanded and "print('hello')" in cards[0].result_view.toPlainText()
    # The provider received the real tool result; usage is counted (12 in + 7 out per turn).
    assert "print('hello')" in json.dumps(llm_server.requests[1].body["messages"])
    assert chat.usage_label.text().startswith("38 tokens")
    assert "$" in chat.usage_label.text()
    assert chat.composer.toPlainText() == ""
    # The session is listed under its first message.
    assert chat.sessions.titles() == ["What does src/app.py do?"]


def test_shift_enter_is_a_newline_and_does_not_send(chat, qtbot, llm_server: ScriptedLLMServer) -> None:
    chat.composer.setFocus()
    qtbot.keyClicks(chat.composer, "first line")
    qtbot.keyClick(chat.composer, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(chat.composer, "second line")
    assert chat.composer.toPlainText() == "first line\nsecond line"
    assert not chat.busy and llm_server.requests == []
    llm_server.script(Reply.say("Two lines received."))
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000):
        qtbot.keyClick(chat.composer, Qt.Key.Key_Return)
    assert llm_server.requests[0].body["messages"][-1]["content"] == "first line\nsecond line"


def test_switching_modes_changes_the_tools_offered(chat, qtbot, llm_server: ScriptedLLMServer) -> None:
    window = chat.window()
    window.mode_picker.actions_by_mode["read-only"].trigger()
    llm_server.script(Reply.say("ok"), Reply.say("ok"), Reply.say("ok"))
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000):
        type_and_enter(qtbot, chat, "hello in ask mode")
    window.mode_picker.actions_by_mode["accept-edits"].trigger()
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000):
        type_and_enter(qtbot, chat, "hello in accept-edits mode")
    window.context.set_mode("plan")  # the upstream id is still understood
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000):
        type_and_enter(qtbot, chat, "hello in plan mode")
    ask, edits, plan = (offered_tools(r) for r in llm_server.requests)
    assert sorted(ask) == ["list_directory", "read_file"]
    assert {"write_file", "run_command"} <= set(edits) and {"read_file", "list_directory"} <= set(edits)
    assert sorted(plan) == sorted(ask)
    # The session remembers the mode it is in now.
    assert chat.backend.store.get(chat.session_id).mode == "read-only"


def test_ask_mode_offers_no_write_and_a_stubborn_model_is_still_denied(
    chat, qtbot, llm_server: ScriptedLLMServer, project: Path
) -> None:
    """A model may call a tool it was not offered; the mode's regime still refuses it."""
    chat.window().context.set_mode("ask")
    llm_server.script(Reply.call("write_file", {"path": "src/app.py", "content": "pwned\n"}), Reply.say("ok"))
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000):
        type_and_enter(qtbot, chat, "overwrite it")
    assert "write_file" not in offered_tools(llm_server.requests[0])
    assert (project / "src" / "app.py").read_text() == "print('hello')\n"
    card = chat.transcript.cards()[0]
    assert card.status == "failed"


def _processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if marker.encode() in cmdline:
            try:
                state = next(line for line in (entry / "status").read_text().splitlines()
                             if line.startswith("State:"))
            except (OSError, StopIteration):
                continue
            if "zombie" not in state:
                found.append(int(entry.name))
    return found


def test_stop_cancels_the_turn_and_kills_the_running_tool(chat, qtbot, llm_server: ScriptedLLMServer) -> None:
    window = chat.window()
    marker = "317.25"  # a unique sleep length, to find exactly this process
    window.context.settings.setValue(KEY_POLICY, json.dumps({"allowedCommands": [f"sleep {marker}"]}))
    window.context.set_mode("auto")
    llm_server.script(Reply.call("run_command", {"command": "sleep", "args": [marker]}), Reply.say("never"))
    try:
        type_and_enter(qtbot, chat, "wait a while")
        qtbot.waitUntil(lambda: bool(_processes_with(marker)), timeout=15_000)
        card = chat.transcript.cards()[0]
        assert card.tool_id == "run_command" and card.status == "running"
        assert chat.stop_button.isEnabled()
        # Stop takes the round send button's place while the turn runs.
        assert chat.stop_button.isVisible() and not chat.send_button.isVisible()
        assert card.summary_text == f"Running sleep {marker}…"
        with qtbot.waitSignal(chat.turn_finished, timeout=15_000) as done:
            qtbot.mouseClick(chat.stop_button, Qt.MouseButton.LeftButton)
        assert done.args == ["cancelled"]
        qtbot.waitUntil(lambda: not _processes_with(marker), timeout=10_000)
        assert card.status == "cancelled"
        assert not chat.stop_button.isEnabled() and chat.send_button.isEnabled()
        assert chat.send_button.isVisible() and not chat.stop_button.isVisible()
        assert card.summary_text == f"Stopped before it could run sleep {marker}"
        assert len(llm_server.requests) == 1  # the model was not asked again
        # The stored history is closed ("not run: cancelled"), so the session can continue.
        llm_server.script(Reply.say("Resumed fine."))
        with qtbot.waitSignal(chat.turn_finished, timeout=15_000) as again:
            type_and_enter(qtbot, chat, "go on")
        assert again.args == ["completed"]
        assert "cancelled" in json.dumps(llm_server.requests[-1].body["messages"])
    finally:
        for pid in _processes_with(marker):
            os.kill(pid, signal.SIGKILL)


def test_stop_while_the_provider_is_still_streaming(chat, qtbot, llm_server: ScriptedLLMServer) -> None:
    llm_server.script(Reply.stall("Thinking about"))
    type_and_enter(qtbot, chat, "a long answer please")
    qtbot.waitUntil(lambda: any("Thinking" in m.shown_text() for m in chat.transcript.messages()),
                    timeout=15_000)
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000) as done:
        chat.stop_button.click()
    assert done.args == ["cancelled"]
    assert chat.status.text() == "Stopped."


def test_provider_auth_error_shows_a_banner_that_opens_provider_settings(
    chat, qtbot, llm_server: ScriptedLLMServer
) -> None:
    llm_server.script(Reply.error(401))
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000) as done:
        type_and_enter(qtbot, chat, "hello?")
    assert done.args == ["failed"]
    assert chat.banner.isVisible()
    assert chat.banner.button.text() == "Add an API key"
    assert KEY not in chat.banner.label.text() + chat.banner.details.text()
    window = chat.window()
    chat.banner.button.click()
    assert window.settings_view is not None and window.pages.currentWidget() is window.settings_view
    assert window.settings_view.tabs.currentWidget() is window.settings_view.providers


def test_missing_local_opt_in_is_a_validation_banner(
    chat, qtbot, llm_server: ScriptedLLMServer, relavium_home: Path
) -> None:
    entries = json.loads((relavium_home / "providers.yaml").read_text())
    del entries["providers"]["scripted-openai"]["allow_local"]
    (relavium_home / "providers.yaml").write_text(json.dumps(entries))
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000):
        type_and_enter(qtbot, chat, "hello?")
    assert chat.banner.code == "validation"
    assert "allow_local" in chat.banner.details.text()  # the setting's key: in the expandable details
    assert "allow_local" not in chat.banner.label.text()
    assert chat.banner.button.text() == "Open provider settings"
    assert llm_server.requests == []  # refused before any connection


def test_sessions_new_resume_rename_delete(chat, qtbot, llm_server: ScriptedLLMServer) -> None:
    chat.window().context.set_mode("accept-edits")
    llm_server.script(Reply.call("list_directory", {"path": "."}), Reply.say("There is a *src* folder."),
                      Reply.say("Second chat."))
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000):
        type_and_enter(qtbot, chat, "What is in here?")
    first = chat.session_id
    chat.sessions.new_button.click()
    assert chat.session_id is None and chat.transcript.blocks == []
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000):
        type_and_enter(qtbot, chat, "Another topic")
    second = chat.session_id
    assert second != first
    assert set(chat.sessions.titles()) == {"What is in here?", "Another topic"}

    # Resume the first: its transcript comes back from history.db, tool card included.
    chat.sessions.select(first)
    assert chat.session_id == first
    shown = [m.shown_text().strip() for m in chat.transcript.messages()]
    assert shown == ["What is in here?", "There is a src folder."]
    card = chat.transcript.cards()[0]
    assert card.tool_id == "list_directory" and card.status == "done" and "src" in card.result_view.toPlainText()
    assert chat.usage_label.text().startswith("38 tokens")

    # Rename in place (as an edit of the list item does).
    index = chat.sessions.ids().index(first)
    chat.sessions.list.item(index).setText("Project tour")
    assert chat.backend.store.get(first).title == "Project tour"
    assert "Project tour" in chat.sessions.titles()

    # Delete the current one: it asks first; Cancel and Esc keep the session.
    chat.sessions.delete_button.click()
    dialog = chat.delete_dialog
    assert dialog is not None and dialog.isVisible()
    assert "Project tour" in dialog.message.text() and "cannot be undone" in dialog.message.text()
    dialog.cancel_button.click()
    assert chat.backend.store.get(first) is not None and chat.session_id == first
    chat.sessions.delete_button.click()
    dialog = chat.delete_dialog
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert not dialog.isVisible() and chat.backend.store.get(first) is not None
    chat.sessions.delete_button.click()
    dialog = chat.delete_dialog
    qtbot.keyClick(dialog, Qt.Key.Key_Return)  # Enter is Cancel (the default), never Delete
    assert chat.backend.store.get(first) is not None
    chat.sessions.delete_button.click()
    chat.delete_dialog.delete_button.click()
    assert chat.backend.store.get(first) is None
    assert chat.sessions.ids() == [second]
    assert chat.session_id is None and chat.transcript.blocks == []


def test_a_write_in_ask_before_acting_mode_asks_through_the_permission_dialog(
    chat, qtbot, llm_server: ScriptedLLMServer, project: Path
) -> None:
    chat.window().context.set_mode("confirm")
    llm_server.script(Reply.call("write_file", {"path": "notes.md", "content": "# Notes\n"}), Reply.say("Written."))
    opened = []
    chat.window().context.approvals.dialog_opened.connect(opened.append)
    type_and_enter(qtbot, chat, "write notes")
    qtbot.waitUntil(lambda: bool(opened), timeout=15_000)
    assert "new file" in opened[0].diff_view.toPlainText()
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000):
        opened[0].allow_button.click()
    assert (project / "notes.md").read_text() == "# Notes\n"
    assert chat.transcript.cards()[0].status == "done"


def _stored_questions(chat) -> list[str]:
    return [m.text for m in chat.backend.store.messages(chat.session_id) if m.role == "user"]


def test_try_again_after_a_server_error_sends_and_stores_the_message_once(
    chat, qtbot, llm_server: ScriptedLLMServer
) -> None:
    # A 504 (the gateway gave up): not one the retry policy waits out, so the turn fails at once.
    llm_server.script(Reply.error(504), Reply.say("Back again."))
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000):
        type_and_enter(qtbot, chat, "are you there?")
    assert chat.banner.isVisible() and chat.banner.button.text() == "Try again"
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000) as done:
        chat.banner.button.click()
    assert done.args == ["completed"]
    assert _stored_questions(chat) == ["are you there?"]
    sent = [m["content"] for m in llm_server.requests[-1].body["messages"] if m["role"] == "user"]
    assert sent == ["are you there?"]
    assert [m.shown_text().strip() for m in chat.transcript.messages()] == ["are you there?", "Back again."]


def test_edit_and_resend_replaces_the_last_turn(chat, qtbot, llm_server: ScriptedLLMServer) -> None:
    llm_server.script(Reply.say("Paris."), Reply.say("Rome."), Reply.say("Madrid."))
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000):
        type_and_enter(qtbot, chat, "Capital of France?")
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000):
        type_and_enter(qtbot, chat, "Capital of Itly?")
    question = chat.transcript.messages()[-2]
    first_question = chat.transcript.messages()[0]
    # Only the last question offers the edit, and not while a turn runs.
    assert question.edit_button.isVisibleTo(question)
    assert not first_question.edit_button.isVisibleTo(first_question)
    question.edit_button.click()
    assert chat.composer.toPlainText() == "Capital of Itly?"
    assert "replaces that turn" in chat.status.text()
    chat.composer.clear()
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000):
        type_and_enter(qtbot, chat, "Capital of Spain?")
    shown = [m.shown_text().strip() for m in chat.transcript.messages()]
    assert shown == ["Capital of France?", "Paris.", "Capital of Spain?", "Madrid."]
    # The model was sent the history without the replaced turn.
    sent = [m["content"] for m in llm_server.requests[-1].body["messages"] if m["role"] in ("user", "assistant")]
    assert sent == ["Capital of France?", "Paris.", "Capital of Spain?"]


def test_regenerate_asks_again_without_a_new_message(chat, qtbot, llm_server: ScriptedLLMServer) -> None:
    llm_server.script(Reply.say("A dull answer."), Reply.say("A better answer."))
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000):
        type_and_enter(qtbot, chat, "Tell me something")
    answer = chat.transcript.messages()[-1]
    assert answer.regenerate_button.isVisibleTo(answer)
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000) as done:
        answer.regenerate_button.click()
    assert done.args == ["completed"]
    shown = [m.shown_text().strip() for m in chat.transcript.messages()]
    assert shown == ["Tell me something", "A better answer."]
    assert _stored_questions(chat) == ["Tell me something"]
    sent = llm_server.requests[-1].body["messages"]
    assert [m["content"] for m in sent if m["role"] != "system"] == ["Tell me something"]


def test_regenerate_in_a_reopened_session_replaces_the_stored_answer_on_screen(
    chat, qtbot, llm_server: ScriptedLLMServer
) -> None:
    llm_server.script(Reply.say("First answer."), Reply.say("Second answer."))
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000):
        type_and_enter(qtbot, chat, "Tell me once")
    session = chat.session_id
    chat.new_session()
    chat.open_session(session)  # the turn is now stored history, not this sitting's blocks
    answer = chat.transcript.messages()[-1]
    assert answer.shown_text() == "First answer." and answer.regenerate_button.isVisibleTo(answer)
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000):
        answer.regenerate_button.click()
    assert [m.shown_text().strip() for m in chat.transcript.messages()] == ["Tell me once", "Second answer."]


def test_copy_puts_the_message_source_on_the_clipboard(chat, qtbot, llm_server: ScriptedLLMServer) -> None:
    from relavium_desktop.ui.qt import QApplication

    llm_server.script(Reply.say("Use **bold** sparingly."))
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000):
        type_and_enter(qtbot, chat, "style tip?")
    question, answer = chat.transcript.messages()
    answer.copy_button.click()
    assert QApplication.clipboard().text() == "Use **bold** sparingly."
    question.copy_button.click()
    assert QApplication.clipboard().text() == "style tip?"


def test_the_sessions_search_finds_a_chat_by_words_only_in_its_answer(
    chat, qtbot, llm_server: ScriptedLLMServer
) -> None:
    llm_server.script(Reply.say("The capybara is the largest rodent."), Reply.say("Second chat."))
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000):
        type_and_enter(qtbot, chat, "Tell me a fact")
    chat.new_session()
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000):
        type_and_enter(qtbot, chat, "Another question")
    assert len(chat.sessions.titles()) == 2
    qtbot.keyClicks(chat.sessions.search_box, "CAPYBARA")
    qtbot.waitUntil(lambda: chat.sessions.titles() == ["Tell me a fact"], timeout=5_000)
    chat.sessions.search_box.clear()
    qtbot.waitUntil(lambda: len(chat.sessions.titles()) == 2, timeout=5_000)


def test_the_page_names_the_open_chat_and_says_what_to_do_when_none_is_open(
    chat, qtbot, llm_server: ScriptedLLMServer
) -> None:
    """The window's top bar shows ``title_changed``; an empty page is the empty state, not a blank pane."""
    titles: list[str] = []
    chat.title_changed.connect(titles.append)
    empty = chat.empty_state
    assert empty is not None and chat.session_id is None
    assert empty.isVisibleTo(chat) and not chat.transcript.isVisibleTo(chat)
    assert chat.sessions.parent() is not chat  # the sidebar shows the chat list, not this page
    llm_server.script(Reply.say("Hello there."))
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000):
        type_and_enter(qtbot, chat, "What is in here?")
    assert titles[-1] == "What is in here?"
    assert chat.transcript.isVisibleTo(chat) and not empty.isVisibleTo(chat)
    first = chat.session_id
    chat.new_session()
    assert titles[-1] == "" and empty.isVisibleTo(chat)
    chat.open_session(first)
    assert titles[-1] == "What is in here?" and chat.transcript.isVisibleTo(chat)
    chat.rename_session(first, "Project tour")
    assert titles[-1] == "Project tour"
    empty.new_chat_button.click()  # the empty state's one button starts a fresh chat
    assert chat.session_id is None and titles[-1] == "" and empty.isVisibleTo(chat)
