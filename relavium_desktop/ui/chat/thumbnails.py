"""The images of a user's message in the transcript, and the viewer that opens one full size.

History keeps handles, never bytes, so a thumbnail shown from history loads
its object through the chat's media scope (a verified read, in a worker
thread) after the block is built; a message sent in this sitting already
has its thumbnails from the strip.  The viewer loads the full object again
when opened, so the transcript never holds decoded full-size images.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from relavium_desktop.ui.chat import look
from relavium_desktop.ui.error_text import error_text
from relavium_desktop.ui.qt import (
    QDialog,
    QHBoxLayout,
    QImage,
    QLabel,
    QPixmap,
    QResizeEvent,
    QSize,
    Qt,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

# handle -> the object's bytes (granted to the chat's scope), or an exception.
MediaLoader = Callable[[str], Awaitable[bytes]]
THUMB_PX = 120  # the height of a transcript thumbnail (twice that wide at most)


class ImageViewer(QDialog):
    """One image scaled to fit the dialog (never up-scaled past its own size)."""

    def __init__(self, name: str, image: QImage, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("imageViewer")
        self.setWindowTitle(name)
        self.image = image
        self.picture = QLabel()
        self.picture.setObjectName("viewerImage")
        self.picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.picture.setMinimumSize(1, 1)
        caption = QLabel(f"{name} · {image.width()} × {image.height()}")
        look.tone(caption, "muted")
        column = QVBoxLayout(self)
        column.addWidget(self.picture, 1)
        column.addWidget(caption)
        available = self.screen().availableGeometry().size() * 0.8 if self.screen() else QSize(1024, 768)
        self.resize(image.size().boundedTo(available).expandedTo(QSize(240, 160)) + QSize(24, 48))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        box = self.picture.size()
        scaled = self.image
        if self.image.width() > box.width() or self.image.height() > box.height():
            scaled = self.image.scaled(box, Qt.AspectRatioMode.KeepAspectRatio,
                                       Qt.TransformationMode.SmoothTransformation)
        self.picture.setPixmap(QPixmap.fromImage(scaled))


class Thumbnail(QToolButton):
    """One attached image (or a PDF's icon) in a message; clicking an image opens it full size."""

    def __init__(self, handle: str, mime: str, name: str, loader: MediaLoader | None, *,
                 thumb: QImage | None = None, theme: Any = None) -> None:
        super().__init__()
        self.setObjectName("messageThumbnail")
        self.handle, self.mime, self.name = handle, mime, name or ("Image" if mime.startswith("image/") else "PDF")
        self._loader = loader
        self._theme = theme
        self.loaded = False
        self.failed: str | None = None
        self.viewer: ImageViewer | None = None
        self.task: asyncio.Task[Any] | None = None
        self.setAutoRaise(True)
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextUnderIcon)
        self.setText(self.name if len(self.name) <= 24 else self.name[:23] + "…")
        self.setToolTip(f"{self.name} — click to open" if self.is_image else self.name)
        self._show_icon()
        if thumb is not None:
            self._set_thumb(thumb)
        elif self.is_image and loader is not None:
            from relavium_desktop.ui.tasks import spawn

            self.task = spawn(self._load_thumb())
        self.clicked.connect(self.open_viewer)

    @property
    def is_image(self) -> bool:
        return self.mime.startswith("image/")

    def _show_icon(self) -> None:
        self.setIcon(look.themed_icon("image" if self.is_image else "file", self._theme, "muted"))
        self.setIconSize(QSize(THUMB_PX // 2, THUMB_PX // 2))

    def _set_thumb(self, thumb: QImage) -> None:
        pixmap = QPixmap.fromImage(thumb)
        self.setIcon(pixmap)
        self.setIconSize(pixmap.size())
        self.loaded = True

    async def _load_thumb(self) -> None:
        from relavium_desktop.ui.chat.attachments import thumbnail_of

        assert self._loader is not None
        try:
            data = await self._loader(self.handle)
            thumb = await asyncio.to_thread(thumbnail_of, data, THUMB_PX)
        except Exception as exc:  # noqa: BLE001 - a missing object leaves the icon and says why
            self._unavailable(error_text(exc))
            return
        if thumb is None:
            self._unavailable("it is not an image this app can show")
        else:
            self._set_thumb(thumb)

    def _unavailable(self, why: str) -> None:
        self.failed = why
        self.setToolTip(f"{self.name}: cannot be shown ({why[:200]})")

    def open_viewer(self) -> None:
        if self.is_image and self._loader is not None:
            from relavium_desktop.ui.tasks import spawn

            spawn(self._open())

    async def _open(self) -> None:
        assert self._loader is not None
        try:
            data = await self._loader(self.handle)
            image = await asyncio.to_thread(QImage.fromData, data)
        except Exception as exc:  # noqa: BLE001
            self._unavailable(error_text(exc))
            return
        if image.isNull():
            self._unavailable("it is not an image this app can show")
            return
        if self.viewer is not None:
            self.viewer.close()
        self.viewer = ImageViewer(self.name, image, self.window())
        self.viewer.open()

    def repaint_theme(self) -> None:
        if not self.loaded:
            self._show_icon()


class ThumbnailRow(QWidget):
    """The attachments of one message, in the order they were attached."""

    def __init__(self, items: Sequence[tuple[str, str, str, QImage | None]], loader: MediaLoader | None,
                 theme: Any = None) -> None:
        super().__init__()
        self.setObjectName("messageAttachments")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.thumbnails = [Thumbnail(h, m, n, loader, thumb=t, theme=theme) for h, m, n, t in items]
        for thumb in self.thumbnails:
            row.addWidget(thumb)
        row.addStretch(1)

    def repaint_theme(self) -> None:
        for thumb in self.thumbnails:
            thumb.repaint_theme()
