"""How the permission dialog reads: the action first and large, a coloured diff, scrolling arguments.

The dialogs come from the real approval controller of a real window (the
same path a chat turn takes), for a real file in a temporary project.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from relavium_desktop.engine.tools.tooldef import ActionClass, ApprovalRequest
from relavium_desktop.ui.permission_dialog import PermissionDialog
from relavium_desktop.ui.qt import QApplication, QPushButton, QTextCursor
from relavium_desktop.ui.theme.palette import DARK, LIGHT


@pytest.fixture
def window(make_window, project: Path, qtbot):
    w = make_window()
    w.context.set_project(str(project))
    w.context.ensure_services()
    w.show()
    qtbot.waitExposed(w)
    return w


def open_dialog(window, qtbot, request: ApprovalRequest) -> PermissionDialog:
    """The dialog the controller opens for ``request``; its pending answer is kept on it for deny()."""
    opened: list[PermissionDialog] = []
    window.context.approvals.dialog_opened.connect(opened.append)
    task = asyncio.ensure_future(window.context.approvals.confirm(request))
    qtbot.waitUntil(lambda: bool(opened))
    dialog = opened[0]
    qtbot.waitExposed(dialog)
    dialog.setProperty("pendingAnswer", task)
    return dialog


def deny(dialog: PermissionDialog, qtbot) -> None:
    task = dialog.property("pendingAnswer")
    dialog.deny_button.click()
    dialog.deny_confirm_button.click()
    qtbot.waitUntil(task.done)
    assert task.result().approved is False


def request(tool: str, action: ActionClass, target: str, args: dict) -> ApprovalRequest:
    return ApprovalRequest(tool_id=tool, action_class=action, target=target, masked_args=args, node_id="chat")


def line_pixel(view, prefix: str) -> str:
    """The colour at the right edge of the first line starting with ``prefix``: the line's own background."""
    block = view.document().firstBlock()
    while block.isValid() and not block.text().startswith(prefix):
        block = block.next()
    assert block.isValid(), prefix
    cursor = QTextCursor(block)
    y = view.cursorRect(cursor).center().y()
    image = view.viewport().grab().toImage()
    return image.pixelColor(image.width() - 4, y).name()


@pytest.mark.parametrize(("tool", "action", "target", "shown"), [
    ("write_file", ActionClass.FS_WRITE, "src/app.py", "Let the agent edit src/app.py?"),
    ("run_command", ActionClass.PROCESS, "npm test", "Run npm test in project?"),
    ("http_fetch", ActionClass.EGRESS, "https://example.com/api", "Fetch example.com?"),
])
def test_the_question_is_the_first_and_largest_line(window, qtbot, tool, action, target, shown) -> None:
    dialog = open_dialog(window, qtbot, request(tool, action, target, {"x": 1}))
    assert dialog.headline.text() == shown
    assert dialog.sub.text().startswith("In project · asked by the chat's agent")
    below = [w for w in (dialog.sub, dialog.why, dialog.allow_button, dialog.args_view) if w.isVisible()]
    assert all(dialog.headline.mapTo(dialog, dialog.headline.rect().topLeft()).y()
               < w.mapTo(dialog, w.rect().topLeft()).y() for w in below)
    assert dialog.headline.font().pointSize() > QApplication.font().pointSize()
    assert dialog.action_icon.pixmap() is not None and not dialog.action_icon.pixmap().isNull()
    deny(dialog, qtbot)


def test_the_diff_is_coloured_by_line_and_follows_the_theme(window, qtbot, project: Path) -> None:
    (project / "src" / "app.py").write_text("print('hello')\nkeep = 1\n")
    new = "print('goodbye')\nkeep = 1\n"
    dialog = open_dialog(window, qtbot, request(
        "write_file", ActionClass.FS_WRITE, "src/app.py", {"path": "src/app.py", "content": new}))
    view = dialog.diff_view
    assert view is not None
    assert "-print('hello')" in view.toPlainText() and "+print('goodbye')" in view.toPlainText()
    assert line_pixel(view, "+print") == LIGHT["diff_add_bg"]
    assert line_pixel(view, "-print") == LIGHT["diff_remove_bg"]
    assert line_pixel(view, " keep") == LIGHT["code_bg"]  # context lines keep the code background

    window.context.theme.set_choice("dark")
    assert line_pixel(view, "+print") == DARK["diff_add_bg"]
    assert line_pixel(view, "-print") == DARK["diff_remove_bg"]
    deny(dialog, qtbot)


