"""MCP results as the JSON the engine hands on (and the model sees) -- with no base64 in it.

The spec has ``mcp_call`` return "the MCP tool result as JSON": the content
parts (text, resource links, embedded text resources) and any structured
content, camelCase as on the wire.  Binary parts are the exception: an image,
an audio clip or an embedded blob is base64 on the wire, and base64 in a
model's context is thousands of tokens of noise that no model can read.  Each
becomes ``{"type": "image"|"audio"|"blob", "mimeType", "bytes", "media"}``,
the bytes published to the media store under their ``media://sha256-…``
handle; without a store (or when publication fails) the same shape carries
``"note": "binary content omitted"`` instead of the handle.

A result the server flags ``isError`` is a failed call, not data: it becomes
``tool_failed`` (fed back to the model, retryable) whose message carries the
server's text, bounded and with the entry's credential masked out in case a
server echoes a header back.
"""

from __future__ import annotations

import base64
import binascii
import logging
from typing import Any

import mcp_types as types

from relavium_desktop.engine.errors import ToolFailedError
from relavium_desktop.host.media import MediaError, MediaStore

ERROR_TEXT_LIMIT = 2_000
OMITTED = "binary content omitted"

log = logging.getLogger("relavium.mcp")


def binary_part(kind: str, mime: str | None, data_b64: str, media: MediaStore | None) -> dict[str, Any]:
    """One binary content part as a handle (or a placeholder naming its type and size)."""
    mime = mime or "application/octet-stream"
    try:
        raw = base64.b64decode(data_b64, validate=False)
    except (binascii.Error, ValueError):
        return {"type": kind, "mimeType": mime, "bytes": 0, "note": "undecodable binary content omitted"}
    out: dict[str, Any] = {"type": kind, "mimeType": mime, "bytes": len(raw)}
    if media is not None:
        try:
            out["media"] = media.publish_bytes(raw, mime).handle
            return out
        except (MediaError, OSError) as exc:
            log.warning("MCP binary content not stored in the media store (%s)", type(exc).__name__)
    out["note"] = OMITTED
    return out


def convert_part(part: dict[str, Any], media: MediaStore | None) -> dict[str, Any]:
    """A content part (wire JSON) with any base64 payload replaced."""
    kind = part.get("type")
    if kind in ("image", "audio") and isinstance(part.get("data"), str):
        return binary_part(str(kind), part.get("mimeType"), part["data"], media)
    if kind == "resource":
        resource = part.get("resource")
        if isinstance(resource, dict) and isinstance(resource.get("blob"), str):
            out = binary_part("blob", resource.get("mimeType"), resource["blob"], media)
            out["uri"] = resource.get("uri")
            return out
    return part


def convert_resource_contents(item: dict[str, Any], media: MediaStore | None) -> dict[str, Any]:
    """One ``resources/read`` content (text or blob) with a blob replaced by a handle."""
    if isinstance(item.get("blob"), str):
        out = binary_part("blob", item.get("mimeType"), item["blob"], media)
        out["uri"] = item.get("uri")
        return out
    return item


def result_json(result: types.CallToolResult, media: MediaStore | None = None) -> dict[str, Any]:
    """The result as JSON; runs file I/O when a media store is given (call it off the event loop)."""
    out: dict[str, Any] = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    out["content"] = [convert_part(p, media) for p in out.get("content", [])]
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
