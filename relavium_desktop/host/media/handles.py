"""``media://sha256-<64 lowercase hex>`` handles: the only spelling accepted.

Strict on purpose: a handle is also a path component in the store, so
anything but exactly 64 lowercase hex digits is refused before it gets
near the filesystem.
"""

from __future__ import annotations

import re

from relavium_desktop.host.media.errors import InvalidHandleError

HANDLE_PREFIX = "media://sha256-"
_SHA_RE = re.compile(r"[0-9a-f]{64}")
HANDLE_RE = re.compile(r"media://sha256-([0-9a-f]{64})(?![0-9a-f])")


def check_sha(sha256: str) -> str:
    """Return ``sha256`` if it is 64 lowercase hex digits, else refuse."""
    if not isinstance(sha256, str) or not _SHA_RE.fullmatch(sha256):
        raise InvalidHandleError("a media digest is 64 lowercase hex digits")
    return sha256


def format_handle(sha256: str) -> str:
    return HANDLE_PREFIX + check_sha(sha256)


def parse_handle(handle: str) -> str:
    """The sha256 hex named by ``handle``; anything else is InvalidHandleError."""
    if not isinstance(handle, str) or not handle.startswith(HANDLE_PREFIX):
        raise InvalidHandleError("a media handle looks like media://sha256-<64 hex digits>")
    return check_sha(handle[len(HANDLE_PREFIX):])
