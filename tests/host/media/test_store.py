"""The media store on real files: publish, verified read, delete, gc, and what it refuses."""

from __future__ import annotations

import hashlib
import os
import struct
from pathlib import Path

import pytest

from relavium_desktop.host.media import (
    MEDIA_OBJECT_CEILING,
    MediaCorruptError,
    MediaNotFoundError,
    MediaStore,
    MediaTooLargeError,
    MediaUnsafeError,
    format_handle,
    parse_handle,
)
from relavium_desktop.host.media.errors import InvalidHandleError


@pytest.fixture
def store(tmp_path: Path) -> MediaStore:
    return MediaStore(tmp_path / "media")


def _object_path(store: MediaStore, sha: str) -> Path:
    return store.root / "objects" / sha[:2] / sha


def test_publish_read_round_trip_on_disk(store: MediaStore) -> None:
    data = os.urandom(300_000)
    ref = store.publish_bytes(data, "application/octet-stream")
    assert ref.sha256 == hashlib.sha256(data).hexdigest() and ref.size == len(data)
    path = _object_path(store, ref.sha256)
    assert path.read_bytes() == data
    assert path.stat().st_mode & 0o777 == 0o600
    assert store.open_verified(ref.sha256) == data
    assert store.list() == [ref.sha256]
    assert store.stat(ref.sha256) == len(data)
    assert ref.handle == f"media://sha256-{ref.sha256}"
    # No temporary is left next to the objects after a successful publish.
    assert sorted(p.name for p in store.root.iterdir()) == ["objects"]


def test_same_bytes_publish_once(store: MediaStore, tmp_path: Path) -> None:
    data = b"the same picture" * 1000
    first = store.publish_bytes(data, "image/png")
    source = tmp_path / "copy.bin"
    source.write_bytes(data)
    inode = _object_path(store, first.sha256).stat().st_ino
    again = store.publish_file(source, "image/png")
    assert again == first
    assert store.list() == [first.sha256]
    assert _object_path(store, first.sha256).stat().st_ino == inode  # the winner was kept, not rewritten
    assert store.stats() == {"objects": 1, "bytes": len(data), "temps": 0, "corrupt": 0, "quarantined": 0}


def test_republishing_repairs_a_corrupt_object(store: MediaStore) -> None:
    data = b"x" * 5000
    ref = store.publish_bytes(data)
    path = _object_path(store, ref.sha256)
    path.write_bytes(b"y" + data[1:])
    with pytest.raises(MediaCorruptError):
        store.open_verified(ref.sha256)
    store.publish_bytes(data)
    assert store.open_verified(ref.sha256) == data


def test_flipped_byte_on_disk_is_refused(store: MediaStore) -> None:
    ref = store.publish_bytes(os.urandom(100_000))
    path = _object_path(store, ref.sha256)
    raw = bytearray(path.read_bytes())
    raw[54_321] ^= 0x01
    path.write_bytes(bytes(raw))
    with pytest.raises(MediaCorruptError) as info:
        store.open_verified(ref.sha256)
    assert "does not match" in str(info.value)


def test_hard_linked_object_is_refused(store: MediaStore, tmp_path: Path) -> None:
    ref = store.publish_bytes(b"linked" * 100)
    os.link(_object_path(store, ref.sha256), tmp_path / "elsewhere")
    with pytest.raises(MediaUnsafeError):
        store.open_verified(ref.sha256)
    with pytest.raises(MediaUnsafeError):
        store.delete(ref.sha256)
    assert (tmp_path / "elsewhere").exists()


def test_symlinked_object_is_refused(store: MediaStore, tmp_path: Path) -> None:
    data = b"outside the store" * 10
    ref = store.publish_bytes(data)
    outside = tmp_path / "outside.bin"
    outside.write_bytes(data)  # same bytes: only the symlink makes it wrong
    path = _object_path(store, ref.sha256)
    path.unlink()
    path.symlink_to(outside)
    with pytest.raises(MediaUnsafeError):
        store.open_verified(ref.sha256)
    assert store.list() == []


def test_symlinked_shard_directory_is_refused(store: MediaStore, tmp_path: Path) -> None:
    data = b"shard" * 100
    ref = store.publish_bytes(data)
    shard = store.root / "objects" / ref.sha256[:2]
    moved = tmp_path / "moved-shard"
    shard.rename(moved)
    shard.symlink_to(moved, target_is_directory=True)
    with pytest.raises(MediaUnsafeError):
        store.open_verified(ref.sha256)
    with pytest.raises(MediaUnsafeError):
        store.delete(ref.sha256)
    assert (moved / ref.sha256).read_bytes() == data


def test_oversize_publish_is_refused_and_leaves_nothing(store: MediaStore, tmp_path: Path) -> None:
    def stream() -> object:
        block = b"\0" * (1024 * 1024)
        for _ in range(25):
            yield block
        yield b"!"

    with pytest.raises(MediaTooLargeError) as info:
        store.publish_stream(stream(), "video/mp4")  # type: ignore[arg-type]
    assert str(MEDIA_OBJECT_CEILING) in str(info.value) and str(MEDIA_OBJECT_CEILING + 1) in str(info.value)
    assert store.stats() == {"objects": 0, "bytes": 0, "temps": 0, "corrupt": 0, "quarantined": 0}

    big = tmp_path / "big.bin"
    with open(big, "wb") as fh:
        fh.truncate(MEDIA_OBJECT_CEILING + 10)
    with pytest.raises(MediaTooLargeError):
        store.publish_file(big)
    exactly = store.publish_stream(iter([b"\0" * MEDIA_OBJECT_CEILING]), "application/octet-stream")
    assert exactly.size == MEDIA_OBJECT_CEILING


