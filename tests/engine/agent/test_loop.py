"""The agent loop against the scripted provider server and the real tool hosts."""

from __future__ import annotations

import asyncio
import json
import os
import uuid
from pathlib import Path

import pytest

from relavium_desktop.engine.agent.modes import headless_regime
from relavium_desktop.engine.agent.runner import run_agent
from relavium_desktop.engine.llm.messages import Message
from relavium_desktop.engine.tools.tooldef import ActionClass, ToolPolicy
from tests.engine.agent.conftest import Rig
from tests.fixtures.llm_server import Reply

APPROVE_PROCESS = headless_regime(frozenset({ActionClass.PROCESS}))


def tool_results(body: dict) -> list[dict]:
    return [m for m in body["messages"] if m["role"] == "tool"]


@pytest.mark.spawns  # runs a real command: kept out of the fast lane
async def test_happy_path_run_command_then_read_file(rig: Rig) -> None:
    rig.server.script(
        Reply.call("run_command", {"command": "echo", "args": ["hello-from-echo"]}),
        Reply.call("read_file", {"path": "notes.txt"}),
        Reply.say("The note says to remember the milk."),
    )
    loop = rig.loop(tools=["run_command", "read_file"], approval=APPROVE_PROCESS,
                    policy=ToolPolicy(allowed_commands=("echo hello-from-echo",)))
    history = [Message.user("check my notes")]
    result = await loop.run(history)
    assert result.status == "completed", result.failure
    assert result.text == "The note says to remember the milk." and result.tool_turns == 2
    reqs = rig.server.requests
    assert len(reqs) == 3
    assert "hello-from-echo" in tool_results(reqs[1].body)[-1]["content"]
    assert "remember the milk" in tool_results(reqs[2].body)[-1]["content"]
    # Only the granted tools were advertised, with their LLM-visible schema.
    advertised = {t["function"]["name"] for t in reqs[0].body["tools"]}
    assert advertised == {"run_command", "read_file"}
    assert "timeoutMs" not in json.dumps(reqs[0].body["tools"])  # config-only never reaches a provider
    assert [e["toolId"] for e in rig.of_type("agent:tool_result")] == ["run_command", "read_file"]
    assert all(e["success"] for e in rig.of_type("agent:tool_result"))
    assert rig.of_type("cost:updated")[0]["costMicrocents"] > 0  # gpt-4o-mini has a known price
    assert [m.role for m in history] == ["user", "assistant", "tool", "assistant", "tool", "assistant"]


async def test_denied_command_fails_the_node_and_the_model_is_not_re_asked(rig: Rig) -> None:
    rig.server.script(Reply.call("run_command", {"command": "rm", "args": ["-rf", "notes.txt"]}),
                      Reply.say("should never be requested"))
    loop = rig.loop(tools=["run_command"], approval=APPROVE_PROCESS,
                    policy=ToolPolicy(allowed_commands=("echo hi",)))
    result = await loop.run([Message.user("clean up")])
    assert result.status == "failed" and result.failure is not None
    assert (result.failure.code, result.failure.reason) == ("tool_denied", "command_not_allowed")
    assert not result.failure.retryable
    assert len(rig.server.requests) == 1 and rig.server.pending == 1
    assert (rig.workspace / "notes.txt").exists()


async def test_governed_action_denied_headless_without_approve_all(rig: Rig) -> None:
    rig.server.script(Reply.call("run_command", {"command": "echo", "args": ["hi"]}), Reply.say("no"))
    loop = rig.loop(tools=["run_command"], approval=headless_regime(frozenset()),
                    policy=ToolPolicy(allowed_commands=("echo hi",)))
    result = await loop.run([Message.user("go")])
    assert result.failure is not None and result.failure.code == "tool_denied"
    assert len(rig.server.requests) == 1


async def test_unknown_tool_four_rounds_feeds_back_three_then_fails(rig: Rig) -> None:
    rig.server.script(*[Reply.call("delete_everything", {"really": True}) for _ in range(4)],
                      Reply.say("never requested"))
    result = await rig.loop(tools=["read_file"]).run([Message.user("go")])
    assert result.status == "failed" and result.failure is not None
    assert result.failure.code == "tool_failed" and not result.failure.retryable
    reqs = rig.server.requests
    assert len(reqs) == 4  # rounds 1-3 were fed back; round 4 was not
    for n in (1, 2, 3):
        fed = tool_results(reqs[n].body)
        assert len(fed) == n and "unknown_tool" in fed[-1]["content"]
        assert "read_file" in fed[-1]["content"]  # the message lists the ids


async def test_malformed_arguments_become_a_correctable_invalid_args(rig: Rig) -> None:
    rig.server.script(Reply.call_raw("read_file", '{"path": "notes.txt'), Reply.call("read_file", {"path": "notes.txt"}),
                      Reply.say("fixed it"))
    result = await rig.loop(tools=["read_file"]).run([Message.user("read")])
    assert result.status == "completed" and result.text == "fixed it"
    assert "invalid_args" in tool_results(rig.server.requests[1].body)[-1]["content"]
    assert rig.of_type("agent:tool_result")[0]["error"]["code"] == "invalid_args"


async def test_seventeen_tool_turns_hit_the_turn_limit(rig: Rig) -> None:
    rig.server.script(*[Reply.call("read_file", {"path": "notes.txt"}) for _ in range(17)], Reply.say("never"))
    result = await rig.loop(tools=["read_file"]).run([Message.user("loop")])
    assert result.status == "failed" and result.failure is not None
    assert result.failure.code == "turn_limit" and result.tool_turns == 16
    assert len(rig.server.requests) == 17
    assert len(rig.of_type("agent:tool_result")) == 16  # the 17th turn's call never ran


