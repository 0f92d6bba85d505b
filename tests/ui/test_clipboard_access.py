"""The Qt clipboard behind the host's ClipboardAccess: the real QClipboard of the test application."""

from __future__ import annotations

from relavium_desktop.host.desktop_os import ClipboardAccess
from relavium_desktop.ui.clipboard_access import QtClipboard
from relavium_desktop.ui.qt import QColor, QImage


def _image() -> QImage:
    image = QImage(5, 4, QImage.Format.Format_RGB32)
    image.fill(QColor(10, 200, 30))
    return image


async def test_text_on_the_clipboard_is_read_and_no_image_is_claimed(qapp) -> None:
    clipboard: ClipboardAccess = QtClipboard()
    qapp.clipboard().setText("plain words")
    assert clipboard.read_text() == "plain words"
    assert clipboard.has_image() is False
    assert await clipboard.read_image_png() is None


async def test_an_image_on_the_clipboard_comes_back_as_the_same_png(qapp) -> None:
    clipboard = QtClipboard()
    qapp.clipboard().setImage(_image())
    assert clipboard.has_image() is True
    png = await clipboard.read_image_png()
    assert png is not None and png.startswith(b"\x89PNG\r\n\x1a\n")
    decoded = QImage.fromData(png, "PNG")
    assert (decoded.width(), decoded.height()) == (5, 4)
    assert decoded.pixelColor(2, 2) == QColor(10, 200, 30)
