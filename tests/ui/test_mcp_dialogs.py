"""The dialogs an MCP server can open in the app: a form (elicitation), consent to start, sampling.

pytest-qt fills and clicks them as a person would.  The hooks are driven
through the same coroutines the MCP host awaits, with consents kept in a
real history.db and sampling answered by the scripted LLM server over HTTP.
"""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from relavium_desktop.application.app import Application
from relavium_desktop.application.paths import AppPaths
from relavium_desktop.host.mcp.hooks import ConsentRequest, ElicitationRequest, SamplingRequest
from relavium_desktop.ui.mcp.consent_dialog import ConsentDialog
from relavium_desktop.ui.mcp.elicitation_dialog import ElicitationDialog
from relavium_desktop.ui.mcp.hooks import AppMcpHooks, complete_with_chat_model
from relavium_desktop.ui.mcp.sampling_dialog import SamplingDialog
from relavium_desktop.ui.qt import QLabel, Qt, QWidget
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.ui.chat_driver import ROUTE

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Your name", "description": "As it should appear on the invoice"},
        "age": {"type": "integer", "minimum": 0, "maximum": 150},
        "ratio": {"type": "number"},
        "subscribe": {"type": "boolean", "default": False},
        "colour": {"type": "string", "enum": ["red", "green", "blue"], "enumNames": ["Red", "Green", "Blue"]},
        "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
    },
    "required": ["name", "age", "colour"],
}


def elicitation(schema: dict[str, Any] = SCHEMA) -> ElicitationRequest:
    return ElicitationRequest(server="forms", message="Who is this invoice for?", requested_schema=schema)


def consent_request(args: tuple[str, ...] = ("-y", "files-server", "/data")) -> ConsentRequest:
    fingerprint = "f" * 64 if args == ("-y", "files-server", "/data") else "e" * 64
    return ConsentRequest(server="wf-files", fingerprint=fingerprint, command="npx", args=args,
                          env_names=("LOG_LEVEL", "FILES_ROOT"), cwd="/home/me/project")


@pytest.fixture
def parent(qtbot) -> QWidget:
    widget = QWidget()
    qtbot.addWidget(widget)
    return widget


# -- elicitation --------------------------------------------------------------------------------


def test_the_form_is_built_from_the_schema_and_accept_returns_typed_content(qtbot, parent) -> None:
    dialog = ElicitationDialog(elicitation(), parent)
    qtbot.addWidget(dialog)
    dialog.show()
    assert set(dialog.fields) == {"name", "age", "ratio", "subscribe", "colour", "size"}
    labels = {label.text() for label in dialog.findChildren(QLabel)}
    assert {"Your name *", "age *", "colour *", "ratio", "subscribe", "size"} <= labels  # required marks
    assert "As it should appear on the invoice" in labels
    assert dialog.findChild(QWidget, "elicitationMessage").text() == "Who is this invoice for?"
    # A required field left empty keeps the dialog open and says which.
    dialog.accept_button.click()
    assert dialog.answer is None and dialog.isVisible()
    assert "Your name: required" in dialog.status.text()

    qtbot.keyClicks(dialog.fields["name"].widget, "Ada Lovelace")
    qtbot.keyClicks(dialog.fields["age"].widget, "36")
    qtbot.keyClicks(dialog.fields["ratio"].widget, "0.25")
    dialog.fields["subscribe"].widget.setChecked(True)
    dialog.fields["colour"].widget.setCurrentIndex(1)  # Green (required: no "(none)" entry)
    dialog.fields["size"].widget.setCurrentIndex(2)  # (none), Small, Large
    qtbot.keyClick(dialog, Qt.Key.Key_Return)  # Enter never submits
    assert dialog.answer is None
    with qtbot.waitSignal(dialog.answered) as blocker:
        dialog.accept_button.click()
    answer = blocker.args[0]
    assert answer.action == "accept"
    assert answer.content == {"name": "Ada Lovelace", "age": 36, "ratio": 0.25, "subscribe": True,
                              "colour": "green", "size": "l"}
    assert isinstance(answer.content["age"], int)


