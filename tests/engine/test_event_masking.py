"""Events are masked at their one serialiser, whoever produced them."""

from __future__ import annotations

from relavium_desktop.engine.errors import UnknownToolError
from relavium_desktop.engine.events import (
    AgentToken,
    AgentToolResult,
    ErrorInfo,
    EventBus,
    NodeFailed,
    RunStarted,
)

KEY = "xoxb-2048-4096-Zq8Wm3Lp0Rt5Yv7Bn1"


def test_every_string_of_an_emitted_event_is_masked() -> None:
    bus = EventBus(clock=lambda: 0.0, run_id="r1")
    seen: list[dict] = []
    bus.subscribe(seen.append)
    bus.emit(AgentToolResult(node_id="n", tool_id=f"mcp_x_{KEY}", success=False, output_summary=f"said {KEY}",
                             error=ErrorInfo(code="tool_failed", reason=None, message=f"server said {KEY}")))
    assert KEY[5:13] not in str(seen) and KEY[5:13] not in str(bus.history)
    assert seen[0]["toolId"] == "mcp_x_***" and seen[0]["outputSummary"] == "said ***"


def test_node_failed_and_tool_errors_are_masked_at_birth() -> None:
    err = UnknownToolError(f"no tool named {KEY!r}")
    assert KEY not in err.message and KEY not in str(err)
    wire = NodeFailed(node_id="n", node_type="tool", error=err.info()).to_wire()
    assert wire["error"]["message"] == "no tool named '***'"


def test_run_started_inputs_are_masked_like_the_input_nodes_output() -> None:
    wire = RunStarted(workflow_id="w", inputs={"who": KEY, "password": "hunter2", "n": 3}).to_wire()
    assert wire["inputs"] == {"who": "***", "password": "***", "n": 3}


def test_a_streamed_token_keeps_its_text() -> None:
    # "token" names a secret-looking field, but the text streamed in it is the answer.
    assert AgentToken(node_id="n", token="The answer").to_wire()["token"] == "The answer"
