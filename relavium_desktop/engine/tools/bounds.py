"""Inclusive UTF-8 byte bounds on the effective arguments.

The bounds are checked on the complete effective argument set before the
schema model runs, so an 8 MiB+1 payload or a 257-entry argv is refused with
``invalid_args/too_large`` before any further work.  Cheap checks come first:
a string whose code-point count already exceeds the byte limit cannot fit,
and a vector's entry count is checked before any entry is scanned.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from relavium_desktop.engine.errors import InvalidArgsError, InvalidReason
from relavium_desktop.engine.tools.tooldef import ByteBound, VectorBound


def utf8_len(text: str) -> int:
    """Bytes the UTF-8 encoder would produce; a lone surrogate counts as U+FFFD (3)."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


def _too_large(tool_id: str, field: str, what: str) -> InvalidArgsError:
    return InvalidArgsError(f"{tool_id}.{field}: {what}", reason=InvalidReason.TOO_LARGE)


def _fits(text: str, limit: int) -> bool:
    # Each code point is 1..4 bytes: decide without encoding when we can.
    n = len(text)
    if n > limit:
        return False
    if n * 4 <= limit:
        return True
    return utf8_len(text) <= limit


def check_string(tool_id: str, field: str, value: Any, bound: ByteBound) -> None:
    if not isinstance(value, str):
        return  # the schema reports the type
    if bound.non_empty and value == "":
        raise InvalidArgsError(f"{tool_id}.{field}: must not be empty")
    if not _fits(value, bound.max_bytes):
        raise _too_large(
            tool_id, field, f"exceeds {bound.max_bytes:,} UTF-8 bytes (the limit is inclusive)"
        )


def check_vector(tool_id: str, field: str, value: Any, bound: VectorBound) -> None:
    if not isinstance(value, list | tuple):
        return
    # Aggregate first: the count refuses before any member is scanned.
    if len(value) > bound.max_items:
        raise _too_large(tool_id, field, f"has more than {bound.max_items} entries")
    total = 0
    for index, item in enumerate(value):
        if not isinstance(item, str):
            return  # the schema reports the type
        if len(item) > bound.max_item_bytes or len(item) > bound.max_total_bytes - total:
            size = len(item)  # already over one of the limits by code points alone
        else:
            size = utf8_len(item)
        if size > bound.max_item_bytes:
            raise _too_large(
                tool_id, f"{field}[{index}]", f"exceeds {bound.max_item_bytes:,} UTF-8 bytes"
            )
        total += size
        if total > bound.max_total_bytes:
            raise _too_large(
                tool_id, field, f"exceeds {bound.max_total_bytes:,} UTF-8 bytes in total"
            )


def check_bounds(
    tool_id: str,
    args: Mapping[str, Any],
    byte_bounds: Mapping[str, ByteBound],
    vector_bounds: Mapping[str, VectorBound],
) -> None:
    for field, vbound in vector_bounds.items():
        if field in args and args[field] is not None:
            check_vector(tool_id, field, args[field], vbound)
    for field, bound in byte_bounds.items():
        if field in args and args[field] is not None:
            check_string(tool_id, field, args[field], bound)
