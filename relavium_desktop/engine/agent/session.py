"""A chat session: its identity, its persisted history, its store seam.

The engine defines what a session is and what must be stored; ``store/``
implements the storage.  What is stored is masked and bounded on the way in
(:func:`storable_message`): tool arguments and results can carry a credential
that a tool printed, and history.db outlives the run.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol, runtime_checkable

from relavium_desktop.engine.agent.outcome import UsageRecord
from relavium_desktop.engine.llm.messages import (
    Message,
    Part,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from relavium_desktop.engine.tools.masking import MASK, clip, mask_text, mask_value

# Per-part bound for stored tool results (the model-facing copy is already
# bounded by the registry; this caps what history.db keeps per message).
STORED_TOOL_RESULT_CHARS = 16_000
STORED_TEXT_CHARS = 200_000


@dataclass(frozen=True, slots=True)
class SessionInfo:
    id: str
    title: str
    agent_id: str
    mode: str
    created_at: float
    updated_at: float
    message_count: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "agentId": self.agent_id, "mode": self.mode,
                "createdAt": self.created_at, "updatedAt": self.updated_at,
                "messageCount": self.message_count}


class SessionStore(Protocol):
    def create(self, *, title: str, agent_id: str, mode: str) -> SessionInfo: ...

    def get(self, session_id: str) -> SessionInfo | None: ...

    def list_sessions(self) -> list[SessionInfo]: ...

    def rename(self, session_id: str, title: str) -> bool: ...

    def delete(self, session_id: str) -> bool: ...

    def append_message(self, session_id: str, message: Message) -> None: ...

    def messages(self, session_id: str) -> list[Message]: ...

    def record_usage(self, session_id: str, usage: UsageRecord) -> None: ...


@runtime_checkable
class PartialAnswerStore(Protocol):
    """A store that keeps a streaming answer as it grows, and a cut-off one for good.

    ``save_partial`` overwrites the session's one in-progress draft (called at
    most about once a second); any message appended afterwards supersedes it.
    ``keep_cut_off`` ends the draft: a non-empty ``text`` becomes an assistant
    message marked as cut off, an empty one just clears the draft.  A draft
    left by a process that died (kill -9) is kept as a cut-off answer by the
    store itself, the next time the session's messages are read.
    """

    def save_partial(self, session_id: str, text: str) -> None: ...

    def keep_cut_off(self, session_id: str, text: str) -> None: ...


# Sent in place of the missing answer between two user messages in a row: the
# providers expect turns to alternate, and a question whose answer was lost
# (cut off before any text, a failed request) is followed by the next one.
NO_ANSWER_TEXT = "(no answer: the reply to the message above was lost or cut off before any text)"


def alternating(history: Sequence[Message]) -> list[Message]:
    """``history`` as sent to a provider: never two user messages in a row.

    A placeholder assistant turn goes between them (merging would blur two
    questions into one).  A user message right after tool results is fine:
    it is the stored history the loop itself produces.
    """
    out: list[Message] = []
    for message in history:
        if message.role == "user" and out and out[-1].role == "user":
            out.append(Message("assistant", (TextPart(NO_ANSWER_TEXT),)))
        out.append(message)
    return out


def _store_part(part: Part) -> Part:
    if isinstance(part, ToolResultPart):
        return replace(part, content=clip(mask_text(part.content), STORED_TOOL_RESULT_CHARS))
    if isinstance(part, ToolCallPart):
        masked = mask_value(dict(part.args))
        return replace(part, args=masked if isinstance(masked, dict) else {})
    if isinstance(part, TextPart | ReasoningPart):
        return replace(part, text=clip(mask_text(part.text), STORED_TEXT_CHARS))
    return part


def storable_message(message: Message) -> Message:
    """The masked, bounded copy of ``message`` that history.db keeps."""
    return Message(message.role, tuple(_store_part(p) for p in message.parts))


# A title has to fit the sessions list without wrapping; 48 characters is
# about one line of the panel at its usual width.
TITLE_CHARS = 48
_PROTECT = "\ue000"  # stands in for a mask while markup is stripped ("***" looks like emphasis)
_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n?(.*?)(?:^ {0,3}\1[ \t]*$|\Z)", re.M | re.S)
_IMAGE_RE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK_RE = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_AUTOLINK_RE = re.compile(r"<((?:https?|mailto):[^>\s]+)>")
_LINE_MARK_RE = re.compile(r"^[ \t]*(?:#{1,6}[ \t]+|>[ \t]?|[-*+][ \t]+|\d{1,3}[.)][ \t]+)+", re.M)
_RULE_RE = re.compile(r"^[ \t]*(?:[-*_][ \t]*){3,}$", re.M)
_EMPHASIS_RE = re.compile(r"(\*{1,3}|~~)(?=\S)(.+?)(?<=\S)\1")
_UNDERSCORE_RE = re.compile(r"(?<!\w)(_{1,3})(?=\S)(.+?)(?<=\S)\1(?!\w)")  # not inside snake_case


def _plain(markdown: str) -> str:
    """The words a reader sees in ``markdown``, on one line: no fences, marks or link targets.

    Prose wins over code: "why does this fail? ```...```" is titled by its
    question; a message that is only a code block is titled by its code.
    """
    code: list[str] = []

    def keep_code(match: re.Match[str]) -> str:
        code.append(match.group(2))
        return " "

    prose = _FENCE_RE.sub(keep_code, markdown)
    for pattern, repl in ((_IMAGE_RE, r"\1"), (_LINK_RE, r"\1"), (_AUTOLINK_RE, r"\1"), (_RULE_RE, " "),
                          (_LINE_MARK_RE, ""), (_EMPHASIS_RE, r"\2"), (_UNDERSCORE_RE, r"\2")):
        prose = pattern.sub(repl, prose)
    words = " ".join(prose.replace("`", "").split())
    return words or " ".join(" ".join(code).split())


def _shorten(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters at a word boundary, with an ellipsis when cut."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:  # one very long word (a URL, a path) is cut where it is
        cut = cut[:space]
    return cut.rstrip(" ,;:.-–—") + "…"


def short_title(text: str, limit: int = TITLE_CHARS) -> str:
    """A list-sized title for ``text``: masked, markup stripped, whitespace collapsed, shortened.

    Masking runs on the whole text first: a credential cut in half by the
    shortening could no longer be recognised.  Empty when nothing readable is left.
    """
    masked = mask_text(text).replace(MASK, _PROTECT)
    return _shorten(_plain(masked), limit).replace(_PROTECT, MASK)


def title_from(messages: Sequence[Message], limit: int = TITLE_CHARS) -> str:
    """A session's title: the first user message that has readable words, shortened."""
    for m in messages:
        if m.role == "user":
            title = short_title(m.text, limit)
            if title:
                return title
    return "New chat"


def title_for_action(action_title: str, text: str, limit: int = TITLE_CHARS) -> str:
    """The title of a chat opened from a clipboard action: "Summarize: first words of the text".

    The rendered prompt (the action's instructions with the clipboard pasted
    in) starts the same way for every run of an action, so it cannot tell two
    chats apart; the action's name and the start of what it was run on can.
    """
    head = " ".join(mask_text(action_title).split()) or "Clipboard"
    body = short_title(text, max(limit - len(head) - 2, 16))
    return f"{head}: {body}" if body else head
