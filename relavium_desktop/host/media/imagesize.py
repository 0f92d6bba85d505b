"""Image width/height from PNG, GIF, WebP and JPEG headers, fed chunk by chunk.

Publication streams bytes and never holds an object in memory, so the
dimensions are read as the chunks pass: fixed-offset formats need only the
first 30 bytes; JPEG is walked segment by segment, skipping segment bodies
by count, so an EXIF block of any size costs no memory.  No Pillow: the
store must not decode untrusted images just to learn their size.
"""

from __future__ import annotations

_HEAD = 30  # enough for PNG's IHDR, GIF's screen descriptor and every WebP chunk header


class ImageSizeSniffer:
    """Feed every chunk in order; ``size`` is (width, height) or None when not an image we know."""

    def __init__(self) -> None:
        self._head = bytearray()
        self._kind: str | None = None  # None until decided; "" when not a known image
        self.size: tuple[int, int] | None = None
        # JPEG walker state: bytes still to skip, and the unparsed marker bytes.
        self._skip = 0
        self._jbuf = bytearray()

    def feed(self, chunk: bytes) -> None:
        if self._kind == "" or self.size is not None or not chunk:
            return
        if self._kind == "jpeg":
            self._feed_jpeg(chunk)
            return
        need = _HEAD - len(self._head)
        self._head += chunk[:need]
        if self._kind is None:
            self._kind = _kind_of(bytes(self._head))
            if self._kind == "jpeg":
                # The walker starts from byte 0: hand it what the head kept plus the rest.
                data = bytes(self._head) + chunk[need:]
                self._head.clear()
                self._feed_jpeg(data)
                return
        if self._kind and len(self._head) >= _HEAD:
            self.size = _fixed_size(self._kind, bytes(self._head))
            self._kind = self._kind if self.size else ""

    def finish(self) -> tuple[int, int] | None:
        """Call after the last chunk: a short PNG/GIF/WebP still has its header parsed."""
        if self.size is None and self._kind in ("png", "gif", "webp"):
            self.size = _fixed_size(self._kind, bytes(self._head))
        return self.size

    def _feed_jpeg(self, chunk: bytes) -> None:
        if self._skip:
            taken = min(self._skip, len(chunk))
            self._skip -= taken
            chunk = chunk[taken:]
        self._jbuf += chunk
        buf = self._jbuf
        while not self._skip and self.size is None and self._kind == "jpeg":
            if len(buf) < 2:
                return
            if buf[0] != 0xFF:
                self._kind = ""
                return
            marker = buf[1]
            if marker == 0xFF:  # fill byte
                del buf[0]
                continue
            if 0xD0 <= marker <= 0xD8 or marker == 0x01:  # standalone markers
                del buf[:2]
                continue
            if marker in (0xD9, 0xDA):  # end of image or start of scan before any frame header
                self._kind = ""
                return
            if len(buf) < 4:
                return
            length = int.from_bytes(buf[2:4], "big")
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                if len(buf) < 9:
                    return
                height = int.from_bytes(buf[5:7], "big")
                width = int.from_bytes(buf[7:9], "big")
                self.size = (width, height) if width and height else None
                self._kind = "jpeg" if self.size else ""
                return
            total = 2 + length
            if total <= len(buf):
                del buf[:total]
            else:
                self._skip = total - len(buf)
                buf.clear()


def _kind_of(head: bytes) -> str | None:
    """The format the first bytes announce; None while too few bytes have arrived to tell."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "gif"
    if head.startswith(b"\xff\xd8"):
        return "jpeg"
    if len(head) >= 12 and head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "webp"
    return "" if len(head) >= 12 else None


def _fixed_size(kind: str, head: bytes) -> tuple[int, int] | None:
    size: tuple[int, int] | None = None
    if kind == "png" and len(head) >= 24 and head[12:16] == b"IHDR":
        size = (int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big"))
    elif kind == "gif" and len(head) >= 10:
        size = (int.from_bytes(head[6:8], "little"), int.from_bytes(head[8:10], "little"))
    elif kind == "webp" and len(head) >= 30:
        fourcc = head[12:16]
        if fourcc == b"VP8 " and head[23:26] == b"\x9d\x01\x2a":
            size = (int.from_bytes(head[26:28], "little") & 0x3FFF, int.from_bytes(head[28:30], "little") & 0x3FFF)
        elif fourcc == b"VP8L" and head[20] == 0x2F:
            bits = int.from_bytes(head[21:25], "little")
            size = ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
        elif fourcc == b"VP8X":
            size = (int.from_bytes(head[24:27], "little") + 1, int.from_bytes(head[27:30], "little") + 1)
    if size is None or not size[0] or not size[1]:
        return None
    return size
