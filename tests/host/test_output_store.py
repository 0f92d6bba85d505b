"""The run output store's lifecycle: one folder per run, reclaimed at the end, swept when old.

Real folders under a temporary ``$RELAVIUM_HOME``; the workflow runs go through
the same wiring ``relavium run`` and the desktop use (``build_workflow_engine``).
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any, cast

import pytest

from relavium_desktop.application.engines import build_workflow_engine
from relavium_desktop.engine.workflow.journal import MemoryJournal
from relavium_desktop.engine.workflow.loader import load_workflow
from relavium_desktop.engine.workflow.run import GateDecision, WorkflowRun
from relavium_desktop.host.assembly import HostSettings, build_host
from relavium_desktop.host.fs.policy import SpillScope
from relavium_desktop.host.output_store import (
    FileOutputStore,
    chat_spill_scope,
    remove_chat_spills,
    remove_run_folder,
    sweep_spills,
)

DAY = 86_400.0


def _age(path: Path, seconds: float) -> None:
    """Backdate ``path`` and everything in it (links themselves, never their targets)."""
    when = time.time() - seconds
    for dirpath, dirnames, filenames in os.walk(path, topdown=False):
        for name in (*dirnames, *filenames):
            os.utime(os.path.join(dirpath, name), (when, when), follow_symlinks=False)
    os.utime(path, (when, when), follow_symlinks=False)


def _run_folder(home: Path, name: str, *, age: float = 0.0) -> Path:
    folder = home / "runs" / name
    folder.mkdir(parents=True)
    (folder / "read_file-0123456789ab.txt").write_text("spilled output")
    if age:
        _age(folder, age)
    return folder


# -- sweep ------------------------------------------------------------------------

def test_sweep_removes_old_folders_and_keeps_recent_ones(relavium_home: Path) -> None:
    old = _run_folder(relavium_home, "run-old", age=8 * DAY)
    recent = _run_folder(relavium_home, "run-recent", age=1 * DAY)
    touched = _run_folder(relavium_home, "chat-touched", age=30 * DAY)
    (touched / "read_file-new.txt").write_text("written just now")  # the newest mtime counts
    nested = _run_folder(relavium_home, "tool-nested", age=9 * DAY)
    (nested / "sub").mkdir()
    (nested / "sub" / "deep.txt").write_text("old too")
    _age(nested, 9 * DAY)
    assert sorted(sweep_spills(relavium_home, 7 * DAY)) == ["run-old", "tool-nested"]
    assert not old.exists() and not nested.exists()
    assert recent.is_dir() and touched.is_dir()
    assert sweep_spills(relavium_home, 0) == []  # a zero retention sweeps nothing
    assert sweep_spills(relavium_home, 0.5 * DAY) == ["run-recent"]
    assert touched.is_dir()


def test_sweep_never_follows_a_symlink_out_of_runs(relavium_home: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("not the store's")
    _age(outside, 30 * DAY)
    runs = relavium_home / "runs"
    runs.mkdir()
    (runs / "run-link").symlink_to(outside, target_is_directory=True)  # a link where a run folder goes
    os.utime(runs / "run-link", (0, 0), follow_symlinks=False)
    inner = _run_folder(relavium_home, "run-inner-link")
    (inner / "escape").symlink_to(outside, target_is_directory=True)
    _age(inner, 30 * DAY)
    (runs / "not a run id").mkdir()
    _age(runs / "not a run id", 30 * DAY)

    removed = sweep_spills(relavium_home, 7 * DAY)
    assert removed == ["run-inner-link"]  # the folder went, the link inside it only as a link
    assert (outside / "keep.txt").read_text() == "not the store's"
    assert (runs / "run-link").is_symlink() and (runs / "not a run id").is_dir()


def test_sweep_with_runs_itself_a_symlink_removes_nothing(relavium_home: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    _run_folder(elsewhere, "run-old", age=30 * DAY)
    (relavium_home / "runs").symlink_to(elsewhere / "runs", target_is_directory=True)
    assert sweep_spills(relavium_home, 7 * DAY) == []
    assert (elsewhere / "runs" / "run-old").is_dir()
    assert sweep_spills(relavium_home / "no-such-home", 7 * DAY) == []


def test_sweep_keeps_a_folder_a_live_host_is_bound_to(relavium_home: Path, tmp_path: Path) -> None:
    host = build_host(HostSettings(workspace=tmp_path, home=relavium_home, run_id="chat-live"))
    _age(relavium_home / "runs" / "chat-live", 30 * DAY)
    _run_folder(relavium_home, "chat-gone", age=30 * DAY)
    assert sweep_spills(relavium_home, 7 * DAY) == ["chat-gone"]
    assert (relavium_home / "runs" / "chat-live").is_dir()
    del host


# -- remove and reclaim -----------------------------------------------------------

def test_remove_never_follows_a_symlinked_run_folder(relavium_home: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("x")
    (relavium_home / "runs").mkdir()
    (relavium_home / "runs" / "chat-abc").symlink_to(outside, target_is_directory=True)
    assert remove_chat_spills(relavium_home, "abc") is False
    assert (outside / "keep.txt").exists()
    assert remove_run_folder(relavium_home / "runs", "..") is False
    folder = _run_folder(relavium_home, chat_spill_scope("def"))
    assert remove_chat_spills(relavium_home, "def") is True and not folder.exists()


async def test_store_binds_its_run_and_reclaim_unbinds(relavium_home: Path) -> None:
    runs = relavium_home / "runs"
    scope = SpillScope(runs)
    store = FileOutputStore(runs, scope)
    assert scope.root is None
    spill = await store.spill("run-a", "read_file", "x" * 10)
    assert scope.run_id == "run-a" and Path(spill.path).parent == runs / "run-a"
    await store.spill("run-b", "read_file", "y")  # another run's spill: written, never readable here
    assert scope.run_id == "run-a"
    await store.reclaim("run-a")
    assert scope.root is None and not (runs / "run-a").exists()
    store.bind("run-c")
    assert scope.run_id == "run-c" and (runs / "run-c").is_dir()
    with pytest.raises(ValueError):
        store.bind("../escape")


def test_chat_scope_is_the_run_id_a_chat_session_spills_under() -> None:
    from relavium_desktop.engine.agent.chat import ChatSession

    # Stand-ins for the parts _loop() only reads attributes from; a real session is built the same way.
    session = ChatSession(session_id="abc123", spec=cast(Any, _Spec()), providers=cast(Any, None),
                          registry=cast(Any, _Registry()), store=cast(Any, None),
                          approvals=cast(Any, _Approvals()), emit=print)
    assert session._loop().ctx.run_id == chat_spill_scope("abc123")


class _Spec:
    tools: tuple[str, ...] = ()
    tool_config: dict[str, Any] = {}  # noqa: RUF012 - read-only stand-in


class _Registry:
    def get(self, _tool: str) -> None:
        return None


class _Approvals:
    def regime(self) -> None:
        return None


# -- a workflow run's terminal event ----------------------------------------------

HEAD = "schema_version: '1.0'\nworkflow:\n  id: w\n"
READ_BIG = """    - id: big
      type: tool
      tool_config: {tool_name: read_file, input_mapping: {path: big.txt}}
