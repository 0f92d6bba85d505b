"""read_file / write_file behaviour a user sees: text, binary, UTF-8, globs, atomic writes."""

from __future__ import annotations

import os
from pathlib import Path

from tests.helpers import dispatch
from tests.host.fs.conftest import Tree


async def test_read_text_shape(tree: Tree) -> None:
    (tree.ws / "data.json").write_text('{"é": 1}')
    out = await dispatch("read_file", {"path": "data.json"}, host=tree.host())
    assert out.ok
    assert out.result["content"] == '{"é": 1}'
    assert out.result["mimeType"] == "application/json"
    assert out.result["sizeBytes"] == len('{"é": 1}'.encode())
    assert out.result["path"] == "data.json"
    assert out.result["lastModified"].endswith("Z")


async def test_binary_fails_closed_and_bad_utf8_is_a_clear_error(tree: Tree) -> None:
    (tree.ws / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    (tree.ws / "nul.bin").write_bytes(b"abc\x00def")
    (tree.ws / "latin1.txt").write_bytes("café".encode("latin-1"))
    host = tree.host()
    for name in ("img.png", "nul.bin"):
        out = await dispatch("read_file", {"path": name}, host=host)
        assert out.error is not None and out.error.code == "tool_unavailable"
        assert "media store" in out.error.message
    out = await dispatch("read_file", {"path": "latin1.txt"}, host=host)
    assert out.error is not None and out.error.code == "tool_failed"
    assert "not valid UTF-8" in out.error.message and "offset 3" in out.error.message


async def test_fifo_and_folder_are_refused_without_blocking(tree: Tree) -> None:
    os.mkfifo(tree.ws / "pipe")
    host = tree.host()
    out = await dispatch("read_file", {"path": "pipe"}, host=host)
    assert out.error is not None and "regular file" in out.error.message
    out = await dispatch("read_file", {"path": "sub"}, host=host)
    assert out.error is not None and "folder" in out.error.message


async def test_glob_read_returns_every_match_with_content(tree: Tree) -> None:
    host = tree.host()
    out = await dispatch("read_file", {"path": "sub/**/*"}, host=host)
    assert out.ok
    files = out.result["files"]
    assert [f["path"] for f in files] == ["sub/deep/x.py", "sub/notes.md"]
    assert files[1]["content"] == "# notes\n"
    assert set(files[0]) == {"path", "content", "mimeType", "sizeBytes", "lastModified"}
    out = await dispatch("read_file", {"path": "?ello.tx?"}, host=host)
    assert [f["content"] for f in out.result["files"]] == ["hello\n"]
    # A literal path through the glob reader is the parent admitted, the file read.
    fs = tree.fs()
    assert [f["path"] for f in await fs.read_glob("sub/notes.md")] == ["sub/notes.md"]
    assert await fs.read_glob("nothing-*") == []


async def test_write_replace_append_and_create_parents(tree: Tree) -> None:
    host = tree.host()
    target = tree.ws / "hello.txt"
    os.chmod(target, 0o600)
    out = await dispatch("write_file", {"path": "hello.txt", "content": "new ✓\n"}, host=host)
    # The old content was one line ("hello"): the write's result counts the lines it replaced.
    assert out.ok and out.result == {
        "path": "hello.txt", "bytesWritten": len("new ✓\n".encode()), "linesAdded": 1, "linesRemoved": 1,
    }
    assert target.read_text() == "new ✓\n"
    assert target.stat().st_mode & 0o777 == 0o600
    out = await dispatch("write_file", {"path": "hello.txt", "content": "more\n", "append": True}, host=host)
    assert out.ok and target.read_text() == "new ✓\nmore\n"
    out = await dispatch("write_file", {"path": "n1/n2/f.txt", "content": "x"}, host=host)
    assert out.error is not None and out.error.code == "tool_failed"
    assert not (tree.ws / "n1").exists()
    out = await dispatch("write_file", {"path": "n1/n2/f.txt", "content": "x", "createParents": True}, host=host)
    assert out.ok and (tree.ws / "n1" / "n2" / "f.txt").read_text() == "x"
    out = await dispatch("write_file", {"path": "sub", "content": "x"}, host=host)
    assert out.error is not None and "folder" in out.error.message
    assert not [p for p in Path(tree.ws).rglob("*.relavium-tmp")]
