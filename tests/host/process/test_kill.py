"""Cancellation and timeout kill the whole tree; cancel reports ``cancelled``."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from relavium_desktop.engine.errors import ErrorCode
from relavium_desktop.engine.events import EventBus
from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.tools.tooldef import NodeToolConfig, ToolPolicy
from relavium_desktop.host.process import ProcessHost
from tests.helpers import dispatch
from tests.host.process.conftest import alive, wait_for_files, wait_until_gone

# A leader, a background child in its group, and a grandchild that left the
# group with setsid: all three must die.
TREE_SCRIPT = (
    "sleep 300 & echo $! > bg.pid; "
    "setsid sleep 301 & echo $! > escaped.pid; "
    "echo $$ > leader.pid; wait"
)


def tool_host(host: ProcessHost) -> ToolHost:
    return ToolHost(process=host)


def policy_for(*entries: str) -> ToolPolicy:
    return ToolPolicy(allowed_commands=entries)


async def test_cancel_kills_a_sleeping_command_and_reports_cancelled(
    host: ProcessHost, workspace: Path
) -> None:
    bus = EventBus(clock=time.time, run_id="run-1")
    task = asyncio.create_task(
        dispatch(
            "run_command",
            {"command": "sh", "args": ["-c", "echo $$ > leader.pid; exec sleep 300"]},
            host=tool_host(host),
            policy=policy_for("sh -c 'echo $$ > leader.pid; exec sleep 300'"),
            bus=bus,
        )
    )
    await wait_for_files(workspace / "leader.pid")
    pid = int((workspace / "leader.pid").read_text())
    assert alive(pid)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await wait_until_gone([pid]) == []
    result_event = bus.history[-1]
    assert result_event["type"] == "agent:tool_result"
    assert result_event["success"] is False and result_event["error"]["code"] == ErrorCode.CANCELLED


async def test_cancel_kills_children_and_escaped_grandchildren(host: ProcessHost, workspace: Path) -> None:
    task = asyncio.create_task(
        dispatch(
            "run_command",
            {"command": "sh", "args": ["-c", TREE_SCRIPT]},
            host=tool_host(host),
            policy=policy_for(f"sh -c '{TREE_SCRIPT}'"),
        )
    )
    pid_files = [workspace / n for n in ("leader.pid", "bg.pid", "escaped.pid")]
    await wait_for_files(*pid_files)
    pids = [int(p.read_text()) for p in pid_files]
    leader, _, escaped = pids
    # The precondition that makes this test mean something: one left the group.
    await wait_for_pgid_change(escaped, os.getpgid(leader))
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await wait_until_gone(pids) == []


async def wait_for_pgid_change(pid: int, pgid: int) -> None:
    for _ in range(500):
        if os.getpgid(pid) != pgid:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("setsid never moved the grandchild to its own group")


async def test_timeout_kills_the_tree_and_says_so(host: ProcessHost, workspace: Path) -> None:
    started = asyncio.create_task(
        dispatch(
            "run_command",
            {"command": "sh", "args": ["-c", TREE_SCRIPT]},
            host=tool_host(host),
            policy=policy_for(f"sh -c '{TREE_SCRIPT}'"),
            config=NodeToolConfig(parameters={"timeoutMs": 1500}),
        )
    )
    pid_files = [workspace / n for n in ("leader.pid", "bg.pid", "escaped.pid")]
    await wait_for_files(*pid_files)
    pids = [int(p.read_text()) for p in pid_files]
    out = await started
    assert not out.ok and out.error is not None
    assert out.error.code is ErrorCode.TOOL_FAILED
    assert "timed out after 1500 ms" in out.error.message
    assert await wait_until_gone(pids) == []


async def test_a_model_cannot_lift_the_timeout(host: ProcessHost) -> None:
    out = await dispatch(
        "run_command",
        {"command": "sleep", "args": ["30"], "timeoutMs": 999_999},
        host=tool_host(host),
        policy=policy_for("sleep 30"),
        config=NodeToolConfig(parameters={"timeoutMs": 200}),
    )
    assert out.error is not None and "timed out after 200 ms" in out.error.message


async def test_a_cancel_while_the_pipes_are_still_connecting_ends_the_whole_group(
    host: ProcessHost, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A loaded machine can run the child before asyncio has connected its pipes.

    The delay is forced with a seam in asyncio's own transport (no real part can
    make this race deterministic): the child runs and writes its pid files while
    ``subprocess_exec`` still waits, and the cancel lands there.  asyncio alone
    would kill only the leader and then wait for the pipes the background job
    holds (five minutes, here); the whole group must end at once instead.
    """
    import asyncio.base_subprocess as base

    connect = base.BaseSubprocessTransport._connect_pipes

    async def slow_connect(self, waiter):  # type: ignore[no-untyped-def]
        await asyncio.sleep(1.5)
        await connect(self, waiter)

    monkeypatch.setattr(base.BaseSubprocessTransport, "_connect_pipes", slow_connect)
    script = "sleep 300 & echo $! > bg.pid; echo $$ > leader.pid; wait"
    task = asyncio.create_task(
        dispatch("run_command", {"command": "sh", "args": ["-c", script]},
                 host=tool_host(host), policy=policy_for(f"sh -c '{script}'"))
    )
    files = [workspace / "leader.pid", workspace / "bg.pid"]
    await wait_for_files(*files)
    pids = [int(p.read_text()) for p in files]
    started = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - started < 10, "the cancel waited for the background job"
    assert await wait_until_gone(pids) == []
