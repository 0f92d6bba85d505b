"""The OS sandbox as policy data: ``sandbox: strict | network | off`` in a tools block and ``--policy``.

The engine holds the one rule: strict unless the block says otherwise, only the
three names, and where two blocks meet the strictest wins (so a second block can
raise the floor, never lower it).
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from relavium_desktop.engine.tools.tooldef import ToolPolicy, parse_sandbox_mode, strictest_sandbox
from relavium_desktop.engine.workflow.errors import WorkflowError
from relavium_desktop.engine.workflow.loader import load_workflow
from relavium_desktop.engine.workflow.models import ToolsBlock

WORKFLOW = """\
schema_version: "1.0"
workflow:
  id: sb
  name: sb
  tools:
    allowedCommands: ["python3 escape.py"]
{sandbox}  nodes:
    - id: run
      type: tool
      tool_config:
        tool_name: run_command
        parameters: {{command: python3, args: [escape.py]}}
"""


def policy_of(sandbox_line: str) -> ToolPolicy:
    wf = load_workflow(WORKFLOW.format(sandbox=sandbox_line), "sb.relavium.yaml")
    tools = wf.file.workflow.tools
    assert tools is not None
    # What the workflow run builds from the block (engine/workflow/run.py).
    return ToolPolicy.from_json(tools.model_dump(exclude_none=True))


def test_strict_is_the_default_everywhere() -> None:
    assert ToolPolicy().sandbox == "strict"
    assert ToolPolicy.from_json(None).sandbox == "strict"
    assert ToolPolicy.from_json({"allowedCommands": ["npm test"]}).sandbox == "strict"
    assert policy_of("").sandbox == "strict"


@pytest.mark.parametrize("mode", ["strict", "network", "off"])
def test_each_mode_is_accepted_by_the_cli_policy_and_a_workflow(mode: str) -> None:
    assert ToolPolicy.from_json({"sandbox": mode}).sandbox == mode
    assert ToolsBlock(sandbox=mode).sandbox == mode  # type: ignore[arg-type]
    assert policy_of(f"    sandbox: {mode}\n").sandbox == mode


@pytest.mark.parametrize("value", ["loose", "Strict", "", "none", True, 0, None, ["off"]])
def test_anything_else_is_refused_naming_the_choices(value: object) -> None:
    with pytest.raises(ValueError, match="sandbox' must be one of strict, network or off"):
        ToolPolicy.from_json({"sandbox": value})
    with pytest.raises(ValueError, match="must be one of strict, network or off"):
        parse_sandbox_mode(value)


def test_a_workflow_with_a_bad_mode_fails_at_load_with_its_line() -> None:
    with pytest.raises(WorkflowError) as caught:
        policy_of("    sandbox: unconfined\n")
    text = str(caught.value)
    assert "sandbox" in text and "'strict', 'network' or 'off'" in text
    assert ":7:" in text or "line 7" in text, text
    with pytest.raises(ValidationError):
        ToolsBlock(sandbox="unconfined")  # type: ignore[arg-type]


def test_off_says_it_runs_unconfined_when_refused() -> None:
    # The refusal itself tells the author what off means.
    with pytest.raises(ValueError, match="unconfined"):
        ToolPolicy.from_json({"sandbox": "open"})


@pytest.mark.parametrize(
    ("first", "second", "wins"),
    [
        ("strict", "off", "strict"),
        ("off", "strict", "strict"),
        ("network", "off", "network"),
        ("off", "network", "network"),
        ("network", "strict", "strict"),
        ("off", "off", "off"),
    ],
)
def test_strictest_wins_when_two_blocks_combine(first: str, second: str, wins: str) -> None:
    a = ToolPolicy.from_json({"allowedCommands": ["npm test"], "sandbox": first})
    b = ToolPolicy.from_json({"allowedCommands": ["make"], "sandbox": second})
    combined = a.combined(b)
    assert combined.sandbox == wins
    assert combined.allowed_commands == ("npm test",)  # the allowlists stay the first block's
    assert strictest_sandbox(first, second) == wins  # type: ignore[arg-type]


def test_strictest_of_nothing_is_strict() -> None:
    assert strictest_sandbox() == "strict"