async def test_sixteen_tool_turns_are_allowed(rig: Rig) -> None:
    rig.server.script(*[Reply.call("read_file", {"path": "notes.txt"}) for _ in range(16)], Reply.say("done"))
    result = await rig.loop(tools=["read_file"]).run([Message.user("loop")])
    assert result.status == "completed" and result.tool_turns == 16


def _processes_with(marker: str) -> list[int]:
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in cmdline:
                pids.append(int(entry))
    return pids


@pytest.mark.spawns  # runs a real command: kept out of the fast lane
async def test_cancel_during_a_tool_call_kills_the_process_and_reports_cancelled(rig: Rig) -> None:
    """A real ``sleep`` through the real process host (relavium_desktop.host.process)."""
    marker = f"3{uuid.uuid4().int % 10_000}.5"  # a unique sleep duration to find the process by
    rig.server.script(Reply.call("run_command", {"command": "sleep", "args": [marker]}), Reply.say("never"))
    loop = rig.loop(tools=["run_command"], approval=APPROVE_PROCESS,
                    policy=ToolPolicy(allowed_commands=(f"sleep {marker}",)))
    events: list[dict] = []
    task = asyncio.create_task(run_agent(loop, "nap", emit=lambda e: events.append(e.to_wire())))
    for _ in range(500):
        if _processes_with(marker):
            break
        await asyncio.sleep(0.01)
    assert _processes_with(marker), "the sleep never started"
    task.cancel()
    result = await task
    assert result.status == "cancelled"
    assert [e["type"] for e in events if e["type"].startswith("run:")] == ["run:started", "run:cancelled"]
    assert rig.of_type("agent:tool_result")[-1]["error"]["code"] == "cancelled"
    for _ in range(300):  # the host reaps the killed tree; wait for it, not a timing claim
        if not _processes_with(marker):
            break
        await asyncio.sleep(0.01)
    assert _processes_with(marker) == []
    assert len(rig.server.requests) == 1


async def test_cancel_during_the_stream_stops_it(rig: Rig) -> None:
    rig.server.script(Reply.stall("partial"))
    loop = rig.loop(tools=["read_file"])
    events: list[dict] = []
    task = asyncio.create_task(run_agent(loop, "hi", emit=lambda e: events.append(e.to_wire())))
    for _ in range(500):
        if rig.of_type("agent:token"):
            break
        await asyncio.sleep(0.01)
    assert rig.of_type("agent:token")
    task.cancel()
    result = await task
    assert result.status == "cancelled" and events[-1]["type"] == "run:cancelled"


async def test_fallback_to_a_second_provider_on_a_retryable_error(rig: Rig) -> None:
    rig.server.script(Reply.error(503), Reply.say("answer from the fallback"))
    loop = rig.loop(tools=[], fallback_chain=[{"provider": "anthropic", "model": "claude-sonnet-4"}])
    result = await loop.run([Message.user("hi")])
    assert result.status == "completed" and result.text == "answer from the fallback"
    assert [r.dialect for r in rig.server.requests] == ["openai", "anthropic"]
    fallback = rig.of_type("agent:provider_fallback")
    assert fallback and fallback[0]["error"]["code"] == "provider_unavailable"
    assert result.usage[0].provider == "anthropic" and result.usage[0].model == "claude-sonnet-4"


async def test_rate_limit_waits_retry_after_then_falls_back_through_the_chain(rig: Rig) -> None:
    rig.server.script(Reply.error(429, retry_after="1"), Reply.error(429, retry_after="2"),
                      Reply.error(429, retry_after="3"), Reply.say("gemini answers"))
    loop = rig.loop(tools=[], fallback_chain=[{"provider": "anthropic", "model": "claude-sonnet-4", "max_attempts": 2},
                                              {"provider": "gemini", "model": "gemini-2.5-flash"}])
    result = await loop.run([Message.user("hi")])
    assert result.status == "completed" and result.text == "gemini answers"
    assert [r.dialect for r in rig.server.requests] == ["openai", "anthropic", "anthropic", "gemini"]
    assert rig.sleeps == [2.0]  # the anthropic entry's second attempt waited its Retry-After


async def test_auth_error_does_not_fall_back(rig: Rig) -> None:
    rig.server.script(Reply.error(401), Reply.say("never"))
    loop = rig.loop(tools=[], fallback_chain=[{"provider": "anthropic", "model": "claude-sonnet-4"}])
    result = await loop.run([Message.user("hi")])
    assert result.failure is not None and result.failure.code == "provider_auth"
    assert len(rig.server.requests) == 1


async def test_node_retry_reruns_a_retryable_failure(rig: Rig) -> None:
    rig.server.script(Reply.error(503), Reply.say("second attempt works"))
    loop = rig.loop(tools=[], retry={"max": 2, "backoff": "fixed", "backoff_ms": 250})  # two attempts
    events: list[dict] = []
    result = await run_agent(loop, "hi", emit=lambda e: events.append(e.to_wire()))
    assert result.status == "completed" and result.text == "second attempt works"
    assert rig.sleeps == [0.25]
    assert events[-1]["type"] == "run:completed"
    retrying = [e for e in events if e["type"] == "node:retrying"]
    assert [(e["attemptNumber"], e["delayMs"]) for e in retrying] == [(2, 250)]
