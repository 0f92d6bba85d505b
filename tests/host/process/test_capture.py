"""Bounded capture: head + tail in memory, the full stream spilled as it arrives."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from relavium_desktop.engine.host import SpawnOptions
from relavium_desktop.host.process import ProcessHost, capture
from relavium_desktop.host.process.capture import StreamCapture

LINE = b"0123456789abcdefghijklmnopqrstuvwxyz\n"


def expected(total: int) -> bytes:
    return (LINE * (total // len(LINE) + 1))[:total]


def yes_cmd(total: int, fd: int = 1) -> list[str]:
    redirect = " >&2" if fd == 2 else ""
    return ["-c", f"yes {LINE[:-1].decode()} | head -c {total}{redirect}"]


async def test_small_output_is_returned_whole_without_spill(host: ProcessHost, relavium_home: Path) -> None:
    result = await host.spawn("sh", yes_cmd(1000), {}, SpawnOptions(run_id="r1", capture_ceiling=1000))
    assert result["stdout"].encode() == expected(1000)
    assert "stdoutSpill" not in result
    assert not (relavium_home / "runs" / "r1").exists() or not any((relavium_home / "runs" / "r1").iterdir())


async def test_large_output_keeps_head_and_tail_and_spills_every_byte(host: ProcessHost) -> None:
    total, ceiling = 5_000_003, 4096
    result = await host.spawn("sh", yes_cmd(total), {}, SpawnOptions(run_id="r1", capture_ceiling=ceiling))
    data = expected(total)
    spill = result["stdoutSpill"]
    assert spill["bytes"] == total
    assert hashlib.sha256(Path(spill["path"]).read_bytes()).digest() == hashlib.sha256(data).digest()
    text = result["stdout"]
    head, _, rest = text.partition("\n[... ")
    marker, _, tail = rest.partition(" ...]\n")
    assert head.encode() == data[: ceiling // 2]
    assert tail.encode() == data[-(ceiling // 2) :]
    assert f"{total - ceiling:,} bytes of stdout omitted" in marker
    assert "stderrSpill" not in result and result["stderr"] == ""


async def test_stderr_spills_on_its_own(host: ProcessHost) -> None:
    result = await host.spawn("sh", yes_cmd(300_000, fd=2), {}, SpawnOptions(run_id="r1", capture_ceiling=2048))
    assert result["stderrSpill"]["bytes"] == 300_000
    assert Path(result["stderrSpill"]["path"]).read_bytes() == expected(300_000)
    assert "stdoutSpill" not in result and result["stdout"] == ""


async def test_back_pressure_pauses_the_pipe_and_loses_nothing(
    host: ProcessHost, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Tiny water marks force the pause/resume path on every few reads.
    monkeypatch.setattr(capture, "HIGH_WATER", 64 * 1024)
    monkeypatch.setattr(capture, "LOW_WATER", 16 * 1024)
    total = 20_000_000
    result = await host.spawn("sh", yes_cmd(total), {}, SpawnOptions(run_id="r1", capture_ceiling=1024))
    spill = Path(result["stdoutSpill"]["path"])
    assert spill.stat().st_size == total
    assert hashlib.sha256(spill.read_bytes()).digest() == hashlib.sha256(expected(total)).digest()


def test_utf8_cut_at_head_and_tail_edges_decodes_cleanly(tmp_path: Path) -> None:
    # Feed "é" (2 bytes) so the head/tail edges fall inside a character.
    opened: list[Path] = []

    def opener() -> tuple[Path, object]:
        path = tmp_path / f"spill{len(opened)}"
        opened.append(path)
        return path, path.open("wb")

    async def run() -> str:
        cap = StreamCapture(11, opener, lambda paused: None)  # type: ignore[arg-type]
        data = "é".encode() * 50
        for i in range(0, len(data), 7):
            cap.feed(data[i : i + 7])
        await cap.finish()
        return cap.text("stdout")

    import asyncio

    text = asyncio.run(run())
    head, _, rest = text.partition("\n[... ")
    tail = rest.partition(" ...]\n")[2]
    assert "\ufffd" not in head + tail
    assert set(head) == {"é"} and set(tail) == {"é"}
    assert opened[0].read_bytes() == "é".encode() * 50
