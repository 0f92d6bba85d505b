"""Provider-neutral chat messages and their content parts.

One shape for every provider so the agent loop, sessions and the store never
speak a wire format.  Tool results carry the registry's model-facing text
(untrusted data) and are only ever placed in a tool-result position.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from relavium_desktop.engine.jsontypes import JsonDict

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True, slots=True)
class TextPart:
    text: str
    kind: Literal["text"] = "text"


@dataclass(frozen=True, slots=True)
class ReasoningPart:
    text: str
    # The provider's signature over the thinking (Anthropic): with it the block can be sent back,
    # as Anthropic requires for the assistant turn of a tool loop when extended thinking is on.
    signature: str | None = None
    kind: Literal["reasoning"] = "reasoning"


@dataclass(frozen=True, slots=True)
class ToolCallPart:
    call_id: str
    name: str
    args: JsonDict = field(default_factory=dict)
    kind: Literal["tool_call"] = "tool_call"


@dataclass(frozen=True, slots=True)
class ToolResultPart:
    """The outcome of one call; ``content`` is untrusted data, never instructions."""

    call_id: str
    name: str
    content: str
    is_error: bool = False
    # A failed call's closed error code and tool_denied reason, kept as fields so
    # a surface showing stored history never has to parse ``content``.
    error_code: str | None = None
    error_reason: str | None = None
    kind: Literal["tool_result"] = "tool_result"


@dataclass(frozen=True, slots=True)
class MediaPart:
    """A handle into the media store; bytes never travel inside a message.

    The same part serves media a tool delivered (``read_media``) and media
    the user attached to their own message (pasted or dropped into the chat
    composer), so every provider converts both with one code path.  ``name``
    is what the user's attachment was called (a file name, "Pasted image"):
    shown in the transcript, never sent to a model.
    """

    handle: str
    mime_type: str
    name: str = ""
    kind: Literal["media"] = "media"


@dataclass(frozen=True, slots=True)
class NoticePart:
    """Engine-authored text the model reads: never the user's words, never shown as theirs.

    It opens the user-role message the engine synthesises to attach media a
    tool delivered (``read_media``): providers send it as text, while the
    chat transcript (which shows only :class:`TextPart` of user messages)
    does not present it as something the user typed.
    """

    text: str
    kind: Literal["notice"] = "notice"


@dataclass(frozen=True, slots=True, repr=False)
class MediaBlob:
    """A media object's bytes, resolved for ONE provider request and never stored.

    Carried beside the messages (``ChatRequest.media``, keyed by handle), so
    history, events and logs keep the handle only; the provider base64-encodes
    ``data`` straight into its request body.  ``repr`` omits the bytes so a
    log line or a traceback cannot carry them.
    """

    handle: str
    mime_type: str
    data: bytes

    def __repr__(self) -> str:
        return f"MediaBlob(handle={self.handle!r}, mime_type={self.mime_type!r}, bytes={len(self.data)})"


Part = TextPart | ReasoningPart | ToolCallPart | ToolResultPart | MediaPart | NoticePart

_PART_TYPES: dict[str, type[Any]] = {
    "text": TextPart,
    "reasoning": ReasoningPart,
    "tool_call": ToolCallPart,
    "tool_result": ToolResultPart,
    "media": MediaPart,
    "notice": NoticePart,
}


@dataclass(frozen=True, slots=True)
class Message:
    role: Role
    parts: tuple[Part, ...]

    @classmethod
    def system(cls, text: str) -> Message:
        return cls("system", (TextPart(text),))

    @classmethod
    def user(cls, text: str) -> Message:
        return cls("user", (TextPart(text),))

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def tool_calls(self) -> list[ToolCallPart]:
        return [p for p in self.parts if isinstance(p, ToolCallPart)]

    def to_json(self) -> JsonDict:
        return {"role": self.role, "parts": [part_to_json(p) for p in self.parts]}

    @classmethod
    def from_json(cls, data: JsonDict) -> Message:
        return cls(data["role"], tuple(part_from_json(p) for p in data["parts"]))


def part_to_json(part: Part) -> JsonDict:
    out: JsonDict = {"kind": part.kind}
    for name in part.__dataclass_fields__:
        if name != "kind":
            out[name] = getattr(part, name)
    return out


def part_from_json(data: JsonDict) -> Part:
    kind = data.get("kind")
    cls = _PART_TYPES.get(str(kind))
    if cls is None:
        raise ValueError(f"unknown message part kind {kind!r}")
    part: Part = cls(**{k: v for k, v in data.items() if k != "kind"})
    return part
