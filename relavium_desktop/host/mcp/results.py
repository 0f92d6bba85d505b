"""An MCP ``CallToolResult`` as the JSON the engine hands on (and the model sees).

The spec has ``mcp_call`` return "the MCP tool result as JSON": the content
parts (text, image, audio, resource links, embedded resources) and any
structured content, exactly as the server sent them, camelCase as on the wire.
A result the server flags ``isError`` is a failed call, not data: it becomes
``tool_failed`` (fed back to the model, retryable) whose message carries the
server's text, bounded and with the entry's credential masked out in case a
server echoes a header back.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types

from relavium_desktop.engine.errors import ToolFailedError

ERROR_TEXT_LIMIT = 2_000


def result_json(result: types.CallToolResult) -> dict[str, Any]:
    out: dict[str, Any] = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    out.setdefault("isError", False)
    return out


def error_text(result: types.CallToolResult, secrets: tuple[str, ...] = ()) -> str:
    texts = [part.text for part in result.content if isinstance(part, types.TextContent)]
    text = " ".join(t.strip() for t in texts if t.strip()) or "(no error text)"
    for secret in secrets:
        if secret:
            text = text.replace(secret, "****")
    if len(text) > ERROR_TEXT_LIMIT:
        text = text[:ERROR_TEXT_LIMIT] + " [...]"
    return text


def tool_error(server: str, tool: str, result: types.CallToolResult, secrets: tuple[str, ...] = ()) -> ToolFailedError:
    return ToolFailedError(
        f"MCP server {server!r}: tool {tool!r} reported an error: {error_text(result, secrets)}"
    )
