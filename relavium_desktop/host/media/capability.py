"""MediaHost: the engine's MediaCapability over one MediaStore and its scope grants.

Producers in the host (the file host's binary reads) call :meth:`publish_fd`
(others, like the MCP host, publish through a MediaStore directly); the
engine then admits the returned handle into the scope of the call, and only
handles a producer in this process published can be admitted that way, so a
digest a model or a tool merely names is never granted.
``describe`` and ``load`` check the grant first, then the store: the bytes
are re-hashed on every load (``MediaStore.open_verified``), so a corrupted
object never reaches a provider.  Every error names sizes, limits and a
short digest prefix only.
"""

from __future__ import annotations

import asyncio
import mimetypes
import os
import stat
from pathlib import Path
from typing import Any

from relavium_desktop.engine.errors import (
    DenyReason,
    InvalidArgsError,
    ToolDeniedError,
    ToolFailedError,
)
from relavium_desktop.engine.jsontypes import JsonDict
from relavium_desktop.engine.llm.messages import MediaBlob
from relavium_desktop.host.media.errors import InvalidHandleError, MediaError, MediaNotFoundError
from relavium_desktop.host.media.handles import parse_handle
from relavium_desktop.host.media.scopes import ScopeIndex
from relavium_desktop.host.media.store import FILE_CHUNK, MediaRef, MediaStore, published_here

# Formats named by their first bytes.  Only these are ever labelled image/* or
# application/pdf: a provider rejects a request whose image is not what its
# mime type says, so a file merely *named* .png is not trusted to be one.
_SNIFF: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"%PDF-", "application/pdf"),
)
_IMAGE_MIMES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
_TRUSTED_ONLY_BY_MAGIC = _IMAGE_MIMES | {"application/pdf"}


def sniff_mime(head: bytes, name: str) -> str:
    """The mime type of a binary file from its first bytes, else its name, else octet-stream."""
    for magic, mime in _SNIFF:
        if head.startswith(magic):
            return mime
    if len(head) >= 12 and head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    guessed = mimetypes.guess_type(name, strict=False)[0]
    if guessed is None or guessed in _TRUSTED_ONLY_BY_MAGIC:
        return "application/octet-stream"
    return guessed


def descriptor(ref: MediaRef) -> JsonDict:
    """What a tool result says about a published object: the handle and its facts, no bytes."""
    out: JsonDict = {"handle": ref.handle, "sha256": ref.sha256, "mimeType": ref.mime, "sizeBytes": ref.size}
    if ref.width is not None:
        out["width"], out["height"] = ref.width, ref.height
    return out


def _short(sha256: str) -> str:
    return f"media://sha256-{sha256[:12]}…"