def test_long_arguments_scroll_inside_a_bounded_dialog(window, qtbot) -> None:
    body = "\n".join(f"line {n}: " + "x" * 300 for n in range(400))
    dialog = open_dialog(window, qtbot, request(
        "http_fetch", ActionClass.EGRESS, "https://example.com/upload", {"url": "https://example.com", "body": body}))
    screen = dialog.screen().availableGeometry()
    assert dialog.height() <= screen.height()
    args = dialog.args_view
    # One long JSON line (the body's newlines are escaped) wraps and scrolls down, not off the side.
    qtbot.waitUntil(lambda: args.verticalScrollBar().maximum() > 0)
    assert args.horizontalScrollBar().maximum() == 0
    assert args.height() < screen.height() / 2
    deny(dialog, qtbot)


def test_arguments_read_as_key_value_lines_with_text_as_a_block(window, qtbot) -> None:
    dialog = open_dialog(window, qtbot, request(
        "run_command", ActionClass.PROCESS, "git commit", {
            "command": "git", "args": ["commit", "-m", "Fix the rounding"],
            "message": "first line\nsecond line"}))
    shown = dialog.args_view.toPlainText()
    assert "command: git" in shown
    assert "• commit" in shown and "• Fix the rounding" in shown
    assert "message:\n  first line\n  second line" in shown
    assert "\\n" not in shown and "{" not in shown  # not JSON with escaped newlines
    deny(dialog, qtbot)


def test_the_diff_has_old_and_new_line_numbers_under_a_file_header(window, qtbot, project: Path) -> None:
    (project / "src" / "app.py").write_text("a = 1\nb = 2\nc = 3\n")
    dialog = open_dialog(window, qtbot, request(
        "write_file", ActionClass.FS_WRITE, "src/app.py", {"path": "src/app.py", "content": "a = 1\nb = 20\nc = 3\n"}))
    view = dialog.diff_view
    assert view is not None and dialog.diff_header is not None
    numbered = dict(zip(view.toPlainText().split("\n"), view.numbers(), strict=False))
    assert numbered["-b = 2"] == (2, None) and numbered["+b = 20"] == (None, 2)
    assert numbered[" c = 3"] == (3, 3) and numbered["--- a/src/app.py"] == (None, None)
    assert view.gutter.isVisible() and view.gutter.width() > 0 and view.viewportMargins().left() == view.gutter.width()
    header = dialog.diff_header.accessibleName()
    assert header == "src/app.py: 1 lines added, 1 removed"
    assert "src/app.py" in dialog.diff_header.text()
    assert "+1" in dialog.diff_counts.text() and "\u22121" in dialog.diff_counts.text()
    assert dialog.sub.text() == "In project · asked by the chat's agent · the change below replaces 1 line with 1"
    assert dialog.allow_button.text() == "Allow edit"
    deny(dialog, qtbot)


def test_a_short_diff_is_shown_whole_under_a_one_line_header(window, qtbot, project: Path) -> None:
    """Nine lines of change: no scroll bar, no empty well, and the file's header stays one slim row."""
    (project / "src" / "app.py").write_text("".join(f"line {n}\n" for n in range(1, 8)))
    content = "".join(f"line {n}\n" for n in range(1, 8)).replace("line 4\n", "line four\n")
    dialog = open_dialog(window, qtbot, request(
        "write_file", ActionClass.FS_WRITE, "src/app.py", {"path": "src/app.py", "content": content}))
    view = dialog.diff_view
    assert view is not None and dialog.diff_header is not None
    qtbot.waitUntil(dialog.isVisible)
    assert view.verticalScrollBar().maximum() == 0  # every line in view
    last = view.document().lastBlock()
    spare = view.viewport().height() - (view.blockBoundingGeometry(last).translated(view.contentOffset()).bottom())
    assert 0 <= spare <= 2 * view.fontMetrics().lineSpacing()  # at most a line's room to spare
    row = dialog.diff_header.parentWidget()
    assert row is not None and row.height() <= dialog.diff_header.sizeHint().height() + 16
    assert view.numbers()[-1] == (None, None)  # the diff's final newline is no line of the file
    deny(dialog, qtbot)


def test_the_scope_is_one_exclusive_choice_and_there_is_one_primary_button(window, qtbot, project: Path) -> None:
    dialog = open_dialog(window, qtbot, request(
        "write_file", ActionClass.FS_WRITE, "src/app.py", {"path": "src/app.py", "content": "x\n"}))
    segments = [dialog.once_button, dialog.session_button, dialog.project_button]
    assert [b.text() for b in segments] == ["Once", "This session", "Always in project"]
    assert all(b.property("variant") == "segment" and b.isCheckable() for b in segments)
    assert dialog.once_button.isChecked() and dialog.selected_scope() == "once"
    dialog.project_button.click()
    assert dialog.selected_scope() == "project" and not dialog.once_button.isChecked()
    primaries = [b for b in dialog.findChildren(QPushButton) if b.property("variant") == "primary" and b.isVisible()]
    assert primaries == [dialog.allow_button]
    assert not any(b.isDefault() or b.autoDefault() for b in dialog.findChildren(QPushButton))
    assert dialog.property("surface") == "sheet"
    deny(dialog, qtbot)
