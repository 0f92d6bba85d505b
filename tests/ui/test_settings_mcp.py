"""Settings → MCP servers edits mcp.yaml and tests servers against a real stdio MCP server.

Real parts: mcp.yaml on disk (round-trip edits), the SDK fixture server
(tests/fixtures/mcp_server.py) spawned by the real host for "Test", and the
consent records in a real history.db.  The only stand-in is the "open the
file in an editor" action (it would start the desktop's editor).
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from relavium_desktop.application.mcp import mcp_consents
from relavium_desktop.host.mcp import load_servers
from relavium_desktop.ui.qt import Qt

FIXTURE = str(Path(__file__).resolve().parents[1] / "fixtures" / "mcp_server.py")
HAND_WRITTEN = "# my servers, kept by hand\nservers:\n  # nothing yet\n  {}\n"


@pytest.fixture(autouse=True)
def no_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")


def fixture_yaml() -> str:
    return ("# my servers, kept by hand\nservers:\n  fixture:   # the SDK test server\n"
            f"    transport: stdio\n    command: {sys.executable}\n    args: [{FIXTURE}, stdio]\n")


def open_page(make_window):
    window = make_window()
    return window.show_settings("mcp").mcp


def add_fixture_through_the_dialog(page, name: str = "fixture") -> None:
    page.add_button.click()
    dialog = page.server_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.name_edit.setText(name)
    dialog.transport.setCurrentIndex(dialog.transport.findData("stdio"))
    dialog.command_edit.setText(sys.executable)
    dialog.args_edit.setText(shlex.join([FIXTURE, "stdio"]))
    dialog.env_edit.setPlainText("LOG_LEVEL=debug")
    dialog.save_button.click()


def test_adding_the_fixture_server_then_test_shows_its_tools_and_latency(
    make_window, qtbot, relavium_home: Path
) -> None:
    page = open_page(make_window)
    assert not page.empty.isHidden()  # an empty state that says what to do next
    assert "Add server" in page.empty.text()
    add_fixture_through_the_dialog(page)
    assert page.server_dialog is None  # saved and closed
    entry = load_servers(relavium_home)["fixture"]
    assert entry.args == (FIXTURE, "stdio") and entry.env == {"LOG_LEVEL": "debug"}  # type: ignore[union-attr]
    assert page.selected() == "fixture"
    assert "Not tested" in page.health.text()

    with qtbot.waitSignal(page.tested, timeout=30_000) as blocker:
        page.test_button.click()
        assert page.health.text() == "Testing…"  # the window keeps painting while the test runs
    report = blocker.args[1]
    assert report.ok, report.error
    count = len(report.all_tool_names)
    assert count >= 7 and {"add", "echo"} <= set(report.all_tool_names)
    assert f"{count} tools" in page.health.text() and " ms" in page.health.text()
    assert page.health.property("tone") == "success"
    assert set(page.tool_boxes) == set(report.all_tool_names)
    assert all(box.isChecked() for box in page.tool_boxes.values())
    shown = [page.resources_list.item(i).text() for i in range(page.resources_list.count())]
    assert [r.uri for r in report.resources] and all(any(r.uri in s for s in shown) for r in report.resources)
    prompts = [page.prompts_list.item(i).text() for i in range(page.prompts_list.count())]
    assert [p.name for p in report.prompts] and all(any(f"/{p.name}" in s for s in prompts) for p in report.prompts)


def test_unchecking_a_tool_writes_the_allowlist_and_checking_all_removes_it(
    make_window, qtbot, relavium_home: Path
) -> None:
    (relavium_home / "mcp.yaml").write_text(fixture_yaml())
    page = open_page(make_window)
    with qtbot.waitSignal(page.tested, timeout=30_000) as blocker:
        page.test_button.click()
    names = blocker.args[1].all_tool_names
    page.tool_boxes["echo"].setChecked(False)
    entry = load_servers(relavium_home)["fixture"]
    assert entry.tools_allowlist is not None and set(entry.tools_allowlist) == set(names) - {"echo"}
    text = (relavium_home / "mcp.yaml").read_text()
    assert "# my servers, kept by hand" in text and "# the SDK test server" in text
    assert f"({len(names) - 1} offered)" in page.health.text()

    page.tool_boxes["echo"].setChecked(True)
    assert load_servers(relavium_home)["fixture"].tools_allowlist is None
    assert "toolsAllowlist" not in (relavium_home / "mcp.yaml").read_text()


def test_a_credential_in_env_is_refused_in_the_dialog_and_nothing_is_written(
    make_window, relavium_home: Path
) -> None:
    (relavium_home / "mcp.yaml").write_text(HAND_WRITTEN)
    page = open_page(make_window)
    page.add_button.click()
    dialog = page.server_dialog
    dialog.name_edit.setText("gh")
    dialog.command_edit.setText("github-mcp")
    dialog.env_edit.setPlainText("GITHUB_TOKEN=ghp_pasted_value")
    dialog.save_button.click()
    assert page.server_dialog is dialog and dialog.isVisible()  # stays open with what was typed
    assert "credentialRef" in dialog.status.text()
    assert "ghp_pasted_value" not in dialog.status.text()
    assert (relavium_home / "mcp.yaml").read_text() == HAND_WRITTEN
    dialog.cancel_button.click()


def test_editing_keeps_comments_and_remove_asks_first(make_window, relavium_home: Path) -> None:
    (relavium_home / "mcp.yaml").write_text(fixture_yaml())
    page = open_page(make_window)
    dialog = page.open_edit_dialog("fixture")
    assert dialog.command_edit.text() == sys.executable
    dialog.args_edit.setText(shlex.join([FIXTURE, "stdio", "--extra"]))
    dialog.allow_sampling.setChecked(True)
    dialog.save_button.click()
    edited = load_servers(relavium_home)["fixture"]
    assert edited.args == (FIXTURE, "stdio", "--extra") and edited.allow_sampling  # type: ignore[union-attr]
    assert "# the SDK test server" in (relavium_home / "mcp.yaml").read_text()

    page.remove_button.click()
    box = page.confirm_box
    assert box is not None and "fixture" in box.text()
    keep = next(b for b in box.buttons() if b.text() == "Keep")
    keep.click()
    assert "fixture" in load_servers(relavium_home)
    page.remove_button.click()
    page.confirm_remove_button.click()
    assert load_servers(relavium_home) == {}
    assert page.server_list.count() == 0 and not page.empty.isHidden()


def test_a_broken_file_shows_its_error_offers_to_open_it_and_outside_edits_show_up(
    make_window, qtbot, relavium_home: Path
) -> None:
    opened: list[Path] = []
    page = open_page(make_window)
    page.opener = opened.append  # stands in for the desktop's editor
    (relavium_home / "mcp.yaml").write_text("servers:\n  x: {transport: stdio, command: [oops\n")
    qtbot.waitUntil(lambda: not page.file_error.isHidden(), timeout=10_000)  # the watcher saw it
    assert "not valid YAML at line" in page.file_error.text()
    assert "Open mcp.yaml" in page.file_error.text()
    assert not page.add_button.isEnabled()  # nothing is written over a file that does not load
    page.open_button.click()
    assert opened == [relavium_home / "mcp.yaml"]

    (relavium_home / "mcp.yaml").write_text(fixture_yaml())  # fixed outside the app (an editor, the CLI)
    qtbot.waitUntil(lambda: page.server_list.count() == 1, timeout=10_000)
    assert page.file_error.isHidden() and page.add_button.isEnabled()
    assert page.server_list.item(0).data(Qt.ItemDataRole.UserRole) == "fixture"


def test_revoke_removes_a_workflow_server_consent(make_window, relavium_home: Path, project: Path) -> None:
    store = mcp_consents(relavium_home)
    store.grant(str(project), "wf-files", "a" * 64, command="npx", args=("-y", "files-server"),
                env_names=("LOG_LEVEL",), cwd=str(project))
    store.grant(str(project), "wf-other", "b" * 64, command="other")
    page = open_page(make_window)
    assert page.consent_table.rowCount() == 2
    assert page.consent_table.item(0, 2).text() == "npx -y files-server"
    # When it was allowed, in local words; the full local timestamp on hover, never raw UTC.
    assert page.consent_table.item(0, 3).text().startswith("Today ")
    assert "(UTC" in page.consent_table.item(0, 3).toolTip()
    page.consent_table.selectRow(0)
    page.revoke_button.click()
    assert [c.server for c in store.list()] == ["wf-other"]
    assert page.consent_table.rowCount() == 1
    assert not store.is_granted(str(project), "wf-files", "a" * 64)
    store.close()


def test_each_program_server_says_its_sandbox_in_the_list(make_window, relavium_home: Path) -> None:
    (relavium_home / "mcp.yaml").write_text(
        "servers:\n"
        f"  usual:\n    transport: stdio\n    command: {sys.executable}\n    args: [{FIXTURE}, stdio]\n"
        f"  loose:\n    transport: stdio\n    command: {sys.executable}\n    args: [{FIXTURE}, stdio]\n"
        "    sandbox: off\n"
        "  remote:\n    transport: http\n    url: https://mcp.example/mcp\n"
    )
    page = open_page(make_window)
    rows = {page.server_list.item(i).text().split("\n")[0]: page.server_list.item(i).text()
            for i in range(page.server_list.count())}
    assert rows["usual"].endswith("program (stdio) · sandbox: network")  # your own servers: network by default
    assert rows["loose"].endswith("program (stdio) · unsandboxed")
    assert rows["remote"].endswith("URL (http)")  # runs elsewhere: nothing to confine here
