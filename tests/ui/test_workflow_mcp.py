"""Workflows run from the window reach MCP tools: the user's servers, and a workflow's own after consent.

Real parts throughout: the SDK fixture server as a child process, the app's
workflow runner on the qasync loop, the consent dialog the window opens.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from relavium_desktop.ui.mcp.consent_dialog import ConsentDialog
from relavium_desktop.ui.mcp.hooks import app_mcp_hooks
from relavium_desktop.ui.shell import NAV_WORKFLOWS
from tests.host.mcp.conftest import FIXTURE, PYTHON
from tests.ui.workflow_samples import RUN_TIMEOUT_MS

ADDER = """\
schema_version: '1.0'
workflow:
  id: adder
{servers}  nodes:
    - {{ id: start, type: input }}
    - id: sum
      type: tool
      tool_config: {{ tool_name: mcp_{server}_add, parameters: {{ a: 20, b: 22 }} }}
    - {{ id: out, type: output }}
  edges: [{{ from: start, to: sum }}, {{ from: sum, to: out }}]
"""


def stdio_entry(marker: Path) -> str:
    return (f"transport: stdio\n      command: {json.dumps(PYTHON)}\n      args: [{json.dumps(FIXTURE)}, stdio]\n"
            f"      env: {{MCP_FIXTURE_MARKER: {json.dumps(str(marker))}}}\n")


def open_flow(make_window, qtbot, project: Path, rel: str):
    window = make_window()
    window.context.set_project(str(project))
    window.nav.setCurrentRow(NAV_WORKFLOWS)
    view = window.workflows_view
    qtbot.waitUntil(lambda: any(e.rel == rel for e in view.entries), timeout=10_000)
    view.open_workflow(rel)
    return window, view


def run_and_wait(view, qtbot) -> Any:
    with qtbot.waitSignal(view.run_finished, timeout=RUN_TIMEOUT_MS) as blocker:
        view.run_button.click()
    return blocker.args[0]


def test_a_workflow_tool_node_calls_a_tool_of_the_users_mcp_server(
    make_window, qtbot, project: Path, relavium_home: Path, tmp_path: Path,
) -> None:
    marker = project / "user-started"  # the server's working folder: a sandboxed server writes nowhere else
    (relavium_home / "mcp.yaml").write_text("servers:\n  calc:\n    " + stdio_entry(marker).replace("\n      ", "\n    "))
    (project / "adder.relavium.yaml").write_text(ADDER.format(servers="", server="calc"))
    _window, view = open_flow(make_window, qtbot, project, "adder.relavium.yaml")
    result = run_and_wait(view, qtbot)
    assert result.status == "completed", view.message.text()
    view.timeline.select("sum")
    qtbot.waitUntil(lambda: "42" in view.timeline.details.toPlainText())


def test_a_workflows_own_server_starts_only_after_consent_asked_once_per_project(
    make_window, qtbot, project: Path, relavium_home: Path, tmp_path: Path,
) -> None:
    marker = project / "workflow-started"  # the server's working folder (sandboxed)
    servers = "  mcp_servers:\n    wfcalc:\n      " + stdio_entry(marker)
    (project / "adder.relavium.yaml").write_text(ADDER.format(servers=servers, server="wfcalc"))
    window, view = open_flow(make_window, qtbot, project, "adder.relavium.yaml")
    opened: list[Any] = []
    app_mcp_hooks(window.context)  # the window's one hooks object; its dialogs announce themselves
    window.context.mcp_hooks.dialog_opened.connect(opened.append)

    with qtbot.waitSignal(view.run_finished, timeout=RUN_TIMEOUT_MS) as blocker:
        view.run_button.click()
        qtbot.waitUntil(lambda: bool(opened), timeout=RUN_TIMEOUT_MS)
        dialog = opened[0]
        assert isinstance(dialog, ConsentDialog)
        assert not marker.exists()  # asked before anything was started
        dialog.start_button.click()
    assert blocker.args[0].status == "completed", view.message.text()
    assert marker.exists()

    marker.unlink()
    result = run_and_wait(view, qtbot)  # the consent is stored for this project: no second question
    assert result.status == "completed" and len(opened) == 1 and marker.exists()


def test_a_run_resumed_at_its_gate_still_reaches_the_workflows_own_server(
    make_window, qtbot, project: Path, relavium_home: Path, tmp_path: Path,
) -> None:
    from relavium_desktop.ui.workflows.gate import GateDialog

    marker = project / "workflow-started"  # the server's working folder (sandboxed)
    servers = "  mcp_servers:\n    wfcalc:\n      " + stdio_entry(marker)
    gated = ADDER.format(servers=servers, server="wfcalc").replace(
        "    - id: sum\n", "    - { id: gate, type: human_gate }\n    - id: sum\n",
    ).replace("{ from: start, to: sum }", "{ from: start, to: gate }, { from: gate, to: sum }")
    assert "to: gate" in gated
    (project / "adder.relavium.yaml").write_text(gated)
    window, view = open_flow(make_window, qtbot, project, "adder.relavium.yaml")
    opened: list[Any] = []
    app_mcp_hooks(window.context)
    window.context.mcp_hooks.dialog_opened.connect(opened.append)
    gates: list[GateDialog] = []
    view.gates.dialog_opened.connect(gates.append)
    # The run asks before it starts the server (its tools are discovered when the run starts).
    with qtbot.waitSignal(view.run_finished, timeout=RUN_TIMEOUT_MS) as paused:
        view.run_button.click()
        qtbot.waitUntil(lambda: bool(opened), timeout=RUN_TIMEOUT_MS)
        assert isinstance(opened[0], ConsentDialog) and not marker.exists()
        opened[0].start_button.click()
    assert paused.args[0].status == "paused" and len(gates) == 1
    marker.unlink()

    # Approving the gate resumes with a new engine: the run's own server comes back from its
    # checkpoint, and the stored consent means no second question.
    with qtbot.waitSignal(view.run_finished, timeout=RUN_TIMEOUT_MS) as blocker:
        gates[0].approve_button.click()
    assert blocker.args[0].status == "completed", view.message.text()
    assert marker.exists() and len(opened) == 1
    view.timeline.select("sum")
    qtbot.waitUntil(lambda: "42" in view.timeline.details.toPlainText())
