"""Media store refusals: each carries a stable code and a secret-free message.

Messages name sizes, limits and hashes only -- never file contents or the
user's paths beyond the store -- so they can reach a model or a log as is.
"""

from __future__ import annotations


class MediaError(Exception):
    """Base class; ``code`` is the stable word a caller or the CLI reports."""

    code = "media_error"


class MediaTooLargeError(MediaError):
    code = "media_too_large"


class MediaCorruptError(MediaError):
    code = "media_corrupt"


class MediaUnsafeError(MediaError):
    """A symlink, extra hard link or non-regular entry where an object should be."""

    code = "media_unsafe"


class MediaNotFoundError(MediaError):
    code = "media_not_found"


class InvalidHandleError(MediaError, ValueError):
    code = "invalid_handle"
