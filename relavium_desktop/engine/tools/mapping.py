"""input_mapping / output_mapping for tool calls.

Templates in ``input_mapping`` are rendered by the workflow engine against
the run scope before dispatch, so here every value is already literal; the
registry merges them into the effective args ahead of the guardrails.
``output_mapping`` reads dot-paths out of the *full* result, never the
bounded preview, so downstream nodes get the real value.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from relavium_desktop.engine.errors import InvalidArgsError

_SEGMENT_RE = re.compile(r"""\[(\d+)\]|\[["']([^"']+)["']\]|([^.\[\]]+)""")


def resolve_input_mapping(input_mapping: Mapping[str, Any]) -> dict[str, Any]:
    return dict(input_mapping)


def parse_path(path: str) -> list[str | int]:
    """``a.b[0]["c d"]`` -> ``['a', 'b', 0, 'c d']``."""
    out: list[str | int] = []
    for m in _SEGMENT_RE.finditer(path):
        index, quoted, name = m.groups()
        if index is not None:
            out.append(int(index))
        elif quoted is not None:
            out.append(quoted)
        elif name:
            out.append(name)
    return out


_MISSING = object()


def get_path(value: Any, path: str) -> Any:
    """Follow a dot-path; an empty path or ``$`` is the whole value; missing is None."""
    if path in ("", "$", "."):
        return value
    current = value
    for seg in parse_path(path.removeprefix("$.")):
        if isinstance(seg, int) and isinstance(current, list | tuple) and -len(current) <= seg < len(current):
            current = current[seg]
        elif isinstance(current, Mapping) and str(seg) in current:
            current = current[str(seg)]
        else:
            return None
    return current


def apply_output_mapping(result: Any, output_mapping: Mapping[str, str]) -> dict[str, Any]:
    mapped: dict[str, Any] = {}
    for key, path in output_mapping.items():
        if not isinstance(path, str):
            raise InvalidArgsError(f"output_mapping.{key} must be a dot-path string")
        mapped[key] = get_path(result, path)
    return mapped
