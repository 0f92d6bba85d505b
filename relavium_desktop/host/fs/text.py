"""Bounded descriptor reads and the text/binary decision for read_file.

Reads go through the already-opened descriptor (never the name again) and
stop at a byte ceiling, so a file that grows while it is read, or a huge
file, cannot exhaust memory.  Binary content is never returned inline: the
first chunk decides, and a binary file is handed (same descriptor, from its
start) to the host's media publisher, which stores it and returns a handle;
a host without a media store fails closed with ``tool_unavailable``.  Text that is not valid UTF-8 is an error that says so,
never mojibake.  A regular file with more than one hard link is refused
before a byte is read (``walk.refuse_hard_link``, the same check writes use):
this is the one place file content is read, so every read path - a single
path, a glob match, a symlink's target - passes it, on the descriptor.
"""

from __future__ import annotations

import mimetypes
import os
import stat
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from relavium_desktop.engine.errors import ToolFailedError, ToolUnavailableError
from relavium_desktop.host.fs.walk import refuse_hard_link

READ_MAX_BYTES = 16 * 1024 * 1024
_SNIFF_BYTES = 8192

# Publishes an open binary file to the media store: (fd, file name) -> media descriptor.
MediaPublisher = Callable[[int, str], dict[str, Any]]
_CHUNK = 1024 * 1024

# Leading bytes of common binary formats that may contain no NUL early on.
_MAGIC = (
    b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"%PDF", b"PK\x03\x04", b"\x1f\x8b",
    b"\x7fELF", b"BZh", b"\xfd7zXZ", b"7z\xbc\xaf", b"RIFF", b"OggS", b"ID3", b"fLaC",
)


def iso_mtime(mtime: float) -> str:
    return datetime.fromtimestamp(mtime, UTC).isoformat().replace("+00:00", "Z")


def is_binary(head: bytes) -> bool:
    return b"\x00" in head[:_SNIFF_BYTES] or head.startswith(_MAGIC)


def read_text_fd(fd: int, name: str, publish: MediaPublisher | None = None) -> dict[str, Any]:
    """``{content, mimeType, sizeBytes, lastModified}`` from an open regular-file fd.

    A binary file with ``publish`` given is ``{media, mimeType, sizeBytes,
    lastModified}`` instead: its bytes go to the media store, not the result.
    """
    st = os.fstat(fd)
    if stat.S_ISDIR(st.st_mode):
        raise ToolFailedError("the path names a folder, not a file; use list_directory")
    if not stat.S_ISREG(st.st_mode):
        raise ToolFailedError("the path is not a regular file (device, pipe or socket)")
    refuse_hard_link(st)
    if publish is not None and is_binary(os.pread(fd, _SNIFF_BYTES, 0)):
        media = publish(fd, name)
        return {
            "media": media,
            "mimeType": media["mimeType"],
            "sizeBytes": media["sizeBytes"],
            "lastModified": iso_mtime(st.st_mtime),
        }
    if st.st_size > READ_MAX_BYTES:
        raise ToolFailedError(f"the file is larger than the {READ_MAX_BYTES // (1024 * 1024)} MiB read limit")
    chunks: list[bytes] = []
    total = 0
    while True:
        chunk = os.read(fd, _CHUNK)
        if not chunk:
            break
        total += len(chunk)
        if total > READ_MAX_BYTES:
            raise ToolFailedError(
                f"the file is larger than the {READ_MAX_BYTES // (1024 * 1024)} MiB read limit"
            )
        chunks.append(chunk)
    data = b"".join(chunks)
    if is_binary(data):
        raise ToolUnavailableError(
            "the file has binary content; binary files are returned as media handles, "
            "which need the media store, and that is not wired on this host yet"
        )
    try:
        content = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ToolFailedError(
            f"the file is not valid UTF-8 text (invalid byte at offset {exc.start}); "
            "only UTF-8 text can be read"
        ) from None
    mime = mimetypes.guess_type(name, strict=False)[0] or "text/plain"
    return {
        "content": content,
        "mimeType": mime,
        "sizeBytes": len(data),
        "lastModified": iso_mtime(st.st_mtime),
    }
