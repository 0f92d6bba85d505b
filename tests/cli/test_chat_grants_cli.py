"""One grant store for the window and ``relavium chat``: "always in this project" is honoured on both.

A grant is made the way a user makes it -- the window's real permission
dialog, "Always allow in this project" clicked (pytest-qt, offscreen) -- and
then a real ``relavium chat`` process in the same data folder and project
writes under that folder without asking.  The reverse: ``[p]`` answered on
the terminal (stdin a pipe) stores a grant the window's dialog honours.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from relavium_desktop.engine.tools.tooldef import ActionClass, ApprovalDecision, ApprovalRequest
from relavium_desktop.ui.permission_dialog import PermissionDialog
from tests.cli.llm_cli import write_agent
from tests.conftest import relavium_cmd
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.spoofing import SPOOFS, raw_characters
from tests.ui import conftest as ui_fixtures

# The window's fixtures (its qasync loop, the window factory), shared with tests/ui.
qloop = ui_fixtures.qloop
folder_picker = ui_fixtures.folder_picker
make_window = ui_fixtures.make_window

# The terminal hook alone, in its own process: stdin is a pipe, as in a scripted ``relavium chat``.
HOOK_CHILD = """
import asyncio, json, sys
from pathlib import Path
from relavium_desktop.application.app import Application
from relavium_desktop.cli.chat_prompt import terminal_confirm
from relavium_desktop.engine.tools.tooldef import ActionClass, ApprovalRequest

project, requests = sys.argv[1], json.loads(sys.argv[2])
app = Application.from_environment()
hook = terminal_confirm(app, Path(project))
for path, protected in requests:
    request = ApprovalRequest(tool_id="write_file", action_class=ActionClass.FS_WRITE, target=path,
                              masked_args={"path": path, "content": "x = 1\\n"}, node_id="chat",
                              protected_path=protected, path=path)
    decision = asyncio.run(hook(request))
    print("\\nDECISION " + json.dumps([decision.approved, decision.scope]), flush=True)
app.close()
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hello')\n")
    return root


def write_req(path: str) -> ApprovalRequest:
    return ApprovalRequest(
        tool_id="write_file",
        action_class=ActionClass.FS_WRITE,
        target=path,
        masked_args={"path": path, "content": "x = 1\n"},
        node_id="chat",
        path=path,
    )


def window_asks(
    window, qtbot, request: ApprovalRequest
) -> tuple[asyncio.Future[ApprovalDecision], PermissionDialog | None]:
    """The window's confirm hook on ``request``: the pending decision, and the dialog if one opened."""
    approvals = window.context.approvals
    assert approvals is not None
    opened: list[PermissionDialog] = []
    approvals.dialog_opened.connect(opened.append)
    task = asyncio.ensure_future(approvals.confirm(request))
    qtbot.waitUntil(lambda: task.done() or bool(opened))
    return task, (opened[0] if opened else None)


def grant_in_the_window(make_window, qtbot, project: Path, path: str) -> None:
    """Open the project in the window and answer its dialog with "Always allow in this project"."""
    window = make_window()
    window.context.set_project(str(project))
    window.context.ensure_services()
    task, dialog = window_asks(window, qtbot, write_req(path))
    assert dialog is not None, "nothing granted yet: the window must ask"
    assert "writes under src" in dialog.project_button.toolTip()
    dialog.project_button.click()  # the scope: Always in this project
    dialog.allow_button.click()
    qtbot.waitUntil(task.done)
    assert task.result() == ApprovalDecision(True, "project")
    window.close()


