"""The permission dialog as the confirm hook: each button, grants across restarts, diffs, notifications."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from relavium_desktop.engine.agent.mode_ids import ChatMode
from relavium_desktop.engine.agent.modes import SessionApprovals
from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS
from relavium_desktop.engine.tools.registry import ToolRegistry
from relavium_desktop.engine.tools.tooldef import (
    ActionClass,
    ApprovalDecision,
    ApprovalRequest,
    ToolCall,
    ToolDispatchContext,
)
from relavium_desktop.host.assembly import HostSettings, build_host
from relavium_desktop.ui.permission_dialog import PermissionDialog
from relavium_desktop.ui.qt import Qt
from tests.fixtures.desktop_bus import desktop_bus  # noqa: F401
from tests.fixtures.notifications import NotificationDaemon, notification_daemon, notifications  # noqa: F401

SECRET = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123"


def write_req(path: str, content: str = "new text\n", *, protected: bool = False) -> ApprovalRequest:
    return ApprovalRequest(
        tool_id="write_file", action_class=ActionClass.FS_WRITE, target=path,
        masked_args={"path": path, "content": content}, node_id="chat", protected_path=protected,
    )


def ask(window, qtbot, request: ApprovalRequest):
    """Start confirm(); returns (task, dialog-or-None once it settles or shows)."""
    assert window.context.approvals is not None
    opened: list[PermissionDialog] = []
    window.context.approvals.dialog_opened.connect(opened.append)
    task = asyncio.ensure_future(window.context.approvals.confirm(request))
    qtbot.waitUntil(lambda: task.done() or bool(opened))
    return task, (opened[0] if opened else None)


def deny(dialog: PermissionDialog) -> None:
    """Deny… then Deny, as a person does (no reason typed)."""
    dialog.deny_button.click()
    assert dialog.reason.isVisible() and dialog.decision is None, "Deny… only asks for a reason"
    dialog.deny_confirm_button.click()


def answered(qtbot, task) -> ApprovalDecision:
    qtbot.waitUntil(task.done)
    return task.result()


@pytest.fixture
def window(make_window, project: Path):
    w = make_window()
    w.context.set_project(str(project))
    w.context.ensure_services()
    return w


def test_dialog_shows_tool_class_target_masked_args_and_diff(window, qtbot, project: Path) -> None:
    (project / "src" / "app.py").write_text(f"print('hello')\nOLD={SECRET}\n")
    task, dialog = ask(window, qtbot, write_req("src/app.py", f"print('bye')\nKEY={SECRET}\n"))
    assert dialog is not None and dialog.isVisible()
    assert dialog.headline.text() == "Let the agent edit src/app.py?"
    # The identifiers are in the collapsed Details, not in the words read first.
    assert not dialog.details.isVisible()
    dialog.details_toggle.click()
    assert dialog.details.isVisible()
    assert dialog.tool_label.text() == "write_file"
    assert dialog.class_label.text() == "fs_write"
    assert dialog.target_label.text() == "src/app.py"
    assert dialog.diff_view is not None
    diff = dialog.diff_view.toPlainText()
    assert "--- a/src/app.py" in diff and "-print('hello')" in diff and "+print('bye')" in diff
    everything = dialog.args_view.toPlainText() + diff
    # The request's args arrive masked by the engine; the diff masks both sides itself.
    assert SECRET not in everything
    deny(dialog)
    assert not answered(qtbot, task).approved


def test_new_file_diff(window, qtbot) -> None:
    task, dialog = ask(window, qtbot, write_req("src/fresh.py", "x = 1\n"))
    assert dialog is not None and dialog.diff_view is not None
    assert dialog.diff_view.toPlainText().startswith("new file: src/fresh.py\n+x = 1")
    dialog.allow_button.click()  # Once is the scope picked by default
    assert answered(qtbot, task) == ApprovalDecision(True, "once")


def test_allow_once_asks_again_next_time(window, qtbot) -> None:
    task, dialog = ask(window, qtbot, write_req("src/a.py"))
    dialog.allow_button.click()  # Once is the scope picked by default
    assert answered(qtbot, task) == ApprovalDecision(True, "once")
    task, dialog = ask(window, qtbot, write_req("src/a.py"))
    assert dialog is not None, "once must not be remembered"
    deny(dialog)
    answered(qtbot, task)


def test_allow_for_session_stops_asking_until_restart(window, qtbot, make_window, project: Path) -> None:
    task, dialog = ask(window, qtbot, write_req("src/a.py"))
    dialog.session_button.click()
    dialog.allow_button.click()
    assert answered(qtbot, task) == ApprovalDecision(True, "session")
    task, dialog = ask(window, qtbot, write_req("src/a.py"))
    assert dialog is None and task.result() == ApprovalDecision(True, "session")
    assert window.context.grants is not None and window.context.grants.list() == []
    # The engine's session key: that exact target, not its folder.
    task, dialog = ask(window, qtbot, write_req("src/b.py"))
    assert dialog is not None
    deny(dialog)
    answered(qtbot, task)

    restarted = make_window()
    restarted.context.ensure_services()
    task, dialog = ask(restarted, qtbot, write_req("src/a.py"))
    assert dialog is not None
    deny(dialog)
    answered(qtbot, task)


def test_always_in_project_survives_restart_and_is_gone_after_revoking(
    window, qtbot, make_window, project: Path, tmp_path: Path
) -> None:
    task, dialog = ask(window, qtbot, write_req("src/a.py"))
    assert "writes under src" in dialog.project_button.toolTip()
    dialog.project_button.click()
    dialog.allow_button.click()
    assert answered(qtbot, task) == ApprovalDecision(True, "project")
    # The window's grants are its Application's store (one history.db connection, closed with it),
    # the same one the chat and workflow runs consult.
    assert window.context.grants is window.context.app.grants()
    window.close()

    restarted = make_window()
    assert restarted.context.project == os.path.realpath(project)
    restarted.context.ensure_services()
    task, dialog = ask(restarted, qtbot, write_req("src/other.py"))
    assert dialog is None and task.result() == ApprovalDecision(True, "project")

    # A different project still asks.
    other = tmp_path / "other"
    (other / "src").mkdir(parents=True)
    restarted.context.set_project(str(other))
    task, dialog = ask(restarted, qtbot, write_req("src/a.py"))
    assert dialog is not None
    deny(dialog)
    answered(qtbot, task)
    restarted.context.set_project(str(project))

    # Settings → Permissions lists it; Revoke makes it ask again.
    page = restarted.show_settings("permissions").permissions
    assert page.table.rowCount() == 1
    assert page.table.item(0, 0).text() == os.path.realpath(project)
    assert page.table.item(0, 1).text() == "Writing files"  # the id is in the tooltip, not the cell
    assert page.table.item(0, 1).toolTip() == "write_file"
    assert page.table.item(0, 2).text() == "writes under src/"
    # When, in local words (the grant was just made); the full local timestamp on hover, never raw UTC.
    assert page.table.item(0, 3).text().startswith("Today ")
    assert "+00:00" not in page.table.item(0, 3).text() and "-" not in page.table.item(0, 3).text()
    assert "(UTC" in page.table.item(0, 3).toolTip()
    page.table.selectRow(0)
    qtbot.mouseClick(page.revoke_button, Qt.MouseButton.LeftButton)
    assert page.table.rowCount() == 0
    task, dialog = ask(restarted, qtbot, write_req("src/other.py"))
    assert dialog is not None
    deny(dialog)
    answered(qtbot, task)


def test_deny_asks_for_a_reason_enter_waits_for_the_arm_time_and_escape_denies(window, qtbot) -> None:
    task, dialog = ask(window, qtbot, write_req("src/a.py"))
    qtbot.waitExposed(dialog)
    # A key typed as the sheet appears (say, Enter in the composer) answers nothing.
    qtbot.keyClick(dialog, Qt.Key.Key_Enter)
    qtbot.keyClick(dialog, Qt.Key.Key_Return)
    assert not task.done() and dialog.isVisible(), "Enter must not answer a sheet that just appeared"
    dialog.deny_button.click()
    assert not task.done() and dialog.reason.hasFocus()
    qtbot.keyClicks(dialog.reason, "not that file")
    qtbot.keyClick(dialog.reason, Qt.Key.Key_Return)  # Enter in the reason denies, with the reason
    assert answered(qtbot, task) == ApprovalDecision(False, "once", "not that file")

    task, dialog = ask(window, qtbot, write_req("src/a.py"))
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert answered(qtbot, task) == ApprovalDecision(False, "once", None)

    # Once armed, Enter is the primary button with the scope picked.
    task, dialog = ask(window, qtbot, write_req("src/a.py"))
    qtbot.waitExposed(dialog)
    dialog.session_button.click()
    assert not task.done(), "picking a scope is not an answer"
    qtbot.waitUntil(dialog.armed, timeout=3000)
    qtbot.keyClick(dialog, Qt.Key.Key_Return)
    assert answered(qtbot, task) == ApprovalDecision(True, "session")


def test_one_session_cache_for_the_dialog_and_the_chat_modes(window, qtbot) -> None:
    task, dialog = ask(window, qtbot, write_req("src/a.py"))
    dialog.session_button.click()
    dialog.allow_button.click()
    answered(qtbot, task)
    shared = window.context.approvals.session_grants()

    class Asker:
        def __init__(self) -> None:
            self.asked: list[ApprovalRequest] = []

        async def __call__(self, request: ApprovalRequest) -> ApprovalDecision:
            self.asked.append(request)
            return ApprovalDecision(True, "session")

    asker = Asker()
    hook = SessionApprovals(ChatMode.CONFIRM, asker, shared).regime().hook
    assert hook is not None
    seen = asyncio.ensure_future(hook(write_req("src/a.py")))
    qtbot.waitUntil(seen.done)
    assert seen.result() == ApprovalDecision(True, "session") and asker.asked == []  # the dialog's answer
    remembered = asyncio.ensure_future(hook(write_req("src/c.py")))
    qtbot.waitUntil(remembered.done)
    assert len(asker.asked) == 1
    task, dialog = ask(window, qtbot, write_req("src/c.py"))  # the mode's answer: the dialog does not ask
    assert dialog is None and task.result() == ApprovalDecision(True, "session")


def test_protected_path_always_asks_and_offers_only_once(window, qtbot) -> None:
    task, dialog = ask(window, qtbot, write_req(".git/hooks/pre-commit", "#!/bin/sh\n", protected=True))
    assert not dialog.session_button.isEnabled() and not dialog.session_button.isVisibleTo(dialog)
    assert not dialog.project_button.isEnabled() and not dialog.project_button.isVisibleTo(dialog)
    assert not dialog.scope_row.isVisibleTo(dialog), "only once is allowed: no choice to show"
    assert "protected" in dialog.diff_view.toPlainText()
    dialog.allow_button.click()  # Once is the scope picked by default
    assert answered(qtbot, task).approved
    task, dialog = ask(window, qtbot, write_req(".git/hooks/pre-commit", "#!/bin/sh\n", protected=True))
    assert dialog is not None
    deny(dialog)
    answered(qtbot, task)


def test_governed_call_in_accept_edits_mode_asks_and_each_answer_reaches_the_tool(
    window, qtbot, project: Path
) -> None:
    registry = ToolRegistry(BUILTIN_TOOLS, build_host(HostSettings(workspace=project, home=window.context.app.paths.home)))
    approvals = SessionApprovals(ChatMode.CONFIRM, window.context.approvals.confirm)
    ctx = ToolDispatchContext(run_id="r1", node_id="chat", granted_tool_ids=frozenset({"write_file"}),
                              approval=approvals.regime())
    opened: list[PermissionDialog] = []
    window.context.approvals.dialog_opened.connect(opened.append)

    call = ToolCall("write_file", {"path": "src/app.py", "content": "print('approved')\n"})
    task = asyncio.ensure_future(registry.dispatch(call, ctx))
    qtbot.waitUntil(lambda: bool(opened))
    assert "+print('approved')" in opened[0].diff_view.toPlainText()
    opened[0].allow_button.click()
    qtbot.waitUntil(task.done)
    assert task.result().ok, task.result().error
    assert (project / "src" / "app.py").read_text() == "print('approved')\n"

    call = ToolCall("write_file", {"path": "src/app.py", "content": "print('denied')\n"})
    task = asyncio.ensure_future(registry.dispatch(call, ctx))
    qtbot.waitUntil(lambda: len(opened) == 2)
    deny(opened[1])
    qtbot.waitUntil(task.done)
    outcome = task.result()
    assert not outcome.ok and outcome.error.reason == "user_rejected"
    assert (project / "src" / "app.py").read_text() == "print('approved')\n"


def test_approval_notification_deny_answers_the_pending_dialog(
    make_window, qtbot, project: Path, notifications: NotificationDaemon,  # noqa: F811
) -> None:
    window = make_window()  # never shown, so never the active window
    window.context.set_project(str(project))
    window.context.ensure_services()
    assert not window.isActiveWindow()
    task, dialog = ask(window, qtbot, write_req("src/a.py"))
    assert dialog is not None
    qtbot.waitUntil(lambda: window.context.approvals.last_notification_id is not None, timeout=10_000)
    notifications.click("Relavium needs your permission", "Deny")
    decision = answered(qtbot, task)
    assert decision.approved is False
    offered = notifications.menu_entries()
    assert any(e.startswith("#Allow once (Relavium needs your permission)") for e in offered), offered
    assert any(e.startswith("#Deny (Relavium needs your permission)") for e in offered), offered
    # The notification asks the sheet's question in words, not with the tool and action ids.
    notifications.close_all()
    (body,) = [n["body"] for n in notifications.history() if n["summary"] == "Relavium needs your permission"]
    assert body == "Let the agent create src/a.py?" and "write_file" not in body and "fs_write" not in body


def test_approval_notification_allow_once_answers_the_pending_dialog(
    make_window, qtbot, project: Path, notifications: NotificationDaemon,  # noqa: F811
) -> None:
    window = make_window()
    window.context.set_project(str(project))
    window.context.ensure_services()
    task, _dialog = ask(window, qtbot, write_req("src/a.py"))
    qtbot.waitUntil(lambda: window.context.approvals.last_notification_id is not None, timeout=10_000)
    notifications.click("Relavium needs your permission", "Allow once")
    assert answered(qtbot, task) == ApprovalDecision(True, "once")
