"""Spoofing inputs × the app's surfaces: what is painted never holds a raw control or bidi character.

The same table as the CLI test (tests/spoofing.py): an escape sequence with
a CR, an RTL override, isolates, zero-width characters, a BOM, tag
characters, a 300-character path ending in ``.sh`` and a Cyrillic "о".
Surfaces: the permission dialog the real approval controller opens (its
rendered label texts), a tool card, a gate notification and the approval
notification through a real notification daemon (dunst), and a chat title
in the sessions list.  Each marker must be visible where the name is.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from relavium_desktop.engine.display_text import MARKERS_NOTICE
from relavium_desktop.engine.tools.tooldef import ActionClass, ApprovalRequest
from relavium_desktop.store.db import history_db_path, open_db
from relavium_desktop.store.sessions import SqliteSessionStore
from relavium_desktop.ui.approval import ALLOW_ONCE, DENY
from relavium_desktop.ui.chat.sessions_panel import SessionsPanel
from relavium_desktop.ui.chat.tool_cards import ToolCard
from relavium_desktop.ui.clipboard_actions import ClipboardAction
from relavium_desktop.ui.permission_dialog import HEADLINE_CHARS, PermissionDialog
from relavium_desktop.ui.qt import QApplication, QLabel, Qt, QTextDocument
from relavium_desktop.ui.quick_panel import QuickPanel
from relavium_desktop.ui.runs.run_story import story
from relavium_desktop.ui.runs.story_view import StoryView
from relavium_desktop.ui.theme.palette import LIGHT
from relavium_desktop.ui.workflows.gate import APPROVE, NOTIFICATION_TITLE, REJECT, GatePrompter
from tests.fixtures.desktop_bus import desktop_bus  # noqa: F401
from tests.fixtures.notifications import NotificationDaemon, notification_daemon, notifications  # noqa: F401
from tests.spoofing import SPOOFS, raw_characters

NAMES = sorted(SPOOFS)


def painted(label: QLabel) -> str:
    """The text a label paints: rich text laid out as Qt does, plain text as it is."""
    if label.textFormat() == Qt.TextFormat.RichText:
        document = QTextDocument()
        document.setHtml(label.text())
        return document.toPlainText()
    return label.text()


def assert_clean(where: str, text: str) -> None:
    assert raw_characters(text) == [], (where, text)


def write_request(path: str) -> ApprovalRequest:
    return ApprovalRequest(tool_id="write_file", action_class=ActionClass.FS_WRITE, target=path,
                           masked_args={"path": path, "content": "echo hi\n"}, node_id="chat")


def open_dialog(window, qtbot, request: ApprovalRequest) -> tuple[PermissionDialog, asyncio.Future]:
    opened: list[PermissionDialog] = []
    window.context.approvals.dialog_opened.connect(opened.append)
    task = asyncio.ensure_future(window.context.approvals.confirm(request))
    qtbot.waitUntil(lambda: bool(opened))
    return opened[0], task


@pytest.fixture
def window(make_window, project: Path, qtbot):
    w = make_window()
    w.context.set_project(str(project))
    w.context.ensure_services()
    return w


@pytest.mark.parametrize("name", NAMES)
def test_the_permission_dialog_paints_markers_never_raw_characters(window, qtbot, name: str) -> None:
    spoof = SPOOFS[name]
    window.show()
    qtbot.waitExposed(window)
    dialog, task = open_dialog(window, qtbot, write_request(spoof.raw))
    qtbot.waitExposed(dialog)
    headline, target, notes = painted(dialog.headline), painted(dialog.target_label), painted(dialog.target_notes)
    for where, text in [("headline", headline), ("target", target), ("notes", notes),
                        ("title", dialog.windowTitle()), ("arguments", dialog.args_view.toPlainText()),
                        ("diff", dialog.diff_view.toPlainText() if dialog.diff_view else "")]:
        assert_clean(where, text)
    for marker in spoof.markers:
        assert marker in headline and marker in target, marker
        assert marker in dialog.args_view.toPlainText()
        # Styled as a marker, not as text: a span of its own in the warning colours.
        assert f"background-color: {LIGHT['warning_bg']}" in dialog.headline.text()
    for text in spoof.visible:
        assert text in headline + "\n" + notes, (text, headline, notes)
    # The question says when the name it shows was marked; a shell script is named as one.
    assert (MARKERS_NOTICE in notes) == bool(spoof.markers)
    assert ("This is a shell script" in notes) == spoof.raw.endswith(".sh")
    if name == "long-sh":
        question = "Let the agent create ?"  # a new file
        assert len(headline) <= HEADLINE_CHARS + len(question)
        assert headline.endswith("/" + spoof.raw.rsplit("/", 1)[1] + "?")
        assert "…" in headline and target.replace("\n", "") == spoof.raw  # the Target row has it whole
    dialog.reject()  # Esc, Deny and closing all deny
    qtbot.waitUntil(task.done)
    assert task.result().approved is False


@pytest.mark.parametrize("name", NAMES)
def test_a_tool_card_paints_markers_never_raw_characters(qtbot, name: str) -> None:
    spoof = SPOOFS[name]
    card = ToolCard("write_file", {"path": spoof.raw, "content": f"echo {spoof.raw}\n"})
    qtbot.addWidget(card)
    card.show()
    summary = painted(card.summary)
    assert_clean("summary", summary)
    assert_clean("tooltip", card.summary.toolTip())
    card.set_expanded(True)
    assert_clean("arguments", card.result_view.toPlainText())
    card.set_result({"success": False, "error": {"code": "tool_failed", "message": f"cannot write {spoof.raw}"}})
    card.set_expanded(True)
    assert_clean("failure", card.result_view.toPlainText())
    assert_clean("card", card.plain_text())
    for marker in spoof.markers:
        assert marker in painted(card.summary), marker
        assert marker in card.result_view.toPlainText(), marker
    if name == "long-sh":
        assert card.summary.toolTip().endswith("install.sh")


@pytest.mark.parametrize("name", NAMES)
def test_gate_and_approval_notifications_reach_the_daemon_marked(
    make_window, project: Path, qtbot, name: str, notifications: NotificationDaemon,  # noqa: F811
) -> None:
    spoof = SPOOFS[name]
    window = make_window()  # never shown: not the active window, so notifications are sent
    window.context.set_project(str(project))
    window.context.ensure_services()
    prompter = GatePrompter(window, notifier=lambda: window.context.desktop_os)
    gate = {"gateId": "g1", "nodeId": f"review-{spoof.raw}", "gateType": "approval",
            "message": f"Ship {spoof.raw}?\nSecond line"}
    dialog = prompter.ask("run-1", gate)
    assert_clean("gate dialog", painted(dialog.message) + dialog.windowTitle() + dialog.where.text())
    qtbot.waitUntil(lambda: prompter.last_notification_id is not None, timeout=10_000)
    with qtbot.waitSignal(prompter.decided, timeout=15_000):
        notifications.click(NOTIFICATION_TITLE, REJECT)
    offered = notifications.menu_entries()  # the button labels dunst shows
    assert any(e.startswith(f"#{APPROVE} (") for e in offered) and any(e.startswith(f"#{REJECT} (") for e in offered)
    assert dialog.decision is not None and dialog.decision.decision == "rejected"

    _dialog, task = open_dialog(window, qtbot, write_request(spoof.raw))
    approvals = window.context.approvals
    qtbot.waitUntil(lambda: approvals.last_notification_id is not None, timeout=10_000)
    notifications.click("Relavium needs your permission", DENY)
    qtbot.waitUntil(task.done, timeout=15_000)
    assert task.result().approved is False
    offered += notifications.menu_entries()
    assert any(e.startswith(f"#{ALLOW_ONCE} (") for e in offered)

    notifications.close_all()
    shown = notifications.history()[:2]
    assert {n["summary"] for n in shown} == {NOTIFICATION_TITLE, "Relavium needs your permission"}
    for note in shown:
        assert_clean("notification", note["summary"] + note["body"])
        for marker in spoof.markers:
            assert marker in note["body"], (marker, note["body"])
    assert_clean("buttons", "\n".join(offered))
    if name == "long-sh":
        approval_body = next(n["body"] for n in shown if n["summary"] != NOTIFICATION_TITLE)
        assert approval_body.endswith("install.sh?") and "…" in approval_body  # the end is kept


def test_chat_titles_in_the_sessions_list_are_marked(qtbot, relavium_home: Path) -> None:
    store = SqliteSessionStore(open_db(history_db_path(relavium_home)))
    for name in NAMES:
        store.create(title=SPOOFS[name].raw[:200], agent_id="chat", mode="confirm")
    panel = SessionsPanel(store.search)
    qtbot.addWidget(panel)
    panel.resize(2400, 600)  # wide enough that no title is elided
    panel.show()
    panel.fill(store.list_sessions(), None)
    painted_titles = []
    for row in range(panel.list.count()):
        item = panel.list.item(row)
        label = panel.list.itemWidget(item).title
        assert label.textFormat() == Qt.TextFormat.PlainText  # a title is never read as markup
        assert_clean("title", label.text())
        assert_clean("tooltip", item.toolTip())
        painted_titles.append(label.full_text())
    for name in NAMES:
        for marker in SPOOFS[name].markers:
            assert any(marker in title for title in painted_titles), (name, marker)


@pytest.mark.parametrize("name", NAMES)
def test_history_rows_show_markers_never_raw_characters(qtbot, name: str) -> None:
    spoof = SPOOFS[name]
    events = [
        {"type": "agent:tool_call", "nodeId": "draft", "toolId": "write_file", "toolInput": {"path": spoof.raw}},
        {"type": "agent:tool_result", "nodeId": "draft", "toolId": "write_file", "success": False,
         "error": {"code": "tool_failed", "message": f"cannot write {spoof.raw}"}},
        {"type": "human_gate:paused", "nodeId": "review", "message": f"Ship {spoof.raw}?"},
    ]
    view = StoryView(LIGHT)
    qtbot.addWidget(view)
    view.set_rows(story(events))
    texts = view.texts()
    assert len(texts) == 3
    for row in range(view.table.rowCount()):
        item = view.table.item(row, 1)
        assert_clean("history row", item.text() + item.toolTip())
    for marker in spoof.markers:
        assert all(marker in text for text in texts[1:]), (marker, texts)  # the whole message is there
        assert marker in view.table.item(0, 1).toolTip()  # the call's full preview


@pytest.mark.parametrize("name", ["ansi-erase-cr", "rtl-override", "tags"])
def test_the_quick_panel_shows_markers_and_copies_what_the_model_wrote(qtbot, qloop, name: str) -> None:
    spoof = SPOOFS[name]
    result = f"Saved as {spoof.raw}"

    async def runner(_action: ClipboardAction, _text: str) -> str:
        return result

    action = ClipboardAction("summarize", f"Summarize {spoof.raw}", "One paragraph", "Summarize {{clipboard}}")
    panel = QuickPanel(f"notes about {spoof.raw}", [action], runner)
    qtbot.addWidget(panel)
    panel.show()
    panel.action_list.item(0).click()  # a tile runs its action
    qtbot.waitUntil(panel.copy_button.isEnabled, timeout=10_000)
    shown = [panel.preview.toPlainText(), panel.result_view.toPlainText(), panel.status.text(),
             panel.action_list.item(0).text()]
    for text in shown:
        assert_clean("quick panel", text)
        for marker in spoof.markers:
            assert marker in text, (marker, text)
    panel.copy_button.click()
    assert QApplication.clipboard().text() == result  # Copy gives the model's text, not the display form


def test_a_command_card_marks_a_carriage_return_instead_of_hiding_it(qtbot) -> None:
    card = ToolCard("run_command", {"command": "rm", "args": ["-rf\rsafe-looking"]})
    qtbot.addWidget(card)
    assert "⟦\\r⟧" in painted(card.summary)
    assert_clean("summary", painted(card.summary))


@pytest.mark.parametrize(("target", "kinds"), [
    ("../elsewhere/deploy.sh", "This is a shell script, outside the project."),
    ("config/.hidden-settings", "This is a hidden file."),
])
def test_the_dialog_names_the_kind_of_target(window, qtbot, target: str, kinds: str) -> None:
    dialog, task = open_dialog(window, qtbot, write_request(target))
    assert painted(dialog.target_notes).splitlines()[0] == kinds
    assert dialog.target_notes.isVisibleTo(dialog)
    dialog.reject()  # Esc, Deny and closing all deny
    qtbot.waitUntil(task.done)
