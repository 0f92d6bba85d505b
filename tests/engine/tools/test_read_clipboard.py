"""read_clipboard on an OS capability that predates images (a plugin's or an older host's).

Such a host implements only ``read_clipboard``/``notify``; the stand-in below
is that whole capability (no real one exists without images any more), so
the tool's fallback -- text still works, an image request is unavailable,
not a crash -- is checked against the shape such hosts really have.
"""

from __future__ import annotations

from collections.abc import Sequence

from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.jsontypes import JsonDict
from tests.helpers import dispatch


class TextOnlyOs:
    def __init__(self, text: str) -> None:
        self.text = text

    async def read_clipboard(self) -> str:
        return self.text

    async def notify(self, title: str, body: str, actions: Sequence[str]) -> JsonDict:
        return {"id": "1"}


async def test_text_still_reads_and_auto_falls_back_to_the_empty_text() -> None:
    assert (await dispatch("read_clipboard", {}, host=ToolHost(os=TextOnlyOs("hi")))).result == "hi"
    assert (await dispatch("read_clipboard", {}, host=ToolHost(os=TextOnlyOs("")))).result == ""


async def test_asking_for_an_image_is_unavailable_with_a_clear_reason() -> None:
    outcome = await dispatch("read_clipboard", {"content": "image"}, host=ToolHost(os=TextOnlyOs("hi")))
    assert outcome.error is not None and outcome.error.code == "tool_unavailable"
    assert "clipboard text only" in outcome.error.message


async def test_an_unknown_content_kind_is_a_correctable_argument_error() -> None:
    outcome = await dispatch("read_clipboard", {"content": "video"}, host=ToolHost(os=TextOnlyOs("hi")))
    assert outcome.error is not None and outcome.error.code == "invalid_args"