def test_oversize_object_already_on_disk_is_refused_on_read(store: MediaStore) -> None:
    ref = store.publish_bytes(b"small")
    with open(_object_path(store, ref.sha256), "r+b") as fh:
        fh.truncate(MEDIA_OBJECT_CEILING + 1)
    with pytest.raises(MediaTooLargeError):
        store.open_verified(ref.sha256)


def test_delete_is_idempotent_and_missing_reads_refuse(store: MediaStore) -> None:
    ref = store.publish_bytes(b"to be deleted")
    assert store.delete(ref.sha256) is True
    assert store.delete(ref.sha256) is False
    with pytest.raises(MediaNotFoundError):
        store.open_verified(ref.sha256)
    assert not store.exists(ref.sha256)


def test_reads_never_create_the_store(tmp_path: Path) -> None:
    store = MediaStore(tmp_path / "absent")
    assert store.list() == [] and store.stats() == {"objects": 0, "bytes": 0, "temps": 0, "corrupt": 0, "quarantined": 0}
    assert store.gc(set(), min_age_s=0) == {"removed": [], "kept": [], "quarantined": []}
    assert store.sweep_temporaries(min_age_s=0).to_json()["removed"] == []
    with pytest.raises(MediaNotFoundError):
        store.open_verified("0" * 64)
    assert not (tmp_path / "absent").exists()


def test_gc_removes_only_unreferenced_objects_past_the_grace_period(store: MediaStore) -> None:
    keep, drop1, drop2 = (store.publish_bytes(f"object {i}".encode()) for i in range(3))
    # Just published: the grace period keeps everything, referenced or not.
    assert store.gc({keep.sha256})["removed"] == []
    dry = store.gc({keep.sha256}, min_age_s=0, dry_run=True)
    assert sorted(dry["removed"]) == sorted([drop1.sha256, drop2.sha256]) and len(store.list()) == 3
    result = store.gc({keep.sha256}, min_age_s=0)
    assert sorted(result["removed"]) == sorted([drop1.sha256, drop2.sha256])
    assert result["kept"] == [keep.sha256] and store.list() == [keep.sha256]
    assert store.open_verified(keep.sha256) == b"object 0"


def test_handles_are_strict() -> None:
    sha = hashlib.sha256(b"h").hexdigest()
    assert parse_handle(format_handle(sha)) == sha
    for bad in (f"media://sha256-{sha.upper()}", f"media://sha256-{sha}0", f"media://sha256-{sha[:-1]}",
                f"media://sha512-{sha}", f"media://sha256-../{sha[3:]}", sha):
        with pytest.raises(InvalidHandleError):
            parse_handle(bad)
    with pytest.raises(InvalidHandleError):
        MediaStore(Path("/nonexistent")).open_verified("../../etc/passwd")


def _png(width: int, height: int) -> bytes:
    ihdr = struct.pack(">II", width, height) + b"\x08\x02\x00\x00\x00"
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr + b"\0\0\0\0" + b"\0" * 50


def _jpeg(width: int, height: int, exif: int) -> bytes:
    app1 = (b"\xff\xe1" + struct.pack(">H", exif + 2) + b"E" * exif) * 2  # two segments: skips span chunks
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    return b"\xff\xd8" + app1 + sof + b"\xff\xda" + b"\0" * 100 + b"\xff\xd9"


def _gif(width: int, height: int) -> bytes:
    return b"GIF89a" + struct.pack("<HH", width, height) + b"\0" * 30


def _webp_vp8x(width: int, height: int) -> bytes:
    body = b"VP8X" + struct.pack("<I", 10) + b"\0" * 4 + (width - 1).to_bytes(3, "little") + (
        height - 1).to_bytes(3, "little")
    return b"RIFF" + struct.pack("<I", len(body) + 4) + b"WEBP" + body + b"\0" * 20


def _webp_vp8(width: int, height: int) -> bytes:
    body = b"VP8 " + struct.pack("<I", 20) + b"\x10\x02\x00" + b"\x9d\x01\x2a" + struct.pack("<HH", width, height)
    return b"RIFF" + struct.pack("<I", len(body) + 4) + b"WEBP" + body + b"\0" * 20


def _webp_vp8l(width: int, height: int) -> bytes:
    bits = (width - 1) | ((height - 1) << 14)
    body = b"VP8L" + struct.pack("<I", 5) + b"\x2f" + struct.pack("<I", bits)
    return b"RIFF" + struct.pack("<I", len(body) + 4) + b"WEBP" + body + b"\0" * 20


@pytest.mark.parametrize("chunk", [1, 7, 4096])
def test_image_dimensions_are_read_while_streaming(store: MediaStore, chunk: int) -> None:
    cases = [(_png(640, 480), (640, 480)), (_jpeg(1920, 1080, 40_000), (1920, 1080)),
             (_gif(31, 17), (31, 17)), (_webp_vp8x(4000, 3000), (4000, 3000)), (_webp_vp8(320, 200), (320, 200)),
             (_webp_vp8l(1000, 16383), (1000, 16383)), (b"plain text" * 20, None),
             (b"\xff\xd8\xff\xd9", None), (_png(1, 1)[:20], None), (b"GIF89a\x05\x00\x07\x00", (5, 7))]
    for data, size in cases:
        ref = store.publish_stream((data[i:i + chunk] for i in range(0, len(data), chunk)), "image/any")
        assert ((ref.width, ref.height) if ref.width else None) == size
        assert store.open_verified(ref.sha256) == data
