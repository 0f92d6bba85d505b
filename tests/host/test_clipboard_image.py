"""read_clipboard with an image on the real Qt clipboard: a media handle in the real store, behind the same gate.

Real parts: the Qt clipboard of the test application (QClipboard.setImage, as
a screenshot tool would), the desktop OS capability's PNG encoding, the media
CAS on disk and the registry's full pipeline (approval gate included).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QImage

from relavium_desktop.application.paths import AppPaths
from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.tools.tooldef import ApprovalDecision, ApprovalRegime, ApprovalRequest
from relavium_desktop.host.desktop_os import DesktopOs
from relavium_desktop.host.media import MediaHost, MediaStore, parse_handle
from relavium_desktop.ui.clipboard_access import QtClipboard
from tests.helpers import dispatch

SCOPE = "chat:clipboard-test"


def _screenshot(width: int, height: int) -> QImage:
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor(40, 120, 200))
    image.setPixelColor(1, 1, QColor(250, 10, 10))
    return image


@pytest.fixture
def media(tmp_path: Path) -> MediaHost:
    return MediaHost.at(tmp_path / "media")


def _host(media: MediaHost) -> ToolHost:
    return ToolHost(os=DesktopOs(clipboard=QtClipboard(), media_publish=media.publish_bytes), media=media)


async def test_an_image_on_the_clipboard_comes_back_as_a_handle_to_the_same_image(qapp, media: MediaHost) -> None:
    qapp.clipboard().setImage(_screenshot(37, 21))
    outcome = await dispatch("read_clipboard", {"content": "image"}, host=_host(media), media_scope=SCOPE)
    assert outcome.ok, outcome.error
    facts = outcome.result["media"]
    assert facts["mimeType"] == "image/png" and (facts["width"], facts["height"]) == (37, 21)
    stored = media.store.open_verified(parse_handle(facts["handle"]))
    assert len(stored) == facts["sizeBytes"]
    decoded = QImage.fromData(stored, "PNG")
    assert (decoded.width(), decoded.height()) == (37, 21)
    assert decoded.pixelColor(1, 1) == QColor(250, 10, 10)  # lossless: every pixel survives
    # Admitted where it was read, so read_media can show it there.
    described = await media.describe(facts["handle"], SCOPE)
    assert described["sizeBytes"] == len(stored)
    assert "media://sha256-" in str(outcome.model_facing) and "read_media" in str(outcome.model_facing)


async def test_auto_reads_text_when_there_is_text_and_the_image_when_there_is_only_an_image(
    qapp, media: MediaHost
) -> None:
    qapp.clipboard().setText("just words")
    text = await dispatch("read_clipboard", {}, host=_host(media), media_scope=SCOPE)
    assert text.result == "just words"
    assert media.store.list() == []

    qapp.clipboard().setImage(_screenshot(5, 4))
    image = await dispatch("read_clipboard", {}, host=_host(media), media_scope=SCOPE)
    assert image.ok, image.error
    assert (image.result["media"]["width"], image.result["media"]["height"]) == (5, 4)


async def test_asking_for_an_image_when_only_text_was_copied_says_so(qapp, media: MediaHost) -> None:
    qapp.clipboard().setText("no picture here")
    outcome = await dispatch("read_clipboard", {"content": "image"}, host=_host(media), media_scope=SCOPE)
    assert outcome.error is not None and outcome.error.code == "tool_failed"
    assert "holds no image" in outcome.error.message


async def test_a_denied_read_never_touches_the_image(qapp, media: MediaHost) -> None:
    qapp.clipboard().setImage(_screenshot(8, 8))
    asked: list[ApprovalRequest] = []

    async def deny(request: ApprovalRequest) -> ApprovalDecision:
        asked.append(request)
        return ApprovalDecision(approved=False, reason="not now")

    outcome = await dispatch("read_clipboard", {"content": "image"}, host=_host(media), media_scope=SCOPE,
                             approval=ApprovalRegime(hook=deny))
    assert [r.tool_id for r in asked] == ["read_clipboard"]
    assert outcome.error is not None and outcome.error.code == "tool_denied"
    assert media.store.list() == []  # nothing was read, encoded or stored


async def test_an_image_over_the_store_ceiling_is_refused_with_its_size_and_the_limit(
    qapp, tmp_path: Path
) -> None:
    tiny = MediaHost(MediaStore(tmp_path / "tiny", ceiling=64))
    qapp.clipboard().setImage(_screenshot(40, 40))
    outcome = await dispatch("read_clipboard", {"content": "image"}, host=_host(tiny), media_scope=SCOPE)
    assert outcome.error is not None and outcome.error.code == "tool_failed"
    assert "holds at most 64 bytes per object" in outcome.error.message
    assert tiny.store.list() == []


async def test_the_desktop_publishes_to_the_data_folders_store(qapp, relavium_home: Path) -> None:
    """The window hands DesktopOs its AppPaths' media folder: the store its tool hosts read from."""
    qapp.clipboard().setImage(_screenshot(6, 3))
    paths = AppPaths(relavium_home)
    media = MediaHost.at(relavium_home / "media")  # what build_host uses for this home
    outcome = await dispatch("read_clipboard", {"content": "image"},
                             host=ToolHost(os=DesktopOs(clipboard=QtClipboard(), media_root=paths.media), media=media),
                             media_scope=SCOPE)
    assert outcome.ok, outcome.error
    assert media.store.exists(parse_handle(outcome.result["media"]["handle"]))


async def test_without_a_media_store_a_clipboard_image_is_refused_and_says_why(qapp, tmp_path: Path) -> None:
    qapp.clipboard().setImage(_screenshot(6, 3))
    media = MediaHost.at(tmp_path / "media")
    outcome = await dispatch("read_clipboard", {"content": "image"},
                             host=ToolHost(os=DesktopOs(clipboard=QtClipboard()), media=media), media_scope=SCOPE)
    assert not outcome.ok
    assert outcome.error is not None and outcome.error.code == "tool_failed"
    assert "no media store was given" in outcome.error.message
    assert media.store.list() == []
