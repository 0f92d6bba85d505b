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

``structuredContent`` is walked too, because servers put binary there as well
(server-filesystem's ``read_media_file`` repeats its image as
``{"content": [{"type": "image", "data", "mimeType"}]}``): an object carrying
a ``mimeType`` and a base64 ``data`` or ``blob`` string keeps its other keys
and gets ``bytes`` plus the handle instead of the string, and any other string
that is plainly binary -- a ``data:...;base64,`` URL, or a long run of base64
alphabet (:data:`BARE_BASE64_MIN_CHARS`) -- becomes a ``{"type": "blob"}``
handle object with the type sniffed from its bytes.  A text part whose whole
text is such a string is treated the same way.

A result the server flags ``isError`` is a failed call, not data: it becomes
``tool_failed`` (fed back to the model, retryable) whose message carries the
server's text, bounded and with the entry's credential masked out in case a
server echoes a header back.
"""

from __future__ import annotations

import base64
import binascii
import logging
import re
from typing import Any

import mcp_types as types

from relavium_desktop.engine.errors import ToolFailedError
from relavium_desktop.engine.tools.masking import mask_text
from relavium_desktop.host.media import MediaError, MediaStore

ERROR_TEXT_LIMIT = 2_000
OMITTED = "binary content omitted"
# A string this long made only of the base64 alphabet (mixed case and digits) is
# binary, not prose: no natural text runs 1,024 characters without a space.
BARE_BASE64_MIN_CHARS = 1_024
MAX_STRUCTURE_DEPTH = 64  # deeper structured content is cut, never walked unbounded
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/]+={0,2}|[A-Za-z0-9_-]+={0,2}")
_DATA_URL = re.compile(r"data:([A-Za-z0-9.+-]+/[A-Za-z0-9.+-]+)?(?:;[^,;]*)*;base64,", re.IGNORECASE)

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


def _bare_binary(text: str) -> tuple[str | None, str] | None:
    """``(claimed mime, base64)`` when ``text`` is a data URL or a long base64 run, else None."""
    stripped = text.strip()
    match = _DATA_URL.match(stripped)
    if match is not None:
        return match.group(1), "".join(stripped[match.end() :].split())
    if len(stripped) < BARE_BASE64_MIN_CHARS:
        return None
    compact = "".join(stripped.split())
    if not _BASE64_RUN.fullmatch(compact):
        return None
    if not (re.search(r"[a-z]", compact) and re.search(r"[A-Z]", compact) and re.search(r"[0-9]", compact)):
        return None
    return None, compact


_URLSAFE = str.maketrans("-_", "+/")


def _b64_normal(data_b64: str) -> str | None:
    """``data_b64`` as padded standard base64 when it strictly decodes (URL-safe accepted), else None."""
    compact = "".join(data_b64.split()).translate(_URLSAFE)
    compact += "=" * (-len(compact) % 4)
    try:
        base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError):
        return None
    return compact


def _bare_part(claimed: str | None, data_b64: str, media: MediaStore | None) -> dict[str, Any]:
    """A binary string found outside a typed part: a blob handle typed by its own bytes."""
    from relavium_desktop.host.media.capability import sniff_mime

    sniffed = sniff_mime(base64.b64decode(data_b64[:88]), "")
    mime = sniffed if sniffed != "application/octet-stream" else (claimed or sniffed)
    return binary_part("blob", mime, data_b64, media)


def convert_structure(value: Any, media: MediaStore | None, depth: int = 0) -> Any:
    """Structured content (any JSON) with every binary value replaced by a handle object."""
    if depth > MAX_STRUCTURE_DEPTH:
        return f"[omitted: structured content nested deeper than {MAX_STRUCTURE_DEPTH} levels]"
    if isinstance(value, str):
        found = _bare_binary(value)
        normal = _b64_normal(found[1]) if found is not None else None
        if found is not None and normal is not None:
            return _bare_part(found[0], normal, media)
        return value
    if isinstance(value, list):
        return [convert_structure(item, media, depth + 1) for item in value]
    if not isinstance(value, dict):
        return value
    mime = value.get("mimeType", value.get("mime_type"))
    for key in ("data", "blob"):
        payload = value.get(key)
        normal = _b64_normal(payload) if isinstance(mime, str) and isinstance(payload, str) else None
        if normal is not None:
            declared = value.get("type")
            kind = declared if declared in ("image", "audio") else "blob"
            rest = {k: convert_structure(v, media, depth + 1) for k, v in value.items()
                    if k not in (key, "mimeType", "mime_type")}
            out = {**rest, **binary_part(str(kind), str(mime), normal, media)}
            if isinstance(declared, str):
                out["type"] = declared
            return out
    return {k: convert_structure(v, media, depth + 1) for k, v in value.items()}


def convert_part(part: dict[str, Any], media: MediaStore | None) -> dict[str, Any]:
    """A content part (wire JSON) with any base64 payload replaced."""
    kind = part.get("type")
    if kind in ("image", "audio") and isinstance(part.get("data"), str):
        return binary_part(str(kind), part.get("mimeType"), part["data"], media)
    if kind == "text" and isinstance(part.get("text"), str):
        found = _bare_binary(part["text"])
        normal = _b64_normal(found[1]) if found is not None else None
        if found is not None and normal is not None:
            return _bare_part(found[0], normal, media)
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
    if "structuredContent" in out:
        out["structuredContent"] = convert_structure(out["structuredContent"], media)
    out.setdefault("isError", False)
    return out


def error_text(result: types.CallToolResult, secrets: tuple[str, ...] = ()) -> str:
    texts = [part.text for part in result.content if isinstance(part, types.TextContent)]
    text = " ".join(t.strip() for t in texts if t.strip()) or "(no error text)"
    for secret in secrets:
        if secret:
            text = text.replace(secret, "****")
    text = mask_text(text)  # before the cut: a key cut in two is a key no mask can find
    if len(text) > ERROR_TEXT_LIMIT:
        text = text[:ERROR_TEXT_LIMIT] + " [...]"
    return text


def tool_error(server: str, tool: str, result: types.CallToolResult, secrets: tuple[str, ...] = ()) -> ToolFailedError:
    return ToolFailedError(
        f"MCP server {server!r}: tool {tool!r} reported an error: {error_text(result, secrets)}"
    )