"""
GATED = HEAD + "  nodes:\n    - {id: s, type: input}\n" + READ_BIG + """    - {id: ask, type: human_gate, gate_type: approval, message_template: 'go?'TIMEOUT}
    - {id: out, type: output}
  edges: [{from: s, to: big}, {from: big, to: ask}, {from: ask, to: out}]
"""
FAILING = HEAD + "  nodes:\n    - {id: s, type: input}\n" + READ_BIG + """    - {id: boom, type: transform, transform: 'null.boom'}
  edges: [{from: s, to: big}, {from: big, to: boom}]
"""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "big.txt").write_text("\n".join(f"line {i}" for i in range(5000)))
    return ws


def _start(workspace: Path, home: Path, journal: MemoryJournal, text: str, **kw: Any) -> WorkflowRun:
    engine = build_workflow_engine(workspace=workspace, tier="project", journal=journal, home=home, **kw)
    return engine.start(load_workflow(text, "wf.relavium.yaml"), {})


async def _until_spilled(home: Path, run: WorkflowRun) -> Path:
    folder = home / "runs" / run.run_id
    for _ in range(2000):
        if folder.is_dir() and any(folder.iterdir()) and any(
                e["type"] == "human_gate:paused" for e in run.events):
            return folder
        await asyncio.sleep(0.005)
    raise AssertionError("the run never spilled and reached its gate")


async def test_a_cancelled_run_reclaims_its_spills(workspace: Path, relavium_home: Path) -> None:
    journal = MemoryJournal()
    live_gate = GATED.replace("TIMEOUT", ", timeout_ms: 600000")
    # Cancelled by its task (Ctrl-C, the app quitting): today's gap.
    run = _start(workspace, relavium_home, journal, live_gate, hold_gates=True)
    task = asyncio.create_task(run.run())
    folder = await _until_spilled(relavium_home, run)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert run.events[-1]["type"] == "run:cancelled"
    assert not folder.exists()
    # Cancelled by its Stop button (run.cancel()).
    run = _start(workspace, relavium_home, journal, live_gate, hold_gates=True)
    task = asyncio.create_task(run.run())
    folder = await _until_spilled(relavium_home, run)
    run.cancel()
    assert (await task).status == "cancelled"
    assert not folder.exists()


async def test_a_failed_run_reclaims_and_a_paused_one_keeps(workspace: Path, relavium_home: Path) -> None:
    journal = MemoryJournal()
    failed = _start(workspace, relavium_home, journal, FAILING)
    assert (await failed.run()).status == "failed"
    assert not (relavium_home / "runs" / failed.run_id).exists()

    paused = _start(workspace, relavium_home, journal, GATED.replace("TIMEOUT", ""))
    result = await paused.run()
    assert result.status == "paused"
    folder = relavium_home / "runs" / paused.run_id
    spill = next(folder.iterdir())
    assert spill.is_file()
    # Resumed by a new engine (a new process): the run reads its own earlier spill...
    engine = build_workflow_engine(workspace=workspace, tier="project", journal=journal, home=relavium_home)
    resumed = engine.resume(paused.run_id, GateDecision("approved"))
    fs = engine.registry.host.fs
    assert fs is not None
    assert (await fs.read_file(str(spill)))["content"].startswith("{")
    # ...and its completion reclaims the folder.
    assert (await resumed.run()).status == "completed"
    assert not folder.exists()


def test_cli_chat_delete_removes_the_sessions_spills(cli_env: dict[str, str], relavium_home: Path) -> None:
    from relavium_desktop.store.db import history_db_path, open_db
    from relavium_desktop.store.sessions import SqliteSessionStore
    from tests.helpers import run_cli

    conn = open_db(history_db_path(relavium_home))
    info = SqliteSessionStore(conn).create(title="t", agent_id="chat", mode="ask")
    conn.close()
    folder = _run_folder(relavium_home, chat_spill_scope(info.id))
    kept = _run_folder(relavium_home, chat_spill_scope("another"))
    code, out, err = run_cli("chat", "--delete", info.id, "--json", env=cli_env)
    assert code == 0 and out == {"ok": True}, err
    assert not folder.exists() and kept.is_dir()
