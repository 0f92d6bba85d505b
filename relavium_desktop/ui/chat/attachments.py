"""The pending attachments under the composer: what the next message will carry.

A pasted image or a dropped file is published to the media store in a
worker thread (encoding a screenshot and hashing it must not stall the
window), and shown here as a chip -- thumbnail, name, size and a remove
button -- until the message is sent.  What cannot be sent stays visible
with the reason (its size and the limit, a type that cannot be attached,
a model that cannot see it) and Send says why it waits: nothing the user
attached is ever dropped silently.  The limits and the model rule are the
engine's (``engine/agent/chat.py``); this module only shows them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relavium_desktop.ui.chat import look
from relavium_desktop.ui.error_text import error_text
from relavium_desktop.ui.qt import (
    QBuffer,
    QByteArray,
    QFrame,
    QHBoxLayout,
    QImage,
    QIODevice,
    QLabel,
    QPixmap,
    Qt,
    QToolButton,
    QVBoxLayout,
    QWidget,
    Signal,
)

if TYPE_CHECKING:
    import asyncio

THUMB_PX = 48
TRANSCRIPT_THUMB_PX = 120  # the chip shows it at THUMB_PX; the sent message at full thumbnail size
PASTED_NAME = "Pasted image"
# What a dropped file is taken to be before its bytes are read (the store trusts
# only the bytes' own signature afterwards, so a misnamed file is refused then).
_SUFFIX_MIME = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
                ".webp": "image/webp", ".pdf": "application/pdf"}
ATTACHABLE_SUFFIXES = frozenset(_SUFFIX_MIME)


@dataclass(slots=True)
class Attachment:
    """One pending attachment: published (``handle``) or refused (``problem``), or still being added."""

    name: str
    size: int = 0
    mime: str = ""
    handle: str | None = None
    problem: str | None = None
    thumb: QImage | None = field(default=None, repr=False)

    @property
    def ready(self) -> bool:
        return self.handle is not None and self.problem is None


def png_bytes(image: QImage) -> bytes:
    """``image`` encoded as PNG (QImage is reentrant: safe in a worker thread)."""
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")  # type: ignore[call-overload]  # the stubs say bytes; PySide6 takes str
    buffer.close()
    return bytes(data.data())


def thumbnail_of(data: bytes, px: int = THUMB_PX) -> QImage | None:
    """A small copy of an image's bytes for a chip or the transcript, or None when it does not decode."""
    image = QImage.fromData(data)
    if image.isNull():
        return None
    return image.scaled(px * 2, px, Qt.AspectRatioMode.KeepAspectRatio,
                        Qt.TransformationMode.SmoothTransformation)


def _prepare(media: Any, item: Attachment, read: Callable[[], bytes]) -> Attachment:
    """Check, read and publish one attachment (worker thread): a filled-in copy of ``item``.

    A copy, so the widgets only ever see an attachment change on the GUI thread.
    """
    from relavium_desktop.engine.agent.chat import attachment_problem

    out = Attachment(item.name, item.size, item.mime)
    out.problem = attachment_problem(out.mime, out.size)
    if out.problem is not None:
        return out  # refused before a byte is read or stored
    data = read()
    out.size = len(data)
    out.problem = attachment_problem(out.mime, out.size)
    if out.problem is not None:
        return out
    described = media.publish_bytes(data, out.mime)
    out.mime = str(described.get("mimeType", out.mime))
    out.problem = attachment_problem(out.mime, out.size)
    if out.problem is None:
        out.handle = str(described["handle"])
        out.thumb = thumbnail_of(data, TRANSCRIPT_THUMB_PX) if out.mime.startswith("image/") else None
    return out


