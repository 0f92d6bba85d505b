"""The chat approval modes' ids: the one definition every surface reads.

Kept in a module of its own with nothing heavier than ``enum`` so the CLI's
argument parser and the settings pages can name the modes without loading
the engine (``relavium --help`` stays fast).
"""

from __future__ import annotations

from enum import StrEnum


class ChatMode(StrEnum):
    ASK = "ask"
    PLAN = "plan"
    ACCEPT_EDITS = "accept-edits"
    AUTO = "auto"


MODE_IDS: tuple[str, ...] = tuple(m.value for m in ChatMode)