def test_a_value_out_of_range_is_refused_before_it_is_sent(qtbot, parent) -> None:
    dialog = ElicitationDialog(elicitation(), parent)
    qtbot.addWidget(dialog)
    qtbot.keyClicks(dialog.fields["name"].widget, "Ada")
    qtbot.keyClicks(dialog.fields["age"].widget, "200")
    dialog.fields["colour"].widget.setCurrentIndex(0)
    dialog.accept_button.click()
    assert dialog.answer is None and "age: at most 150" in dialog.status.text()
    dialog.fields["age"].widget.setText("3.5")
    dialog.accept_button.click()
    assert "age: a whole number is needed" in dialog.status.text()


def test_decline_and_cancel_are_distinct_answers(qtbot, parent) -> None:
    declined = ElicitationDialog(elicitation(), parent)
    qtbot.addWidget(declined)
    declined.decline_button.click()
    assert declined.answer is not None
    assert (declined.answer.action, declined.answer.content) == ("decline", None)

    cancelled = ElicitationDialog(elicitation(), parent)
    qtbot.addWidget(cancelled)
    cancelled.show()
    qtbot.keyClick(cancelled, Qt.Key.Key_Escape)  # dismissed, not declined
    assert cancelled.answer is not None and cancelled.answer.action == "cancel"


