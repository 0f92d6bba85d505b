"""The file host keeps what a write replaces: only for writes that succeed, with exact line counts.

Real parts: the descriptor-walk file host on a temp tree, the real media store;
the sink is an in-test list (the store is tested in tests/store/).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from relavium_desktop.engine.errors import ToolFailedError
from relavium_desktop.engine.tools.call_origin import CallOrigin, calling
from relavium_desktop.host.fs import FsHost, PathPolicy
from relavium_desktop.host.fs.checkpoints import (
    Checkpointer,
    CheckpointRecord,
    diff_counts,
    restore_path,
    scope_of,
)
from relavium_desktop.host.media import MediaStore
from tests.host.fs.conftest import Tree


class ListSink:
    def __init__(self, *, fail: bool = False) -> None:
        self.records: list[CheckpointRecord] = []
        self.fail = fail

    def record(self, record: CheckpointRecord) -> None:
        if self.fail:
            raise OSError(28, "No space left on device")
        self.records.append(record)


def _host(tree: Tree, sink: ListSink) -> tuple[FsHost, MediaStore]:
    media = MediaStore(tree.base / "media")
    policy = PathPolicy.create(tree.ws)
    return FsHost(policy, checkpoints=Checkpointer(media, sink, str(tree.ws))), media


ORIGIN = CallOrigin("chat-s1", "chat", "write_file", "call_7")


@pytest.mark.parametrize(
    ("old", "new", "counts"),
    [
        (b"a\nb\nc\n", b"a\nB\nc\n", (1, 1)),
        (b"", b"x\ny\n", (2, 0)),
        (b"a\nb\n", b"", (0, 2)),
        (b"a\nb\nc\nd\n", b"a\nd\n", (0, 2)),
        (b"same\n", b"same\n", (0, 0)),
        (b"no newline", b"no newline\n", (1, 1)),
        (b"1\n2\n3\n4\n5\n", b"0\n1\n2\n4\n5\n6\n", (2, 1)),
    ],
)
def test_line_counts_are_a_line_diff(old: bytes, new: bytes, counts: tuple[int, int]) -> None:
    assert diff_counts(old, new) == counts


def test_scope_of_names_chat_tool_and_run() -> None:
    assert scope_of("chat-abc") == ("chat", "abc")
    assert scope_of("tool-123") == ("tool", "tool-123")
    assert scope_of("run_9") == ("run", "run_9")


async def test_a_replace_keeps_the_old_bytes_and_records_after_it_succeeded(tree: Tree) -> None:
    sink = ListSink()
    fs, media = _host(tree, sink)
    with calling(ORIGIN):
        result = await fs.write_file("hello.txt", "hi\nthere\n", append=False, create_parents=False)
    assert (result["linesAdded"], result["linesRemoved"]) == (2, 1)
    [record] = sink.records
    assert result["checkpointId"] == record.id
    assert (record.scope, record.scope_id, record.tool_call_id, record.kind) == (
        "chat",
        "s1",
        "call_7",
        "write",
    )
    assert record.path == str((tree.ws / "hello.txt").resolve()) and record.project == str(tree.ws)
    assert record.before_sha256 == hashlib.sha256(b"hello\n").hexdigest() and record.before_kept
    assert record.after_sha256 == hashlib.sha256(b"hi\nthere\n").hexdigest()
    assert media.open_verified(record.before_sha256) == b"hello\n"


async def test_an_append_records_the_whole_result_and_a_creation_no_before(tree: Tree) -> None:
    sink = ListSink()
    fs, _media = _host(tree, sink)
    with calling(ORIGIN):
        appended = await fs.write_file("hello.txt", "more\n", append=True, create_parents=False)
        created = await fs.write_file("new/file.txt", "x", append=False, create_parents=True)
    assert (appended["linesAdded"], appended["linesRemoved"]) == (1, 0)
    assert (created["linesAdded"], created["linesRemoved"]) == (1, 0)
    first, second = sink.records
    assert first.after_sha256 == hashlib.sha256(b"hello\nmore\n").hexdigest()
    assert second.before_sha256 is None and not second.before_kept


async def test_a_failed_write_records_nothing(tree: Tree) -> None:
    sink = ListSink()
    fs, _media = _host(tree, sink)
    with calling(ORIGIN), pytest.raises(ToolFailedError):
        await fs.write_file("sub", "x", append=False, create_parents=False)
    assert sink.records == []


async def test_a_sink_that_fails_costs_the_undo_not_the_write(tree: Tree) -> None:
    fs, _media = _host(tree, ListSink(fail=True))
    with calling(ORIGIN):
        result = await fs.write_file("hello.txt", "new\n", append=False, create_parents=False)
    assert "checkpointId" not in result and (tree.ws / "hello.txt").read_text() == "new\n"


async def test_a_write_outside_a_dispatch_has_no_origin_and_no_record(tree: Tree) -> None:
    sink = ListSink()
    fs, _media = _host(tree, sink)
    result = await fs.write_file("hello.txt", "new\n", append=False, create_parents=False)
    assert sink.records == [] and result["linesAdded"] == 1


def test_restore_path_refuses_a_conflict_and_keeps_before_replacing(tree: Tree) -> None:
    policy = PathPolicy.create(tree.ws)
    target = tree.ws / "hello.txt"
    seen: list[bytes | None] = []
    with pytest.raises(ToolFailedError, match="changed since"):
        restore_path(
            policy,
            str(target),
            b"old\n",
            expect="0" * 64,
            check=True,
            keep=lambda before, _path: seen.append(before.data),
        )
    assert target.read_text() == "hello\n" and seen == []
    restore_path(
        policy,
        str(target),
        b"old\n",
        expect=hashlib.sha256(b"hello\n").hexdigest(),
        check=True,
        keep=lambda before, _path: seen.append(before.data),
    )
    assert target.read_bytes() == b"old\n" and seen == [b"hello\n"]
    restore_path(policy, str(target), None, expect=None, check=False, keep=lambda *_: None)
    assert not target.exists()


def test_restore_path_keeps_the_old_content_when_stopped_before_the_rename(tree: Tree) -> None:
    policy = PathPolicy.create(tree.ws)
    target = tree.ws / "hello.txt"

    def stop() -> None:
        raise RuntimeError("stopped between the temp write and the rename")

    with pytest.raises(RuntimeError):
        restore_path(
            policy, str(target), b"new\n", expect=None, check=False, keep=lambda *_: None, before_rename=stop
        )
    assert target.read_text() == "hello\n"
    assert not [p for p in Path(tree.ws).iterdir() if p.name.endswith(".relavium-tmp")]
