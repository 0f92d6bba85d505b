"""read_media: authorise and describe a durable media handle (never its bytes).

The host checks the handle against the call's scope (``media_scope_denied``
when it was not produced or received there).  Inside an agent loop the
handle is then queued on the response's :class:`MediaTurn`, and the loop
attaches it to the next request on a synthesised message; the checks that
depend on the answering model happen here, so the refusal is the result of
this call:

- a PDF, at any size (the spec: a PDF is never inlined through this rail),
  video, audio or another non-image type: ``invalid_args`` saying what can
  be shown (pick another handle);
- an image over its inline ceiling: ``invalid_args`` with reason
  ``too_large``, naming the limit;
- an image for a model that takes no images: ``invalid_args``;
- a model that accepts no media at all: ``tool_unavailable``, which ends
  the turn -- it must not be handed a descriptor of something it never saw;
- more than the per-response cap: ``invalid_args`` (ask again next turn).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from relavium_desktop.engine.errors import InvalidArgsError, InvalidReason, ToolUnavailableError
from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.jsontypes import JsonDict
from relavium_desktop.engine.llm.messages import MediaPart
from relavium_desktop.engine.tools.builtins.base import ToolArgs
from relavium_desktop.engine.tools.media_turn import (
    INLINE_MEDIA_CEILING,
    MediaTurn,
    media_kind,
    media_scope_of,
)
from relavium_desktop.engine.tools.registry import require
from relavium_desktop.engine.tools.tooldef import PolicyClass, ToolDef, ToolDispatchContext

_KIND_WORDS = {"image": "images", "pdf": "PDF documents"}


class ReadMediaArgs(ToolArgs):
    handle: str = Field(pattern=r"^media://sha256-[0-9a-f]{64}$", description="A media://sha256-… handle.")


# What read_media may attach: images only.  A PDF rides the media-input rail only when
# the user attaches it to a chat message, never through a tool call (the spec).
_ATTACHABLE = ("image",)


def _check_kind(described: JsonDict) -> tuple[str, str]:
    mime = str(described.get("mimeType") or "application/octet-stream")
    kind = media_kind(mime)
    if kind not in _ATTACHABLE:
        what = {"video": "a video", "audio": "audio", "pdf": "a PDF document"}.get(kind, f"a {mime} file")
        never = " (a PDF is never inlined into a model request by read_media, at any size)" if kind == "pdf" else ""
        raise InvalidArgsError(
            f"read_media: the handle is {what}{never}; only images (PNG, JPEG, GIF, WebP) can be shown to "
            "the model; pick another handle"
        )
    size = int(described.get("sizeBytes") or 0)
    ceiling = INLINE_MEDIA_CEILING[kind]
    if size > ceiling:
        raise InvalidArgsError(
            f"read_media: the {kind} is {size} bytes, over the {ceiling}-byte limit for one attachment; "
            "pick a smaller one",
            reason=InvalidReason.TOO_LARGE,
        )
    return kind, mime


def _attach(turn: MediaTurn, handle: str, kind: str, mime: str) -> None:
    if not turn.accepts:
        raise ToolUnavailableError(
            f"read_media: the model {turn.model} does not accept image or document input, so it cannot "
            "look at media; switch to a model that can see images"
        )
    if kind not in turn.accepts:
        raise InvalidArgsError(
            f"read_media: the model {turn.model} cannot take {_KIND_WORDS[kind]} with this provider; "
            f"it accepts {', '.join(_KIND_WORDS[k] for k in sorted(turn.accepts) if k in _KIND_WORDS)}"
        )
    if len(turn.attachments) >= turn.cap:
        raise InvalidArgsError(
            f"read_media: one response may attach at most {turn.cap} media; ask for the rest in a later turn"
        )
    turn.attachments.append(MediaPart(handle, mime))


async def _dispatch(args: ReadMediaArgs, host: ToolHost, ctx: ToolDispatchContext) -> Any:
    media = require(host.media, "read_media", "media store")
    described: JsonDict = await media.describe(args.handle, media_scope_of(ctx))
    kind, mime = _check_kind(described)
    if ctx.media_turn is None:
        return {**described, "attached": False,
                "note": "described only: no model turn here to attach the media to"}
    _attach(ctx.media_turn, args.handle, kind, mime)
    return {**described, "attached": True, "note": "attached to the next message for you to look at"}


TOOL = ToolDef(
    id="read_media",
    description=(
        "Look at an image by its media://sha256-… handle (from read_file or a pasted image). "
        "Returns a short description; the media itself is attached to the next message."
    ),
    args_model=ReadMediaArgs,
    dispatch=_dispatch,
    policy=PolicyClass(),
)
