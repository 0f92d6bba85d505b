"""Crash safety and the temporary sweep, with real producer processes killed by SIGKILL."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from relavium_desktop.host.media import MediaNotFoundError, MediaStore
from tests.host.media.producer import expected_digest

REPO = Path(__file__).resolve().parents[3]


def _producer(root: Path, mode: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.host.media.producer", str(root), mode],
        cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
    return proc


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def _temps(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.name.startswith("media-"))


def test_sigkill_at_random_points_leaves_nothing_or_a_complete_object(tmp_path: Path) -> None:
    root = tmp_path / "media"
    store = MediaStore(root)
    want = expected_digest()
    rng = random.Random(1717)
    killed_pids: set[int] = set()
    for _ in range(30):
        proc = _producer(root, "slow")
        try:
            proc.wait(timeout=rng.uniform(0.0, 0.35))  # usually times out: the kill lands mid-stream
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            killed_pids.add(proc.pid)
        proc.wait()
        proc.stdout.close()  # type: ignore[union-attr]
        proc.stdin.close()  # type: ignore[union-attr]
        try:
            assert store.open_verified(want)  # present means complete and verified
            assert store.list() == [want]
        except MediaNotFoundError:
            assert store.list() == []
        store.delete(want)  # the next producer starts from nothing again
    leftovers = _temps(root)
    assert leftovers, "no kill landed mid-publication; the test proved nothing"
    assert {int(name.split(".")[1]) for name in leftovers} <= killed_pids
    # Fresh temps are kept by the default 24 h floor even though their producers are dead.
    assert set(store.sweep_temporaries().reasons.values()) == {"too_young"}
    report = store.sweep_temporaries(min_age_s=0)
    assert sorted(report.removed) == leftovers and report.retained == []
    assert _temps(root) == []


def test_a_live_producers_temp_is_never_removed(tmp_path: Path) -> None:
    root = tmp_path / "media"
    store = MediaStore(root)
    proc = _producer(root, "stdin")
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write("go\n")
        proc.stdin.flush()
        assert proc.stdout.readline() == "chunk 0\n"
        [temp] = _temps(root)
        assert temp.startswith(f"media-v1.{proc.pid}.")
        report = store.sweep_temporaries(now=time.time() + 10 * 24 * 3600, min_age_s=0)
        assert report.removed == [] and report.reasons == {temp: "owner_live"}
        for _ in range(47):
            proc.stdin.write("more\n")
        proc.stdin.close()
        digest = proc.stdout.read().splitlines()[-1]
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert digest == expected_digest()
    assert store.open_verified(digest) and _temps(root) == []


def _plant(root: Path, name: str, *, mtime: float | None = None) -> Path:
    path = root / name
    path.write_bytes(b"partial")
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def test_sweep_keeps_what_it_cannot_prove_abandoned(tmp_path: Path) -> None:
    store = MediaStore(tmp_path / "media")
    store.publish_bytes(b"an object")  # creates the root
    root = store.root
    dead = _dead_pid()
    now = time.time()
    old = now - 2 * 24 * 3600
    abandoned = _plant(root, f"media-v1.{dead}.{uuid.uuid4()}.tmp", mtime=old).name
    young = _plant(root, f"media-v1.{dead}.{uuid.uuid4()}.tmp").name
    future = _plant(root, f"media-v1.{dead}.{uuid.uuid4()}.tmp", mtime=now + 3600).name
    mine = _plant(root, f"media-v1.{os.getpid()}.{uuid.uuid4()}.tmp", mtime=old).name
    malformed = [_plant(root, name, mtime=old).name for name in (
        f"media-v1.{dead}.not-a-uuid.tmp", f"media-v1.0{dead}.{uuid.uuid4()}.tmp",
        f"media-v1.{dead}.{uuid.uuid1()}.tmp", "media-maintenance-x", f"media-v2.{dead}.{uuid.uuid4()}.tmp")]
    target = _plant(tmp_path, "target", mtime=old)
    symlink = f"media-v1.{dead}.{uuid.uuid4()}.tmp"
    (root / symlink).symlink_to(target)
    hardlinked = f"media-v1.{dead}.{uuid.uuid4()}.tmp"
    os.link(_plant(tmp_path, "other", mtime=old), root / hardlinked)
    unrelated = _plant(root, "notes.txt", mtime=old).name

    report = store.sweep_temporaries(now=now)
    assert report.removed == [abandoned]
    assert report.reasons == {
        young: "too_young", future: "future_timestamp", mine: "owner_live",
        **dict.fromkeys(malformed, "malformed"), symlink: "unsafe_entry", hardlinked: "unsafe_entry",
    }
    assert not (root / abandoned).exists() and (root / unrelated).exists() and target.exists()
    assert all((root / name).exists() or (root / name).is_symlink() for name in report.retained)


def test_a_failing_stream_leaves_no_object_and_no_temp(tmp_path: Path) -> None:
    """A publish that fails mid-stream (the stream raises) leaves no object and no temp."""
    store = MediaStore(tmp_path / "media")

    def broken() -> object:
        yield b"first part"
        raise OSError("network dropped")

    with pytest.raises(OSError, match="network dropped"):
        store.publish_stream(broken(), "image/png")  # type: ignore[arg-type]
    assert store.list() == [] and _temps(store.root) == []
