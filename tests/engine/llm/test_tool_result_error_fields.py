"""A failed tool result keeps its error code and reason as fields through storage."""

from __future__ import annotations

from relavium_desktop.engine.llm.messages import Message, ToolResultPart


def test_error_code_and_reason_survive_the_stored_json() -> None:
    part = ToolResultPart("c1", "read_file", "not run: tool_denied", is_error=True,
                          error_code="tool_denied", error_reason="outside_scope")
    (back,) = Message.from_json(Message("tool", (part,)).to_json()).parts
    assert back == part


def test_a_result_stored_before_the_fields_existed_still_loads() -> None:
    stored = {"role": "tool", "parts": [{"kind": "tool_result", "call_id": "c1", "name": "read_file",
                                          "content": "error: tool_failed: gone", "is_error": True}]}
    (part,) = Message.from_json(stored).parts
    assert isinstance(part, ToolResultPart) and part.is_error
    assert part.error_code is None and part.error_reason is None