def test_the_hook_opens_the_form_without_blocking_and_returns_its_answer(qtbot, qloop, parent) -> None:
    hooks = AppMcpHooks(parent, project=lambda: "")
    opened: list[Any] = []
    hooks.dialog_opened.connect(opened.append)
    task = asyncio.ensure_future(hooks.client_hooks().elicit(elicitation({
        "type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]})))
    qtbot.waitUntil(lambda: bool(opened))
    dialog = opened[0]
    assert isinstance(dialog, ElicitationDialog) and dialog.isVisible()
    assert not task.done()  # the loop keeps running while the user reads
    qtbot.keyClicks(dialog.fields["count"].widget, "7")
    dialog.accept_button.click()
    qtbot.waitUntil(task.done)
    assert task.result().action == "accept" and task.result().content == {"count": 7}


# -- consent ---------------------------------------------------------------------------------


def test_the_consent_dialog_shows_what_would_run_and_a_changed_fingerprint(qtbot, parent) -> None:
    request = consent_request()
    dialog = ConsentDialog(request, project="/home/me/project", parent=parent)
    qtbot.addWidget(dialog)
    assert dialog.command_label.text() == "npx"
    assert dialog.args_view.toPlainText() == "-y\nfiles-server\n/data"
    assert dialog.env_label.text() == "LOG_LEVEL, FILES_ROOT"
    assert dialog.cwd_label.text() == "/home/me/project"
    assert dialog.changed_banner.isHidden()

    changed = ConsentDialog(consent_request(("-y", "files-server", "/")), project="/p",
                            previous_fingerprint="f" * 64, parent=parent)
    qtbot.addWidget(changed)
    assert not changed.changed_banner.isHidden()
    assert "changed since you allowed it" in changed.changed_banner.text()
    assert "ffffffffffff…" in changed.changed_banner.text() and "eeeeeeeeeeee…" in changed.changed_banner.text()
    changed.show()
    qtbot.keyClick(changed, Qt.Key.Key_Return)  # Enter does not start anything
    assert changed.allowed is None
    qtbot.keyClick(changed, Qt.Key.Key_Escape)
    assert changed.allowed is False


def test_consent_is_asked_once_per_project_and_again_when_the_launch_changes(
    qtbot, qloop, parent, relavium_home: Path, project: Path
) -> None:
    app = Application(AppPaths(relavium_home))  # the window's: one history.db connection, closed at the end
    hooks = AppMcpHooks(parent, project=lambda: str(project), consents=app.consents)
    opened: list[Any] = []
    hooks.dialog_opened.connect(opened.append)

    def ask(request: ConsentRequest) -> asyncio.Future[bool]:
        return asyncio.ensure_future(hooks.client_hooks().consent(request))

    first = ask(consent_request())
    qtbot.waitUntil(lambda: len(opened) == 1)
    opened[0].start_button.click()
    qtbot.waitUntil(first.done)
    assert first.result() is True

    again = ask(consent_request())  # a second start (a new host, a restart): no question
    qtbot.waitUntil(again.done)
    assert again.result() is True and len(opened) == 1

    moved = ask(consent_request(("-y", "files-server", "/")))
    qtbot.waitUntil(lambda: len(opened) == 2)
    assert "changed since you allowed it" in opened[1].changed_banner.text()
    opened[1].refuse_button.click()
    qtbot.waitUntil(moved.done)
    assert moved.result() is False
    app.close()
    reopened = Application(AppPaths(relavium_home))  # what was granted is in the file, not only in memory
    try:
        [kept] = reopened.consents().list()
        assert kept.fingerprint == "f" * 64 and kept.args == ("-y", "files-server", "/data")
    finally:
        reopened.close()


# -- sampling ---------------------------------------------------------------------------------


def test_the_sampling_dialog_shows_server_messages_and_max_tokens(qtbot, parent) -> None:
    request = SamplingRequest(server="writer", messages=(("user", "Summarise: the sky is blue."),
                                                         ("assistant", "Blue sky."), ("user", "Shorter?")),
                              system_prompt="Be terse.", max_tokens=1200)
    dialog = SamplingDialog(request, model=ROUTE, parent=parent)
    qtbot.addWidget(dialog)
    text = dialog.messages_view.toPlainText()
    assert text.index("User:\nSummarise") < text.index("Assistant:\nBlue sky.") < text.index("User:\nShorter?")
    assert dialog.model_label.text() == ROUTE
    assert dialog.max_tokens_label.text() == "1,200 tokens" and dialog.max_tokens_label.isVisibleTo(dialog)
    assert "writer" in dialog.windowTitle()
    no_model = SamplingDialog(request, model=None, parent=parent)
    qtbot.addWidget(no_model)
    assert not no_model.answer_button.isEnabled()


def test_an_approved_sampling_request_is_answered_by_the_users_model(
    qtbot, qloop, parent, providers: None, llm_server: ScriptedLLMServer, relavium_home: Path
) -> None:
    llm_server.script(Reply.say("Blue."))
    hooks = AppMcpHooks(parent, project=lambda: "", model=lambda: ROUTE,
                        complete=partial(complete_with_chat_model, home=relavium_home))
    opened: list[Any] = []
    hooks.dialog_opened.connect(opened.append)
    request = SamplingRequest(server="writer", messages=(("user", "One word for the sky's colour?"),),
                              system_prompt=None, max_tokens=16)
    task = asyncio.ensure_future(hooks.client_hooks().sample(request))
    qtbot.waitUntil(lambda: bool(opened))
    opened[0].answer_button.click()
    qtbot.waitUntil(task.done, timeout=15_000)
    assert task.result().text == "Blue." and task.result().model == ROUTE
    sent = llm_server.requests[-1].body
    assert sent["max_tokens"] == 16 or sent.get("max_completion_tokens") == 16
    assert "One word for the sky" in str(sent["messages"])

    refused = asyncio.ensure_future(hooks.client_hooks().sample(request))
    qtbot.waitUntil(lambda: len(opened) == 2)
    opened[1].refuse_button.click()
    qtbot.waitUntil(refused.done)
    with pytest.raises(PermissionError, match="refused the sampling request of MCP server 'writer'"):
        refused.result()
    assert len(llm_server.requests) == 1  # a refusal sends nothing to the provider


def test_the_consent_dialog_says_which_sandbox_the_server_would_run_in(qtbot, parent) -> None:
    from dataclasses import replace

    strict = ConsentDialog(consent_request(), project="/p", parent=parent)
    qtbot.addWidget(strict)
    assert strict.sandbox_label.text().startswith("Strict: writes only its working folder")
    off = ConsentDialog(replace(consent_request(), sandbox="off"), project="/p", parent=parent)
    qtbot.addWidget(off)
    assert "runs unconfined, with all of your rights" in off.sandbox_label.text()
