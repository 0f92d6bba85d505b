"""Corrupt media objects are found, quarantined and never counted as normal (real files, real CLI)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from relavium_desktop.host.media import MediaCorruptError, MediaStore
from tests.helpers import run_cli


def _object(store: MediaStore, sha: str) -> Path:
    return store.root / "objects" / sha[:2] / sha


def _damaged_store(root: Path) -> tuple[MediaStore, str, str, str]:
    """A store with one intact, one garbled (a flipped byte) and one truncated object."""
    store = MediaStore(root)
    good = store.publish_bytes(b"an intact picture" * 100, "image/png")
    garbled = store.publish_bytes(b"a picture a bit will flip in" * 100, "image/png")
    truncated = store.publish_bytes(b"a picture cut short on disk" * 100, "image/png")
    path = _object(store, garbled.sha256)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))
    path = _object(store, truncated.sha256)
    with open(path, "r+b") as fh:
        fh.truncate(path.stat().st_size // 3)
    return store, good.sha256, garbled.sha256, truncated.sha256


def test_reads_refuse_a_garbled_and_a_truncated_object(tmp_path: Path) -> None:
    store, good, garbled, truncated = _damaged_store(tmp_path / "media")
    assert store.open_verified(good) == b"an intact picture" * 100
    for sha in (garbled, truncated):
        with pytest.raises(MediaCorruptError, match="does not match its digest"):
            store.open_verified(sha)


def test_stats_does_not_count_corrupt_objects_as_normal(tmp_path: Path) -> None:
    store, _good, _garbled, _truncated = _damaged_store(tmp_path / "media")
    stats = store.stats()
    assert stats["objects"] == 1 and stats["bytes"] == len(b"an intact picture" * 100)
    assert stats["corrupt"] == 2 and stats["quarantined"] == 0


def test_verify_quarantines_corrupt_objects_and_keeps_them(tmp_path: Path) -> None:
    store, good, garbled, truncated = _damaged_store(tmp_path / "media")
    garbled_bytes = _object(store, garbled).read_bytes()

    dry = store.verify(quarantine=False)
    assert sorted(dry.corrupt) == sorted([garbled, truncated]) and dry.moved == {}
    assert _object(store, garbled).exists()

    report = store.verify()
    assert report.intact == [good] and sorted(report.moved) == sorted([garbled, truncated])
    assert store.list() == [good]  # out of the store: nothing can hand them out any more
    kept = store.root / report.moved[garbled]
    assert kept.parent == store.root / "quarantine" and kept.read_bytes() == garbled_bytes  # kept as found
    assert store.stats() == {
        "objects": 1,
        "bytes": len(b"an intact picture" * 100),
        "temps": 0,
        "corrupt": 0,
        "quarantined": 2,
    }
    # Publishing the same bytes again lays down a good copy.
    store.publish_bytes(b"a picture cut short on disk" * 100, "image/png")
    assert store.open_verified(truncated) == b"a picture cut short on disk" * 100


def test_gc_quarantines_a_corrupt_object_even_when_referenced(tmp_path: Path) -> None:
    store, good, garbled, truncated = _damaged_store(tmp_path / "media")
    result = store.gc({good, garbled, truncated}, min_age_s=0)
    assert result["removed"] == [] and result["kept"] == [good]
    assert sorted(result["quarantined"]) == sorted([garbled, truncated])
    assert len(os.listdir(store.root / "quarantine")) == 2


def test_media_verify_cli_finds_reports_and_quarantines(cli_env: dict[str, str], relavium_home: Path) -> None:
    store, good, garbled, truncated = _damaged_store(relavium_home / "media")

    code, out, err = run_cli("media", "stats", env=cli_env)
    assert code == 0, err
    assert out.startswith("1 objects, 1700 bytes, 0 temporaries, 2 corrupt (not counted")

    code, doc, err = run_cli("media", "verify", "--dry-run", "--json", env=cli_env)
    assert code == 1 and doc["intact"] == 1 and len(doc["corrupt"]) == 2 and doc["dry_run"] is True
    assert sorted(store.list()) == sorted([good, garbled, truncated])  # dry run: nothing moved

    code, out, err = run_cli("media", "verify", env=cli_env)
    assert code == 1, err  # corruption was found: a script notices
    lines = out.splitlines()
    for sha in (garbled, truncated):
        assert any(
            line.startswith(f"corrupt {sha}: its bytes do not match its digest") and "quarantined to" in line
            for line in lines
        ), out
    assert lines[-1] == "1 intact, 2 corrupt"
    assert store.list() == [good]

    code, doc, err = run_cli("media", "stats", "--json", env=cli_env)
    assert code == 0, err
    assert doc == {"objects": 1, "bytes": 1700, "temps": 0, "corrupt": 0, "quarantined": 2}

    code, out, err = run_cli("media", "verify", env=cli_env)
    assert code == 0 and out.strip() == "1 intact, 0 corrupt"


def test_media_gc_cli_quarantines_corrupt_objects(cli_env: dict[str, str], relavium_home: Path) -> None:
    store, good, garbled, truncated = _damaged_store(relavium_home / "media")
    code, doc, err = run_cli("media", "gc", "--min-age", "0", "--json", env=cli_env)
    assert code == 0, err
    assert sorted(doc["quarantined"]) == sorted([garbled, truncated])
    assert doc["removed"] == [good]  # nothing refers to it; the corrupt two were quarantined, not deleted
    assert len(os.listdir(store.root / "quarantine")) == 2
