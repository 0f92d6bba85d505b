"""Binary response bodies go to the media store and come back as handles.

A model cannot use a PNG as text: decoded it is mojibake, and base64 would
spend a screenshot's worth of tokens on noise.  So a body that is binary --
by its Content-Type, or because its bytes are not text in the declared
charset -- is published to the content-addressed media store and the
result carries its ``media`` descriptor (handle, mime type, size,
dimensions for images) for ``read_media``.

Bounded by the store's per-object ceiling (25 MiB): a Content-Length over
it is refused before a byte is read, and a body that grows past it stops
the download; both refusals name the size and the limit.  With an output
store the body streams to a run-scoped spill file (memory stays at the
spill batch size) and is published from that file's descriptor, which
streams through the store's hash; only a host without an output store
holds the (bounded) body in memory.
"""

from __future__ import annotations

import asyncio
import codecs
import mimetypes
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from relavium_desktop.engine.errors import ToolFailedError
from relavium_desktop.host.egress.body import Scrubber
from relavium_desktop.host.media import MediaHost, sniff_mime

# What a body's first bytes must say for it to count as binary even where the
# Content-Type claims text (a misconfigured server serving a PNG as text/plain).
_BINARY_MIMES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf"})


def declared_mime(content_type: str | None) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower() or "application/octet-stream"


def too_large(size: int, ceiling: int, mime: str, *, at_least: bool = False) -> ToolFailedError:
    amount = f"more than {ceiling:,}" if at_least else f"{size:,}"
    return ToolFailedError(
        f"http_request: the response body is {amount} bytes of {mime}; binary bodies are returned as "
        f"media handles and the media store holds at most {ceiling:,} bytes per object, so it was not downloaded"
    )


def looks_binary(data: bytes, charset: str, *, complete: bool) -> bool:
    """Whether bytes a server called text are really binary (an image/PDF signature, or not decodable).

    ``complete`` is False for a preview cut from a longer body: a character
    split at its end is not a decoding error.
    """
    if sniff_mime(data[:64], "") in _BINARY_MIMES:
        return True
    try:
        codecs.getincrementaldecoder(charset)("strict").decode(data, final=complete)
    except (UnicodeDecodeError, LookupError):
        return True
    return False


async def bounded(chunks: AsyncIterator[bytes], ceiling: int, mime: str) -> AsyncIterator[bytes]:
    """``chunks``, stopped with a clear refusal once they pass the store's ceiling."""
    total = 0
    async for chunk in chunks:
        total += len(chunk)
        if total > ceiling:
            raise too_large(total, ceiling, mime, at_least=True)
        yield chunk


async def publish_in_memory(
    chunks: AsyncIterator[bytes],
    *,
    media: MediaHost,
    content_type: str | None,
    content_length: int | None,
    scrubber: Scrubber,
) -> dict[str, Any] | None:
    """Read a binary body (bounded by the store's ceiling) and publish it; its descriptor, or None if empty.

    For a host without an output store to stream to; bodies are held whole, at most the ceiling.
    """
    ceiling = media.store.ceiling
    mime = declared_mime(content_type)
    if content_length is not None and content_length > ceiling:
        raise too_large(content_length, ceiling, mime)
    held = bytearray()
    async for raw in bounded(chunks, ceiling, mime):
        held.extend(scrubber.feed(raw))
    held.extend(scrubber.flush())
    if not held:
        return None
    return await publish_held(bytes(held), media=media, content_type=content_type)


async def publish_held(data: bytes, *, media: MediaHost, content_type: str | None) -> dict[str, Any]:
    """Publish a body already read (a "text" body that turned out binary)."""
    if len(data) > media.store.ceiling:
        raise too_large(len(data), media.store.ceiling, declared_mime(content_type))
    publish: Callable[[bytes, str], dict[str, Any]] = media.publish_bytes
    return await asyncio.to_thread(publish, data, declared_mime(content_type))


async def publish_spill(path: Path, *, media: MediaHost, content_type: str | None) -> dict[str, Any]:
    """Publish a spilled body (streamed from its file, never read whole), then drop the spill file."""

    def run() -> dict[str, Any]:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            size = os.fstat(fd).st_size
            if size > media.store.ceiling:
                raise too_large(size, media.store.ceiling, declared_mime(content_type))
            # The name only labels a body whose bytes carry no signature: by its Content-Type.
            mime = declared_mime(content_type)
            return media.publish_fd(fd, "body" + (mimetypes.guess_extension(mime, strict=False) or ""))
        finally:
            os.close(fd)

    out = await asyncio.to_thread(run)
    await asyncio.to_thread(path.unlink, missing_ok=True)
    return out
