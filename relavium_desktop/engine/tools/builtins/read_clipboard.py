"""read_clipboard: the current clipboard text, or its image as a media handle (a governed OS action).

Users copy screenshots as often as text.  An image is never returned as
bytes or base64: the host PNG-encodes it and publishes it to the media
store, and the tool answers with the handle (mime type, size, dimensions),
admitted into the scope of this call so ``read_media`` can show it to a
model that accepts images.  Reading either kind is the same os-class
action, so the approval that guards reading text guards the image too --
the permission prompt comes before a single pixel is read.

``content`` says what to read: ``auto`` (the default) returns the text when
there is some and otherwise the image, so a plain "what did I copy?" works
for both; ``text`` and ``image`` ask for one kind only.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from relavium_desktop.engine.errors import ToolFailedError, ToolUnavailableError
from relavium_desktop.engine.host import OsCapability, ToolHost
from relavium_desktop.engine.jsontypes import JsonDict
from relavium_desktop.engine.tools.builtins.base import ToolArgs
from relavium_desktop.engine.tools.media_turn import media_handles, media_scope_of
from relavium_desktop.engine.tools.registry import require
from relavium_desktop.engine.tools.tooldef import PolicyClass, ToolDef, ToolDispatchContext

IMAGE_NOTE = "The clipboard holds an image; pass media.handle to read_media to look at it."


class ReadClipboardArgs(ToolArgs):
    content: Literal["auto", "text", "image"] = Field(
        default="auto",
        description=(
            "What to read: 'text', 'image' (a copied screenshot, returned as a media handle), "
            "or 'auto' (the text if there is any, else the image)."
        ),
    )


async def _image(os_cap: OsCapability, host: ToolHost, ctx: ToolDispatchContext) -> JsonDict | None:
    read_image = getattr(os_cap, "read_clipboard_image", None)
    if read_image is None:
        return None  # an OS capability from before images: it can only read text
    media: JsonDict | None = await read_image()
    if media is None:
        return None
    result: JsonDict = {"media": media, "note": IMAGE_NOTE}
    if host.media is not None:
        for handle in media_handles(result):
            await host.media.admit(handle, media_scope_of(ctx))
    return result


async def _dispatch(args: ReadClipboardArgs, host: ToolHost, ctx: ToolDispatchContext) -> Any:
    os_cap = require(host.os, "read_clipboard", "clipboard")
    if args.content == "text":
        return await os_cap.read_clipboard()
    if args.content == "auto":
        text = await os_cap.read_clipboard()
        if text:
            return text
        image = await _image(os_cap, host, ctx)
        return image if image is not None else text
    if getattr(os_cap, "read_clipboard_image", None) is None:
        raise ToolUnavailableError("read_clipboard: this host can read clipboard text only, not images")
    image = await _image(os_cap, host, ctx)
    if image is None:
        raise ToolFailedError("read_clipboard: the clipboard holds no image")
    return image


TOOL = ToolDef(
    id="read_clipboard",
    description=(
        "Read what is on the clipboard: its text, or a copied image (screenshot) as a media handle "
        "(media://sha256-...) with its type, size and dimensions; pass the handle to read_media to look at it."
    ),
    args_model=ReadClipboardArgs,
    dispatch=_dispatch,
    policy=PolicyClass(os=True),
)
