"""The pure seam: message JSON round trips, tool specs, closed error codes."""

from __future__ import annotations

import pytest

from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.llm import Message, ProviderErrorCode, tool_specs
from relavium_desktop.engine.llm.errors import code_for_status
from relavium_desktop.engine.llm.messages import (
    MediaPart,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    part_from_json,
)
from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS
from relavium_desktop.engine.tools.registry import ToolRegistry


def test_every_part_kind_round_trips_through_json() -> None:
    m = Message("assistant", (ReasoningPart("hmm"), TextPart("hi"), ToolCallPart("c", "t", {"a": [1]}),
                              ToolResultPart("c", "t", "out", is_error=True), MediaPart("sha256:ab", "image/png")))
    assert Message.from_json(m.to_json()) == m


def test_unknown_part_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown message part kind"):
        part_from_json({"kind": "script", "text": "x"})


def test_tool_specs_come_from_the_llm_visible_schema_and_the_grant() -> None:
    described = ToolRegistry(BUILTIN_TOOLS, ToolHost()).describe()
    specs = tool_specs(described, {"run_command", "read_file"})
    assert [s.name for s in specs] == ["read_file", "run_command"]
    run = specs[1].parameters
    assert set(run["properties"]) == {"command", "args"}  # cwd/timeoutMs/env are config-only


@pytest.mark.parametrize(("status", "code"), [
    (401, ProviderErrorCode.AUTH), (402, ProviderErrorCode.AUTH), (403, ProviderErrorCode.AUTH),
    (429, ProviderErrorCode.RATE_LIMIT), (500, ProviderErrorCode.UNAVAILABLE), (503, ProviderErrorCode.UNAVAILABLE),
    (400, ProviderErrorCode.VALIDATION), (404, ProviderErrorCode.VALIDATION),
])
def test_status_codes_map_to_the_closed_set(status: int, code: ProviderErrorCode) -> None:
    assert code_for_status(status) is code
