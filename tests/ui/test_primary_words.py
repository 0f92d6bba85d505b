"""Words for people: no code, id or raw timestamp in the texts a surface shows first.

A table of surfaces × states, each walked by ``tests/ui/words.py``: the
permission sheet for a write, a command, a web fetch and an MCP tool
(as it opens, with the deny reason open, with Details expanded), the MCP
consent dialog, and the chat's error banner for every error code of the
fixed taxonomy (ARCHITECTURE.md) and every provider code.  Texts inside a
container marked as details are exempt -- and the test checks the ids are
really there, so the walker cannot pass by seeing nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from relavium_desktop.application.approvals import write_diff
from relavium_desktop.engine.errors import DenyReason, ErrorCode
from relavium_desktop.engine.llm.errors import ProviderErrorCode
from relavium_desktop.engine.tools.tooldef import ActionClass, ApprovalRequest
from relavium_desktop.host.mcp.hooks import ConsentRequest, ElicitationRequest, SamplingRequest
from relavium_desktop.ui.chat.banner import ErrorBanner
from relavium_desktop.ui.error_text import CODE_WORDS, REASON_WORDS, code_detail, error_words
from relavium_desktop.ui.mcp.consent_dialog import ConsentDialog
from relavium_desktop.ui.mcp.elicitation_dialog import ElicitationDialog
from relavium_desktop.ui.mcp.sampling_dialog import SamplingDialog
from relavium_desktop.ui.permission_dialog import PermissionDialog
from relavium_desktop.ui.qt import QPushButton, QWidget
from tests.ui.words import assert_words_for_people, problems

REQUESTS = {
    "write": ApprovalRequest("write_file", ActionClass.FS_WRITE, "src/app.py",
                             {"path": "src/app.py", "content": "print('bye')\n"}, "chat"),
    "command": ApprovalRequest("run_command", ActionClass.PROCESS, "pytest -q",
                               {"command": "pytest", "args": ["-q"]}, "chat"),
    "http": ApprovalRequest("http_request", ActionClass.EGRESS, "https://api.github.com/repos",
                            {"url": "https://api.github.com/repos"}, "review"),
    "mcp": ApprovalRequest("mcp_files_add", ActionClass.EGRESS, "",  # an MCP tool has no policy target
                           {"name": "notes.txt"}, "chat"),
}
STATES = ("opened", "deny reason open", "details expanded")


def open_sheet(qtbot, project: Path, kind: str) -> PermissionDialog:
    request = REQUESTS[kind]
    diff = write_diff(str(project), request) if kind == "write" else None
    dialog = PermissionDialog(request, project=str(project), diff=diff, grant_label="writes under src",
                              protected=False)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


@pytest.mark.parametrize("state", STATES)
@pytest.mark.parametrize("kind", sorted(REQUESTS))
def test_the_permission_sheet_speaks_words(qtbot, project: Path, kind: str, state: str) -> None:
    dialog = open_sheet(qtbot, project, kind)
    if state == "deny reason open":
        dialog.deny_button.click()
        assert dialog.reason.isVisible()
    elif state == "details expanded":
        dialog.details_toggle.click()
        assert dialog.details.isVisible()
    texts = assert_words_for_people(dialog, f"permission sheet ({kind}, {state})")
    assert any(t.endswith("?") for t in texts), texts  # the question is there
    if kind == "mcp":
        assert dialog.headline.text() == "Let the agent use the MCP tool “files add”?"
    # The ids are not lost: they are in Details.
    assert dialog.tool_label.text() == REQUESTS[kind].tool_id
    assert problems(dialog.tool_label.text()) == [REQUESTS[kind].tool_id]
    dialog.reject()


def test_the_walker_sees_an_id_outside_details(qtbot, project: Path) -> None:
    dialog = open_sheet(qtbot, project, "write")
    dialog.sub.setText("asked via fs_write at 2026-12-02T02:19:04+00:00")
    with pytest.raises(AssertionError):
        assert_words_for_people(dialog)
    assert problems(dialog.sub.text()) == ["fs_write", "2026-12-02T02:", "+00:00"]
    dialog.reject()


def consent() -> ConsentDialog:
    request = ConsentRequest(server="wf-files", fingerprint="f" * 64, command="npx",
                             args=("-y", "files-server", "/data"), env_names=("LOG_LEVEL",), cwd="/home/me/p")
    return ConsentDialog(request, project="/home/me/p")


def sampling() -> SamplingDialog:
    request = SamplingRequest(server="writer", messages=(("user", "Summarise: the sky is blue."),),
                              system_prompt="Be terse.", max_tokens=1200)
    return SamplingDialog(request, model="ollama/qwen2.5-coder:14b")


def elicitation() -> ElicitationDialog:
    schema = {"type": "object", "properties": {"name": {"type": "string", "title": "Your name"}},
              "required": ["name"]}
    return ElicitationDialog(ElicitationRequest(server="forms", message="Who is this invoice for?",
                                                requested_schema=schema))


MCP_DIALOGS = {"consent": consent, "sampling": sampling, "elicitation": elicitation}


@pytest.mark.parametrize("expanded", [False, True])
@pytest.mark.parametrize("name", sorted(MCP_DIALOGS))
def test_the_mcp_dialogs_ask_a_question_with_one_primary_button(qtbot, name: str, expanded: bool) -> None:
    dialog = MCP_DIALOGS[name]()
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    toggle = getattr(dialog, "details_toggle", None)
    assert (toggle is not None) == (name == "consent")  # only the consent dialog carries identifiers
    if expanded and toggle is not None:
        toggle.click()
    texts = assert_words_for_people(dialog, f"MCP {name}")
    assert texts[0].endswith("?"), texts  # the question is the first thing read
    primaries = [b for b in dialog.findChildren(QPushButton) if b.property("variant") == "primary"]
    assert len(primaries) == 1 and not primaries[0].isDefault()
    assert dialog.property("surface") == "sheet"
    dialog.reject()


def test_the_consent_fingerprint_is_in_the_collapsed_details(qtbot) -> None:
    dialog = consent()
    qtbot.addWidget(dialog)
    dialog.show()
    details = dialog.findChild(QWidget, "details")
    assert details is not None and not details.isVisible()
    assert dialog.fingerprint_label.parentWidget() is details
    assert dialog.fingerprint_label.text().startswith("ffffffffffff")
    dialog.details_toggle.click()
    assert details.isVisible() and dialog.details_toggle.text() == "Hide details"
    dialog.reject()


BANNER_CODES = [str(c) for c in ErrorCode] + [str(c) for c in ProviderErrorCode] + ["turn_limit", "some_new_code"]


@pytest.mark.parametrize("code", BANNER_CODES)
def test_the_error_banner_names_every_code_in_words(qtbot, code: str) -> None:
    banner = ErrorBanner()
    qtbot.addWidget(banner)
    banner.show_error({"code": code, "message": ""})
    texts = assert_words_for_people(banner, f"banner for {code}")
    assert texts and all(code not in t for t in texts), texts


def test_every_code_and_reason_has_a_sentence_and_the_code_stays_in_the_detail() -> None:
    for code in [*ErrorCode, *ProviderErrorCode]:
        assert str(code) in CODE_WORDS, code
    for reason in DenyReason:
        assert str(reason) in REASON_WORDS, reason
        words = error_words("tool_denied", str(reason))
        assert problems(words) == [] and words.startswith("A tool call was refused"), words
    assert error_words("made_up") == "Something went wrong."
    assert code_detail("tool_denied", "not_granted") == "tool_denied (not_granted)"


def test_the_banner_keeps_the_engine_message_in_its_collapsed_details(qtbot) -> None:
    banner = ErrorBanner()
    qtbot.addWidget(banner)
    banner.show()
    banner.show_error({"code": "tool_denied", "message": "write_file: tool_denied (not_granted) for notes.md"})
    texts = assert_words_for_people(banner, "banner with an engine message")
    assert texts[0] == "A tool call was refused, so the agent stopped."
    assert not banner.details.isVisible() and banner.details_toggle.text() == "Show details"
    banner.details_toggle.click()
    assert banner.details.isVisible() and banner.details_toggle.text() == "Hide details"
    assert "write_file" in banner.details.text() and "notes.md" in banner.details.text()
    assert_words_for_people(banner, "banner, details open")  # the ids are only in the details
    banner.show_error({"code": "provider_unavailable", "message": ""})  # the next error: collapsed again
    assert not banner.details.isVisible() and not banner.details_toggle.isVisible()


def test_the_walker_reads_table_cells_but_not_hidden_columns(qtbot) -> None:
    from relavium_desktop.ui.qt import QTableWidget, QTableWidgetItem

    table = QTableWidget(1, 2)
    qtbot.addWidget(table)
    table.setItem(0, 0, QTableWidgetItem("Write files"))
    table.setItem(0, 1, QTableWidgetItem("write_file"))  # an id in a cell a person reads first
    table.show()
    with pytest.raises(AssertionError):
        assert_words_for_people(table, "a table with an id")
    table.setColumnHidden(1, True)  # e.g. an id column kept for sorting, not shown
    assert assert_words_for_people(table, "the id column hidden") == ["Write files"]
