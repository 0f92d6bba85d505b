"""Double-clicking a workflow file opens it in the running app's Workflows page.

The second launch is a real ``python -m relavium_desktop FILE`` process (what
the desktop runs for ``Exec=relavium-desktop %F``) forwarding to this test's
window over the single-instance socket.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from relavium_desktop.ui.shell import NAV_WORKFLOWS
from relavium_desktop.ui.single_instance import OPEN_FILE, InstanceServer, forward_to_running, server_name

EXAMPLE = Path(__file__).resolve().parents[2] / "resources" / "examples" / "clipboard-note.relavium.yaml"


def launch(args: list[str], relavium_home: Path, cwd: Path) -> subprocess.Popen[bytes]:
    env = dict(os.environ, RELAVIUM_HOME=str(relavium_home), QT_QPA_PLATFORM="offscreen")
    return subprocess.Popen([sys.executable, "-m", "relavium_desktop", *args], env=env, cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.fixture
def server(make_window, relavium_home):
    window = make_window()
    server = InstanceServer(server_name(relavium_home))
    assert server.listen()
    server.command_received.connect(window.handle_instance_command)
    yield window, server
    server.close()


def wait_exit(qtbot, proc: subprocess.Popen[bytes]) -> None:
    qtbot.waitUntil(lambda: proc.poll() is not None, timeout=30_000)
    assert proc.returncode == 0, proc.stderr.read().decode() if proc.stderr else ""


def test_a_file_from_another_folder_switches_to_its_project_and_opens(
    server, qtbot, relavium_home: Path, tmp_path: Path, project: Path
) -> None:
    window, _ = server
    window.context.set_project(str(project))
    elsewhere = tmp_path / "other project"
    (elsewhere / "workflows").mkdir(parents=True)
    shutil.copy(EXAMPLE, elsewhere / "workflows" / "note.relavium.yaml")

    # A relative path, as a file manager or a shell in that folder passes it.
    proc = launch(["workflows/note.relavium.yaml"], relavium_home, cwd=elsewhere)
    wait_exit(qtbot, proc)
    qtbot.waitUntil(lambda: window.workflows_view is not None and window.workflows_view.current is not None,
                    timeout=15_000)
    view = window.workflows_view
    assert window.nav.currentRow() == NAV_WORKFLOWS
    assert window.context.project == os.path.realpath(elsewhere)
    assert view.current.rel == "workflows/note.relavium.yaml"
    assert view.title.text() == "Clipboard to a dated note — workflows/note.relavium.yaml"
    assert view.workflow_list.currentItem() is not None


def test_a_file_inside_the_open_project_keeps_the_project(
    server, qtbot, relavium_home: Path, project: Path
) -> None:
    window, _ = server
    window.context.set_project(str(project))
    nested = project / "automation" / "daily"
    nested.mkdir(parents=True)
    shutil.copy(EXAMPLE, nested / "note.relavium.yaml")

    proc = launch([str(nested / "note.relavium.yaml")], relavium_home, cwd=project)
    wait_exit(qtbot, proc)
    qtbot.waitUntil(lambda: window.workflows_view is not None and window.workflows_view.current is not None,
                    timeout=15_000)
    assert window.context.project == os.path.realpath(project)
    assert window.workflows_view.current.rel == "automation/daily/note.relavium.yaml"


def test_the_socket_takes_only_an_absolute_path(qtbot, qloop, relavium_home) -> None:
    server = InstanceServer(server_name(relavium_home))
    assert server.listen()
    got: list[str] = []
    server.command_received.connect(got.append)
    try:
        assert forward_to_running(server.name, OPEN_FILE, path="relative/x.relavium.yaml")
        assert forward_to_running(server.name, OPEN_FILE, path="/tmp/x.relavium.yaml")
        qtbot.waitUntil(lambda: len(got) == 1)
    finally:
        server.close()
    assert got == [f"{OPEN_FILE}:/tmp/x.relavium.yaml"]


def test_a_first_launch_with_a_file_starts_in_the_files_project(qtbot, relavium_home: Path, tmp_path: Path) -> None:
    """No app running: ``relavium-desktop FILE`` starts one, which switches to the file's project."""
    from relavium_desktop.ui import app_settings as keys
    from relavium_desktop.ui.qt import QSettings

    folder = tmp_path / "flows home"
    (folder / "workflows").mkdir(parents=True)
    shutil.copy(EXAMPLE, folder / "workflows" / "note.relavium.yaml")
    proc = launch([str(folder / "workflows" / "note.relavium.yaml")], relavium_home, cwd=tmp_path)

    def saved_project() -> object:
        return QSettings(str(relavium_home / keys.FILE_NAME), QSettings.Format.IniFormat).value(keys.KEY_PROJECT)

    try:
        # QSettings writes the switch to disk from the app's event loop.
        qtbot.waitUntil(lambda: saved_project() == os.path.realpath(folder), timeout=30_000)
        assert proc.poll() is None  # it is the running app, not a forwarder that exited
    finally:
        proc.terminate()
        proc.wait(timeout=30)
