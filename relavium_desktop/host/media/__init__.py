"""The content-addressed media store: durable ``media://sha256-…`` bytes on disk.

Host code only; the engine reaches media through ``engine.host.MediaCapability``,
which :class:`MediaHost` implements over a store and its per-scope grants.
"""

from __future__ import annotations

from relavium_desktop.host.media.capability import MediaHost, descriptor, sniff_mime
from relavium_desktop.host.media.errors import (
    MediaCorruptError,
    MediaError,
    MediaNotFoundError,
    MediaTooLargeError,
    MediaUnsafeError,
)
from relavium_desktop.host.media.handles import format_handle, parse_handle
from relavium_desktop.host.media.store import MEDIA_OBJECT_CEILING, MediaRef, MediaStore
from relavium_desktop.host.media.temps import SweepReport

__all__ = [
    "MEDIA_OBJECT_CEILING",
    "MediaCorruptError",
    "MediaError",
    "MediaHost",
    "MediaNotFoundError",
    "MediaRef",
    "MediaStore",
    "MediaTooLargeError",
    "MediaUnsafeError",
    "SweepReport",
    "descriptor",
    "format_handle",
    "parse_handle",
    "sniff_mime",
]
