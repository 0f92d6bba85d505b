"""Spill files are masked before they stay on disk: text spills when written, streams when closed."""

from __future__ import annotations

import asyncio
from pathlib import Path

from relavium_desktop.host.output_store import FileOutputStore

KEY = "sk-proj-Hy7Gt6Fr5De4Sw3Aq2Zx1Cv0Bn9Mm8Ll7"


def _no_piece(data: bytes) -> bool:
    return all(KEY[i:i + 8].encode() not in data for i in range(len(KEY) - 7))


def test_a_text_spill_is_written_masked(tmp_path: Path) -> None:
    store = FileOutputStore(tmp_path / "runs")
    info = asyncio.run(store.spill("run-1", "read_file", f"line one {KEY}\n" * 3))
    data = Path(info.path).read_bytes()
    assert data == b"line one ***\n" * 3 and _no_piece(data)


def test_a_streamed_spill_is_masked_when_closed_even_a_key_cut_between_chunks(tmp_path: Path) -> None:
    store = FileOutputStore(tmp_path / "runs")
    path, fh = store.open_stream("run-1", "cmd-stdout")
    with fh:
        fh.write(b"\xff\xfe raw bytes then " + KEY[:15].encode())
        fh.write(KEY[15:].encode() + b" tail\n" + b"x" * 10_000)
    data = path.read_bytes()
    assert data.startswith(b"\xff\xfe raw bytes then *** tail\n") and _no_piece(data)  # other bytes untouched
    assert len(data) == len(b"\xff\xfe raw bytes then *** tail\n") + 10_000
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left


def test_a_spill_without_credentials_is_left_as_written(tmp_path: Path) -> None:
    store = FileOutputStore(tmp_path / "runs")
    path, fh = store.open_stream("run-1", "cmd-stdout")
    fh.write(b"nothing secret here\n")
    fh.close()
    fh.close()  # closing twice is harmless
    assert path.read_bytes() == b"nothing secret here\n"