class AttachmentChip(QFrame):
    """One attachment in the strip: thumbnail, name and size (or why it cannot be sent), remove."""

    remove_requested = Signal()

    def __init__(self, item: Attachment, theme: Any = None) -> None:
        super().__init__()
        self.setObjectName("attachmentChip")
        self.item = item
        self._theme = theme
        look.surface(self, "card")
        self.thumb = QLabel()
        self.thumb.setObjectName("attachmentThumb")
        self.thumb.setFixedHeight(THUMB_PX)
        self.title = QLabel(item.name)
        self.title.setObjectName("attachmentName")
        self.detail = QLabel()
        self.detail.setObjectName("attachmentDetail")
        self.detail.setWordWrap(True)
        self.remove_button = QToolButton()
        self.remove_button.setObjectName("removeAttachment")
        self.remove_button.setAutoRaise(True)
        self.remove_button.setToolTip(f"Remove {item.name}")
        self.remove_button.setIcon(look.themed_icon("x", theme, "muted"))
        self.remove_button.clicked.connect(self.remove_requested.emit)
        text = QVBoxLayout()
        text.setSpacing(0)
        text.addWidget(self.title)
        text.addWidget(self.detail)
        row = QHBoxLayout(self)
        row.setContentsMargins(4, 2, 2, 2)
        row.addWidget(self.thumb)
        row.addLayout(text)
        row.addWidget(self.remove_button, 0, Qt.AlignmentFlag.AlignTop)
        self.refresh()

    def refresh(self) -> None:
        from relavium_desktop.engine.agent.chat import size_text

        item = self.item
        if item.thumb is not None:
            self.thumb.setPixmap(QPixmap.fromImage(item.thumb).scaledToHeight(
                THUMB_PX, Qt.TransformationMode.SmoothTransformation))
        else:
            self.thumb.setPixmap(look.themed_icon("image" if item.mime.startswith("image/") else "file",
                                                  self._theme, "muted").pixmap(THUMB_PX // 2, THUMB_PX // 2))
        if item.problem is not None:
            self.detail.setText(f"Cannot be sent: {item.problem}")
            look.tone(self.detail, "danger")
        elif item.handle is None:
            self.detail.setText("Adding…")
            look.tone(self.detail, "muted")
        else:
            self.detail.setText(size_text(item.size))
            look.tone(self.detail, "muted")

    def repaint_theme(self) -> None:
        self.remove_button.setIcon(look.themed_icon("x", self._theme, "muted"))
        self.refresh()


class AttachmentStrip(QWidget):
    """The chips of the next message, and a note when the chosen model cannot take them.

    ``media`` gives the media host to publish to (built on first use);
    ``route`` gives the chosen ``(model, accepted kinds)`` -- the provider's
    rule, asked again whenever the chips or the model change.
    """

    changed = Signal()

    def __init__(self, media: Callable[[], Any], route: Callable[[], tuple[str, frozenset[str]]],
                 theme: Any = None) -> None:
        super().__init__()
        self.setObjectName("attachmentStrip")
        self._media = media
        self._route = route
        self._theme = theme
        self.items: list[Attachment] = []
        self.chips: list[AttachmentChip] = []
        self.tasks: list[asyncio.Task[Any]] = []
        self._row = QHBoxLayout()
        self._row.setContentsMargins(0, 0, 0, 0)
        self._row.addStretch(1)
        self.note = QLabel()
        self.note.setObjectName("attachmentNote")
        self.note.setWordWrap(True)
        look.tone(self.note, "danger")
        self.note.hide()
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addLayout(self._row)
        column.addWidget(self.note)
        self.setVisible(False)
        changed = getattr(theme, "changed", None)
        if changed is not None:
            changed.connect(self._repaint_theme)

    # -- adding ----------------------------------------------------------------------

    def add_image(self, image: QImage, name: str = PASTED_NAME) -> Attachment:
        """A pasted image: encoded as PNG and published off the UI thread."""
        copy = image.copy()  # the clipboard's image may change under the worker
        item = Attachment(name, size=0, mime="image/png")
        self._start(item, lambda: png_bytes(copy), sized=False)
        return item

    def add_files(self, paths: list[str]) -> list[Attachment]:
        """Dropped files: images and PDF are published, anything else is shown refused."""
        added = []
        for raw in paths:
            path = Path(raw)
            item = Attachment(path.name, mime=_SUFFIX_MIME.get(path.suffix.lower(), "application/octet-stream"))
            self._start(item, path.read_bytes, sized=True, path=path)
            added.append(item)
        return added

    def _start(self, item: Attachment, read: Callable[[], bytes], *, sized: bool, path: Path | None = None) -> None:
        from relavium_desktop.ui.tasks import spawn

        self.items.append(item)
        chip = AttachmentChip(item, self._theme)
        chip.remove_requested.connect(lambda: self.remove(item))
        self.chips.append(chip)
        self._row.insertWidget(self._row.count() - 1, chip)
        self.setVisible(True)
        self.tasks.append(spawn(self._publish(item, chip, read, path if sized else None)))
        self._changed()

    async def _publish(self, item: Attachment, chip: AttachmentChip, read: Callable[[], bytes],
                       path: Path | None) -> None:
        import asyncio

        try:
            media = self._media()
            probe = Attachment(item.name, item.size, item.mime)
            if path is not None:
                probe.size = (await asyncio.to_thread(path.stat)).st_size
            else:
                data = await asyncio.to_thread(read)
                probe.size = len(data)
                read = lambda: data  # noqa: E731 - encoded once, published as it is
            done = await asyncio.to_thread(_prepare, media, probe, read)
            item.size, item.mime, item.thumb, item.problem = done.size, done.mime, done.thumb, done.problem
            item.handle = done.handle
        except Exception as exc:  # noqa: BLE001 - shown on the chip: the user decides what to do
            item.problem = f"it could not be added ({type(exc).__name__}: {error_text(exc, limit=200)})"
        if item in self.items:
            chip.refresh()
            self._changed()

    # -- state -------------------------------------------------------------------------

    def remove(self, item: Attachment) -> None:
        if item not in self.items:
            return
        index = self.items.index(item)
        self.items.pop(index)
        chip = self.chips.pop(index)
        self._row.removeWidget(chip)
        chip.deleteLater()
        self.setVisible(bool(self.items))
        self._changed()

    def clear(self) -> None:
        for item in list(self.items):
            self.remove(item)

    def take(self) -> list[Attachment]:
        """The ready attachments, leaving the strip empty (the message is being sent)."""
        taken = [i for i in self.items if i.ready]
        self.clear()
        return taken

    def model_problem(self) -> str | None:
        from relavium_desktop.engine.agent.chat import cannot_take
        from relavium_desktop.engine.tools.media_turn import media_kind

        kinds = {media_kind(i.mime) for i in self.items if i.ready}
        if not kinds:
            return None
        model, accepts = self._route()
        return cannot_take(model, kinds, accepts)

    def problem(self) -> str | None:
        """Why Send has to wait, or None: a refused attachment, one still being added, the model."""
        for item in self.items:
            if item.problem is not None:
                return f"{item.name} cannot be sent: {item.problem}. Remove it to send the message."
        adding = [i.name for i in self.items if i.handle is None]
        if adding:
            return f"Still adding {', '.join(adding)}…"
        return self.model_problem()

    def refresh_note(self) -> None:
        """Say now (not on Send) when the chosen model cannot take what is attached."""
        problem = self.model_problem()
        self.note.setText(problem or "")
        self.note.setVisible(problem is not None)

    def _changed(self) -> None:
        self.refresh_note()
        self.changed.emit()

    def _repaint_theme(self) -> None:
        for chip in self.chips:
            chip.repaint_theme()