def hook_child(
    env: dict[str, str], project: Path, stdin: str, *requests: tuple[str, bool]
) -> tuple[str, list]:
    proc = subprocess.run(
        [sys.executable, "-c", HOOK_CHILD, str(project), json.dumps(requests)],
        input=stdin,
        env=env,
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    decisions = [
        json.loads(line.split(" ", 1)[1]) for line in proc.stdout.splitlines() if line.startswith("DECISION ")
    ]
    return proc.stdout, decisions


def test_a_grant_made_in_the_window_is_honoured_by_relavium_chat(
    make_window,
    qtbot,
    project: Path,
    env: dict[str, str],
    llm_server: ScriptedLLMServer,
    tmp_path: Path,
) -> None:
    grant_in_the_window(make_window, qtbot, project, "src/app.py")
    agent = write_agent(tmp_path / "w.agent.yaml", tools=["write_file"])
    llm_server.script(
        Reply.call("write_file", {"path": "src/new.py", "content": "print('from the terminal')\n"}),
        Reply.say("Done."),
        # A write the grant does not cover still asks (and "n" refuses it).
        Reply.call("write_file", {"path": "README.md", "content": "not granted\n"}),
        Reply.say("Refused."),
    )
    proc = subprocess.run(
        [*relavium_cmd(), "chat", "--agent", str(agent), "--mode", "confirm", "--workspace", str(project)],
        input="write it\nand the readme\nn\n/exit\n",
        env=env,
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert (project / "src" / "new.py").read_text() == "print('from the terminal')\n"
    first_turn, _, second_turn = proc.stdout.partition("Done.")
    assert "? allow" not in first_turn, first_turn
    assert "? allow write_file (fs_write): README.md" in second_turn
    assert not (project / "README.md").exists()


def test_the_terminal_hook_honours_the_windows_grant_without_asking(
    make_window,
    qtbot,
    project: Path,
    cli_env: dict[str, str],
) -> None:
    grant_in_the_window(make_window, qtbot, project, "src/app.py")
    out, decisions = hook_child(
        cli_env, project, "", ("src/new.py", False), (str(project / "src/deep/x.py"), False)
    )
    assert decisions == [[True, "project"], [True, "project"]]
    assert "? allow" not in out
    # Outside the granted folder the terminal asks, and offers a grant for that folder.
    out, decisions = hook_child(cli_env, project, "n\n", ("README.md", False))
    assert decisions == [[False, "once"]]
    assert "? allow write_file (fs_write): README.md" in out
    assert (
        "[y]es once / [n]o / [a]lways this session / [p] always in this project (writes README.md) > "
        in out
    )


def test_p_on_the_terminal_grants_the_project_and_the_window_honours_it(
    make_window,
    qtbot,
    project: Path,
    cli_env: dict[str, str],
    tmp_path: Path,
) -> None:
    out, decisions = hook_child(cli_env, project, "p\n", ("src/a.py", False), ("src/b.py", False))
    assert "[p] always in this project (writes under src/) > " in out
    assert decisions == [[True, "project"], [True, "project"]]
    assert out.count("? allow") == 1  # the second write was covered by the first answer

    window = make_window()
    window.context.set_project(str(project))
    window.context.ensure_services()
    task, dialog = window_asks(window, qtbot, write_req("src/c.py"))
    assert dialog is None and task.result() == ApprovalDecision(True, "project")

    # Another project does not inherit it.
    other = tmp_path / "other"
    (other / "src").mkdir(parents=True)
    out, decisions = hook_child(cli_env, other, "n\n", ("src/a.py", False))
    assert decisions == [[False, "once"]] and "? allow" in out


def test_a_session_answer_on_the_terminal_is_for_that_target_only(
    project: Path, cli_env: dict[str, str]
) -> None:
    out, decisions = hook_child(
        cli_env, project, "a\nn\n", ("src/a.py", False), ("src/a.py", False), ("src/b.py", False)
    )
    assert decisions == [[True, "session"], [True, "session"], [False, "once"]]
    assert out.count("? allow") == 2
    # Not stored: a new process asks again.
    out, decisions = hook_child(cli_env, project, "n\n", ("src/a.py", False))
    assert decisions == [[False, "once"]] and "? allow" in out


def test_a_protected_path_offers_neither_always_and_refuses_them(
    project: Path, cli_env: dict[str, str]
) -> None:
    out, decisions = hook_child(
        cli_env, project, "p\na\ny\n", ("src/.env", True), ("src/.env", True), ("src/.env", True)
    )
    assert decisions == [[False, "once"], [False, "once"], [True, "once"]]
    assert "? allow write_file (fs_write) [protected path]: src/.env" in out
    assert "  [y]es once / [n]o > " in out and "always" not in out


@pytest.mark.parametrize("name", ["rtl-override", "ansi-erase-cr", "zero-width"])
def test_the_project_offer_is_shown_by_the_display_rule(
    name: str, project: Path, cli_env: dict[str, str]
) -> None:
    spoof = SPOOFS[name]
    out, decisions = hook_child(cli_env, project, "n\n", (spoof.raw, False))
    assert decisions == [[False, "once"]]
    assert raw_characters(out) == []
    [offer] = [line for line in out.splitlines() if "[p] always in this project" in line]
    for marker in spoof.markers:
        assert offer.count(marker) >= 1, (marker, offer)
