"""Undo at the application level: a real chat (scripted LLM server over HTTP) writes files, UndoService takes them back.

Real parts: history.db and the media store in a temp RELAVIUM_HOME, the real
chat service, registry and file host on a temp project; no mocks.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from relavium_desktop.application.app import Application
from relavium_desktop.application.chat import ChatService
from relavium_desktop.application.media import collect_garbage, media_store
from relavium_desktop.application.paths import AppPaths
from relavium_desktop.application.tools import surface_host, tool_registry
from relavium_desktop.application.undo import Retention, UndoService
from relavium_desktop.engine.agent.mode_ids import ChatMode
from relavium_desktop.engine.tools.tooldef import ToolCall, ToolDispatchContext
from tests.cli.llm_cli import KEY, write_providers
from tests.fixtures.llm_server import Reply, ScriptedCall, ScriptedLLMServer

ROUTE = "scripted-openai/gpt-4o-mini"


@pytest.fixture
def app(relavium_home: Path, llm_server: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch) -> Any:
    write_providers(relavium_home, llm_server.base_url)
    monkeypatch.setenv("RELAVIUM_TEST_KEY", KEY)
    application = Application(AppPaths(relavium_home))
    yield application
    application.close()


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def _write_call(path: str, content: str, call_id: str) -> Reply:
    args = json.dumps({"path": path, "content": content})
    return Reply(calls=(ScriptedCall("write_file", args, call_id=call_id),))


async def test_a_chat_turns_writes_are_checkpointed_with_the_message_and_tool_call(
    app: Application, ws: Path, llm_server: ScriptedLLMServer
) -> None:
    (ws / "notes.md").write_text("one\ntwo\nthree\n")
    chat = ChatService(app)
    conversation = await chat.open(project=ws, model=ROUTE)
    conversation.set_mode(ChatMode.AUTO)
    llm_server.script(_write_call("notes.md", "one\nTWO\n", "call_a"), Reply.say("Edited."))
    await conversation.send("edit the notes")
    llm_server.script(_write_call("todo.md", "buy milk\n", "call_b"), Reply.say("Created."))
    await conversation.send("and a todo")
    sid = conversation.session_id
    assert sid is not None
    await chat.aclose()

    undo = app.undo()
    every = undo.checkpoints(chat=sid)
    assert [(c.path.name, c.tool_call_id, c.existed) for c in every] == [
        ("notes.md", "call_a", True),
        ("todo.md", "call_b", False),
    ]
    first, second = every
    assert (first.lines_added, first.lines_removed) == (1, 2)
    assert first.scope == "chat" and first.scope_id == sid and first.project == ws.resolve()
    # The second turn's user message was stored after the first turn's messages.
    assert first.message_index is not None and second.message_index is not None
    assert second.message_index > first.message_index
    messages = app.sessions().messages(sid)
    second_user = next(i for i, m in enumerate(messages) if m.role == "user" and "todo" in m.text)
    assert [c.path.name for c in undo.checkpoints(chat=sid, since_message=second_user)] == ["todo.md"]
    assert [c.id for c in undo.checkpoints(tool_call="call_a")] == [first.id]

    # The card's diff shows the removed lines too, numbered.
    diff = undo.diff(first)
    removed = [(line.old_no, line.text) for line in diff.lines if line.kind == "removed"]
    added = [(line.new_no, line.text) for line in diff.lines if line.kind == "added"]
    assert removed == [(2, "two"), (3, "three")] and added == [(2, "TWO")]
    assert "-three" in diff.text

    # "Undo changes since this message" (the first): both files, in one plan.
    plan = undo.plan(undo.checkpoints(chat=sid, since_message=0))
    assert sorted((f.path.name, f.action) for f in plan.files) == [
        ("notes.md", "restore"),
        ("todo.md", "delete"),
    ]
    result = undo.restore(plan)
    assert (ws / "notes.md").read_text() == "one\ntwo\nthree\n" and not (ws / "todo.md").exists()
    assert len(result.undo_checkpoint_ids) == 2 and not result.skipped


async def test_deleting_the_chat_deletes_its_checkpoints_and_gc_reclaims_their_bytes(
    app: Application, ws: Path, llm_server: ScriptedLLMServer
) -> None:
    unique = b"content only this checkpoint keeps\n" * 10
    (ws / "a.txt").write_bytes(unique)
    chat = ChatService(app)
    conversation = await chat.open(project=ws, model=ROUTE)
    conversation.set_mode(ChatMode.AUTO)
    llm_server.script(_write_call("a.txt", "replaced\n", "call_1"), Reply.say("Done."))
    await conversation.send("replace it")
    sid = conversation.session_id
    assert sid is not None
    await chat.aclose()
    [checkpoint] = app.undo().checkpoints(chat=sid)
    sha = checkpoint.before_sha256
    assert sha is not None
    store = media_store(app.paths)
    assert store.exists(sha)
    # While the checkpoint lives, gc keeps its bytes, however old.
    assert sha in collect_garbage(store, app.paths, min_age_s=0, dry_run=False)["kept"]

    assert app.sessions().delete(sid)
    assert app.undo().checkpoints(chat=sid) == []
    assert sha in collect_garbage(store, app.paths, min_age_s=0, dry_run=False)["removed"]
    assert not store.exists(sha)


def _dispatcher(app: Application, ws: Path, run_id: str) -> Any:
    host = surface_host(ws, surface="workflow", home=app.paths.home)
    registry = tool_registry(host, home=app.paths.home)
    ctx = ToolDispatchContext(run_id=run_id, node_id="writer", granted_tool_ids=frozenset({"write_file"}))

    async def write(args: dict[str, Any]) -> Any:
        return await registry.dispatch(ToolCall("write_file", args, call_id="c1"), ctx)

    return write


async def test_a_failed_write_leaves_no_checkpoint(app: Application, ws: Path) -> None:
    write = _dispatcher(app, ws, "run-failing")
    (ws / "folder").mkdir()
    outcome = await write({"path": "folder", "content": "x"})
    assert not outcome.ok
    outcome = await write({"path": "missing/dir/f.txt", "content": "x"})
    assert not outcome.ok
    assert app.undo().checkpoints(run="run-failing") == []


async def test_a_workflow_runs_writes_undo_to_the_oldest_content_and_binary_diffs_are_a_sentence(
    app: Application, ws: Path
) -> None:
    original = b"\x89PNG\r\n\x1a\n\x00\x00binary"
    (ws / "img.png").write_bytes(original)
    write = _dispatcher(app, ws, "run-42")
    for content in ("first\n", "second\n", "third\n"):
        assert (await write({"path": "img.png", "content": content})).ok
    undo = app.undo()
    checkpoints = undo.checkpoints(run="run-42")
    assert len(checkpoints) == 3 and all(c.scope == "run" for c in checkpoints)
    assert undo.diff(checkpoints[0]).sentence.startswith("Binary file")
    assert undo.diff(checkpoints[0]).lines == ()
    # The middle write's result is no longer on disk: its diff comes from the next write's kept bytes.
    assert [(line.kind, line.text) for line in undo.diff(checkpoints[1]).lines if line.kind != "hunk"] == [
        ("removed", "first"),
        ("added", "second"),
    ]
    plan = undo.plan(checkpoints)
    assert [(f.action, f.checkpoint_id) for f in plan.files] == [("restore", checkpoints[0].id)]
    undo.restore(plan)
    assert (ws / "img.png").read_bytes() == original


async def test_a_path_moved_out_of_the_project_is_refused_with_the_reason(
    app: Application, ws: Path, tmp_path: Path
) -> None:
    write = _dispatcher(app, ws, "run-moved")
    (ws / "sub").mkdir()
    assert (await write({"path": "sub/f.txt", "content": "agent\n"})).ok
    # The folder is now a link to somewhere outside the project.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "f.txt").write_text("agent\n")
    (ws / "sub" / "f.txt").unlink()
    (ws / "sub").rmdir()
    os.symlink(elsewhere, ws / "sub")
    undo = app.undo()
    plan = undo.plan(undo.checkpoints(run="run-moved"))
    [planned] = plan.refused
    assert "outside the allowed folders" in planned.reason
    result = undo.restore(plan, force=True)
    assert result.skipped == (planned,) and (elsewhere / "f.txt").read_text() == "agent\n"


def test_retention_reads_its_bounds_from_the_environment() -> None:
    assert Retention.with_overrides({}) == Retention(30 * 86400, 1024**3)
    assert Retention.with_overrides(
        {"RELAVIUM_CHECKPOINT_MAX_DAYS": "2", "RELAVIUM_CHECKPOINT_MAX_BYTES": "5000"}
    ) == Retention(2 * 86400, 5000)
    assert Retention.with_overrides({"RELAVIUM_CHECKPOINT_MAX_DAYS": "soon"}).max_age_s == 30 * 86400


async def test_retention_removes_checkpoints_past_their_age(app: Application, ws: Path) -> None:
    write = _dispatcher(app, ws, "run-old")
    (ws / "x.txt").write_text("before\n")
    assert (await write({"path": "x.txt", "content": "after\n"})).ok
    undo = app.undo()
    [checkpoint] = undo.checkpoints(run="run-old")
    later = checkpoint.created_at.timestamp() + 31 * 86400
    assert undo.prune(now=later) == [checkpoint.id]
    assert undo.checkpoints(run="run-old") == []
    assert isinstance(undo, UndoService)


async def test_a_plugin_tools_file_write_through_the_host_is_checkpointed_too(
    app: Application, ws: Path
) -> None:
    from pydantic import BaseModel

    from relavium_desktop.engine.tools.plugin_api import PluginCaps, PluginTool, make_plugin_tool

    class Args(BaseModel):
        text: str

    async def stamp(args: Args, caps: PluginCaps) -> Any:
        assert caps.fs is not None
        return await caps.fs.write_file("STAMP", args.text, append=False, create_parents=False)

    tool = make_plugin_tool(
        PluginTool(
            name="stamp",
            description="Writes a stamp file.",
            args_model=Args,
            handler=stamp,
            action="fs_write",
            capabilities=("fs",),
        )
    )
    (ws / "STAMP").write_bytes(b"the user's stamp\n")
    host = surface_host(ws, surface="workflow", home=app.paths.home)
    registry = tool_registry(host, home=app.paths.home, extra_tools=[tool])
    ctx = ToolDispatchContext(run_id="run-plugin", node_id="n", granted_tool_ids=frozenset({tool.id}))
    outcome = await registry.dispatch(ToolCall(tool.id, {"text": "plugin\n"}, call_id="call_p"), ctx)
    assert outcome.ok, outcome.error
    undo = app.undo()
    [checkpoint] = undo.checkpoints(run="run-plugin")
    assert checkpoint.tool_call_id == "call_p" and checkpoint.node_id == "n"
    undo.restore(undo.plan([checkpoint]))
    assert (ws / "STAMP").read_bytes() == b"the user's stamp\n"


async def test_a_write_in_a_granted_folder_restores_while_the_grant_stands(
    app: Application, ws: Path, tmp_path: Path
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "lib.txt").write_text("library\n")
    host = surface_host(ws, surface="chat", home=app.paths.home, extra_roots=(shared,))
    registry = tool_registry(host, home=app.paths.home)
    ctx = ToolDispatchContext(run_id="run-shared", node_id="n", granted_tool_ids=frozenset({"write_file"}))
    call = ToolCall("write_file", {"path": str(shared / "lib.txt"), "content": "changed\n"})
    assert (await registry.dispatch(call, ctx)).ok
    undo = app.undo()
    checkpoints = undo.checkpoints(run="run-shared")
    # Without the folder grant the path is outside the project: refused, with why.
    [refused] = undo.plan(checkpoints).refused
    assert "outside the allowed folders" in refused.reason
    app.grants().folders.add(str(ws.resolve()), str(shared.resolve()))
    plan = undo.plan(checkpoints)
    assert [f.action for f in plan.files] == ["restore"]
    undo.restore(plan)
    assert (shared / "lib.txt").read_text() == "library\n"


async def test_a_write_refused_after_its_content_was_kept_leaves_only_a_blob_gc_reclaims(
    app: Application, ws: Path, tmp_path: Path
) -> None:
    # A hard-linked file is refused by the write itself, after the host read (and kept) its bytes.
    unique = b"hard-linked content nobody else has\n"
    (ws / "linked.txt").write_bytes(unique)
    os.link(ws / "linked.txt", tmp_path / "other-name.txt")
    write = _dispatcher(app, ws, "run-refused")
    outcome = await write({"path": "linked.txt", "content": "x\n"})
    assert not outcome.ok and (ws / "linked.txt").read_bytes() == unique
    assert app.undo().checkpoints(run="run-refused") == []
    sha = hashlib.sha256(unique).hexdigest()
    store = media_store(app.paths)
    assert store.exists(sha)  # kept beside the write, which was then refused: nobody refers to it
    assert sha in collect_garbage(store, app.paths, min_age_s=0, dry_run=False)["removed"]
    assert not store.exists(sha)


async def test_content_too_large_to_keep_is_written_but_its_undo_is_refused_in_words(
    app: Application, ws: Path
) -> None:
    big = b"a log line\n" * (26 * 1024 * 1024 // 11 + 1)  # over the media store's 25 MiB
    (ws / "huge.log").write_bytes(big)
    write = _dispatcher(app, ws, "run-huge")
    outcome = await write({"path": "huge.log", "content": "short\n"})
    assert outcome.ok and outcome.result["linesRemoved"] == big.count(b"\n")
    undo = app.undo()
    [checkpoint] = undo.checkpoints(run="run-huge")
    assert checkpoint.existed and not checkpoint.kept
    [refused] = undo.plan([checkpoint]).refused
    assert refused.reason == "its earlier content was too large to keep (over 25 MiB)"


async def test_a_file_changed_between_plan_and_restore_is_a_conflict_and_offers_no_undo(
    app: Application, ws: Path
) -> None:
    (ws / "race.txt").write_text("before\n")
    write = _dispatcher(app, ws, "run-race")
    assert (await write({"path": "race.txt", "content": "agent\n"})).ok
    undo = app.undo()
    plan = undo.plan(undo.checkpoints(run="run-race"))
    assert [f.action for f in plan.files] == ["restore"]
    (ws / "race.txt").write_text("edited after the plan was shown\n")
    result = undo.restore(plan)
    assert [(f.action, f.reason) for f in result.skipped] == [
        ("conflict", "the file changed since the agent wrote it")
    ]
    assert (
        result.undo_checkpoint_ids == ()
        and (ws / "race.txt").read_text() == "edited after the plan was shown\n"
    )
    assert [c.scope for c in undo.checkpoints(run="run-race", include_undo=True)] == ["run"]
