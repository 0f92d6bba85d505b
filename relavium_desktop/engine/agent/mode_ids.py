"""The chat approval modes' ids, names and one-line descriptions: the one definition every surface reads.

Kept in a module of its own with nothing heavier than ``enum`` so the CLI's
argument parser, ``relavium --help`` and the window's first paint can name
and describe the modes without loading the engine.

The canonical ids say what a mode does (issue 13).  The ids of earlier
releases stay readable because settings, stored sessions and agent files
carry them: ``ask`` and ``plan`` were both read-only and map onto
:attr:`ChatMode.READ_ONLY`; ``accept-edits`` and ``auto`` kept their ids.
"""

from __future__ import annotations

from enum import StrEnum


class ChatMode(StrEnum):
    """How much a chat may do without asking; the values are what is stored."""

    READ_ONLY = "read-only"
    CONFIRM = "confirm"
    ACCEPT_EDITS = "accept-edits"
    AUTO = "auto"


# Upstream ids that name a canonical mode (stored sessions, settings and agent files keep them).
MODE_ALIASES: dict[str, ChatMode] = {"ask": ChatMode.READ_ONLY, "plan": ChatMode.READ_ONLY}

# Canonical ids in menu order: least to most permissive.
MODE_IDS: tuple[str, ...] = tuple(m.value for m in ChatMode)

# Everything ``parse_mode`` accepts (what ``--mode`` lists as choices).
ACCEPTED_MODE_IDS: tuple[str, ...] = MODE_IDS + tuple(MODE_ALIASES)

# A new session asks before every governed action: nothing happens behind the user's back.
DEFAULT_MODE: ChatMode = ChatMode.CONFIRM

MODE_TITLES: dict[ChatMode, str] = {
    ChatMode.READ_ONLY: "Read-only",
    ChatMode.CONFIRM: "Ask before acting",
    ChatMode.ACCEPT_EDITS: "Auto-approve edits",
    ChatMode.AUTO: "Auto",
}

MODE_DESCRIPTIONS: dict[ChatMode, str] = {
    ChatMode.READ_ONLY: "Reads and lists files; changes nothing.",
    ChatMode.CONFIRM: "Asks you before it changes a file, runs a command or goes online.",
    ChatMode.ACCEPT_EDITS: (
        "Edits files in this project without asking; asks before commands, network and anything else."
    ),
    ChatMode.AUTO: "Does everything without asking, except changes to protected files such as .git or .env.",
}


def parse_mode(text: str) -> ChatMode:
    """The mode ``text`` names, canonical id or alias, ignoring case and surrounding blanks.

    One parser for every surface so a stored ``ask`` or a typed ``AUTO ``
    means the same everywhere; a ValueError lists what is accepted so the
    user can correct the typo from the message alone.
    """
    key = text.strip().lower()
    if key in MODE_ALIASES:
        return MODE_ALIASES[key]
    try:
        return ChatMode(key)
    except ValueError:
        raise ValueError(
            f"unknown chat mode {text.strip()!r}; use one of: {', '.join(ACCEPTED_MODE_IDS)}"
        ) from None
