"""Glob patterns compiled once: ``*`` and ``?`` within a component, ``**`` across them.

Two shapes are needed: per-component matchers for glob *reads* (so the walk
prunes as it descends and never enters a directory no pattern can match) and
one whole-relative-path regex for the list_directory filter.  ``[`` is a
literal here, as in the engine's glob detection.
"""

from __future__ import annotations

import re
from collections.abc import Callable

GLOB_META = frozenset("*?")


def has_magic(text: str) -> bool:
    return any(c in GLOB_META for c in text)


def _component_regex(comp: str) -> str:
    out = []
    for ch in comp:
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        else:
            out.append(re.escape(ch))
    return "".join(out)


def component_matcher(comp: str) -> Callable[[str], bool]:
    """A name predicate for one pattern component (literal components compare exactly)."""
    if not has_magic(comp):
        return comp.__eq__
    rx = re.compile(_component_regex(comp), re.DOTALL)
    return lambda name: rx.fullmatch(name) is not None


def path_regex(pattern: str) -> re.Pattern[str]:
    """Whole relative-path regex: ``**`` spans any number of folders (including none)."""
    parts = [p for p in pattern.split("/") if p not in ("", ".")]
    out: list[str] = []
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        if part == "**":
            out.append(".*" if last else "(?:[^/]+/)*")
        else:
            out.append(_component_regex(part) + ("" if last else "/"))
    return re.compile("".join(out), re.DOTALL)