class MediaHost:
    """The media capability one ToolHost carries."""

    def __init__(self, store: MediaStore, index: ScopeIndex | None = None) -> None:
        self.store = store
        self.index = index if index is not None else ScopeIndex(store.root)

    @classmethod
    def at(cls, root: Path) -> MediaHost:
        return cls(MediaStore(root))

    # -- producers (host side, worker threads) ------------------------------

    def publish_fd(self, fd: int, name: str) -> JsonDict:
        """Publish an open regular file from its start; the media descriptor of the result.

        Called by the file host with the descriptor it already checked, so
        the bytes published are the bytes of the file the policy admitted.
        A file over the store's ceiling is refused before a byte is read.
        """
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ToolFailedError("only a regular file can be published to the media store")
        if st.st_size > self.store.ceiling:
            raise ToolFailedError(
                f"the file is binary and {st.st_size} bytes; binary files are returned as media handles "
                f"and the media store holds at most {self.store.ceiling} bytes per object"
            )
        os.lseek(fd, 0, os.SEEK_SET)
        head = os.read(fd, 64)
        os.lseek(fd, 0, os.SEEK_SET)
        mime = sniff_mime(head, name)
        try:
            ref = self.store.publish_stream(iter(lambda: os.read(fd, FILE_CHUNK), b""), mime)
        except MediaError as exc:
            raise ToolFailedError(f"the media store refused the file: {exc}") from None
        return descriptor(ref)

    def publish_bytes(self, data: bytes, mime: str) -> JsonDict:
        """Publish bytes another host producer received (an MCP image, a pasted screenshot).

        Like :meth:`publish_fd`, the handle becomes admissible into the scope
        of the call that produced it; ``mime`` is trusted only where the
        bytes' own signature agrees (see :func:`sniff_mime`).
        """
        if len(data) > self.store.ceiling:
            raise ToolFailedError(
                f"the content is {len(data)} bytes; the media store holds at most {self.store.ceiling} bytes per object"
            )
        sniffed = sniff_mime(data[:64], "")
        if sniffed == "application/octet-stream" and mime not in _TRUSTED_ONLY_BY_MAGIC:
            sniffed = mime or sniffed
        try:
            ref = self.store.publish_bytes(data, sniffed)
        except MediaError as exc:
            raise ToolFailedError(f"the media store refused the content: {exc}") from None
        return descriptor(ref)

    # -- the engine's capability --------------------------------------------

    async def admit(self, handle: str, scope: str) -> bool:
        sha = _sha_or_none(handle)
        ref = published_here(sha) if sha else None
        if ref is None:
            return False
        mime = ref.mime
        if mime in _IMAGE_MIMES and ref.width is None:
            mime = "application/octet-stream"  # labelled an image, but no image header parsed
        entry: dict[str, Any] = {"sha256": ref.sha256, "mime": mime, "size": ref.size}
        if ref.width is not None:
            entry["width"], entry["height"] = ref.width, ref.height
        await asyncio.to_thread(self.index.grant, scope, entry)
        return True

    async def describe(self, handle: str, scope: str) -> JsonDict:
        sha, entry = await asyncio.to_thread(self._granted, handle, scope)
        try:
            size = await asyncio.to_thread(self.store.stat, sha)
        except MediaNotFoundError:
            raise ToolFailedError(f"{_short(sha)} is no longer in the media store") from None
        except MediaError as exc:
            raise ToolFailedError(f"{_short(sha)} cannot be read: {exc.code}") from None
        out: JsonDict = {"handle": handle, "mimeType": str(entry.get("mime") or "application/octet-stream"),
                         "sizeBytes": size}
        if isinstance(entry.get("width"), int) and isinstance(entry.get("height"), int):
            out["width"], out["height"] = entry["width"], entry["height"]
        return out

    async def load(self, handle: str, scope: str) -> MediaBlob:
        sha, entry = await asyncio.to_thread(self._granted, handle, scope)
        try:
            data = await asyncio.to_thread(self.store.open_verified, sha)
        except MediaError as exc:
            raise ToolFailedError(f"{_short(sha)} cannot be read from the media store ({exc.code})") from None
        mime = str(entry.get("mime") or "application/octet-stream")
        if mime in _TRUSTED_ONLY_BY_MAGIC and sniff_mime(data[:64], "") != mime:
            # A provider rejects the whole request for an image that is not what it says.
            raise ToolFailedError(f"{_short(sha)} is not the {mime} its producer said it is")
        return MediaBlob(handle, mime, data)

    def _granted(self, handle: str, scope: str) -> tuple[str, dict[str, Any]]:
        try:
            sha = parse_handle(handle)
        except InvalidHandleError:
            raise InvalidArgsError("a media handle looks like media://sha256-<64 hex digits>") from None
        entry = self.index.lookup(scope, sha)
        if entry is None:
            raise ToolDeniedError(
                f"{_short(sha)} was not produced or received in this chat or run, so it cannot be read here",
                reason=DenyReason.MEDIA_SCOPE_DENIED,
            )
        return sha, entry


def _sha_or_none(handle: str) -> str | None:
    try:
        return parse_handle(handle)
    except InvalidHandleError:
        return None
