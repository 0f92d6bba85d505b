"""The Qt clipboard behind the host's ``ClipboardAccess`` protocol.

Why here: the host layer must not import Qt (the CLI and the application
layer build hosts without a Qt application), so the desktop's OS capability
(``host.desktop_os.DesktopOs``) is handed this object by the window.  The
clipboard is read on the GUI thread -- the qasync loop is that thread --
and a clipboard image is PNG-encoded in a worker thread (QImage and QBuffer
are reentrant; the image is copied first, so the clipboard may change
meanwhile).  PNG because it is lossless: "extract the text" needs every pixel.
"""

from __future__ import annotations

import asyncio

from relavium_desktop.ui.qt import QBuffer, QByteArray, QGuiApplication, QImage, QIODevice

NO_QT_APP = "the clipboard needs the desktop app's Qt application"


def encode_png(image: QImage) -> bytes:
    """A QImage as PNG bytes."""
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    try:
        if not image.save(buffer, "PNG"):  # type: ignore[call-overload]  # the stub says bytes; PySide6 takes str
            raise RuntimeError("the clipboard image could not be encoded as PNG")
    finally:
        buffer.close()
    return bytes(data.data())


class QtClipboard:
    """The system clipboard through QGuiApplication (implements ``host.desktop_os.ClipboardAccess``)."""

    def read_text(self) -> str:
        if QGuiApplication.instance() is None:
            raise RuntimeError(NO_QT_APP)
        return QGuiApplication.clipboard().text()

    def has_image(self) -> bool:
        if QGuiApplication.instance() is None:
            return False
        mime = QGuiApplication.clipboard().mimeData()
        return bool(mime is not None and mime.hasImage())

    def _image(self) -> QImage | None:
        """The clipboard's image (a copy, safe to encode off the GUI thread), or None."""
        if QGuiApplication.instance() is None:
            raise RuntimeError(NO_QT_APP)
        clipboard = QGuiApplication.clipboard()
        mime = clipboard.mimeData()
        if mime is None or not mime.hasImage():
            return None
        image = clipboard.image()
        return None if image.isNull() else image.copy()

    async def read_image_png(self) -> bytes | None:
        image = self._image()  # on the GUI thread, where QClipboard lives
        if image is None:
            return None
        return await asyncio.to_thread(encode_png, image)
