"""The dispatch pipeline's order and its refusals, on stub hosts.

The host here is a recording stub (no real part is needed: the pipeline is
pure and these tests check what reaches the host and when).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from relavium_desktop.engine.events import EventBus
from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS
from relavium_desktop.engine.tools.registry import ToolRegistry
from relavium_desktop.engine.tools.schema import llm_visible_schema
from relavium_desktop.engine.tools.tooldef import (
    ActionClass,
    ApprovalDecision,
    ApprovalRegime,
    ApprovalRequest,
    NodeToolConfig,
    PolicyClass,
    ToolCall,
    ToolDef,
    ToolPolicy,
)
from tests.engine.tools.doubles import RecordingProcess
from tests.helpers import dispatch, make_ctx

ECHO_POLICY = ToolPolicy(allowed_commands=("echo hello",))


async def test_policy_sees_the_command_input_mapping_supplied() -> None:
    proc = RecordingProcess()
    # A tool node: no model args at all, the command arrives via input_mapping.
    outcome = await dispatch(
        "run_command",
        {},
        host=ToolHost(process=proc),
        policy=ECHO_POLICY,
        config=NodeToolConfig(input_mapping={"command": "rm", "args": ["-rf", "/"]}),
    )
    assert not outcome.ok
    assert outcome.error is not None
    assert (outcome.error.code, outcome.error.reason) == ("tool_denied", "command_not_allowed")
    assert proc.spawned == []


async def test_input_mapping_overrides_model_args_before_the_policy() -> None:
    proc = RecordingProcess()
    outcome = await dispatch(
        "run_command",
        {"command": "echo", "args": ["hello"]},
        host=ToolHost(process=proc),
        policy=ECHO_POLICY,
        config=NodeToolConfig(input_mapping={"args": ["goodbye"]}),
    )
    assert outcome.error is not None and outcome.error.reason == "command_not_allowed"
    assert proc.spawned == []


async def test_config_wins_and_model_supplied_config_only_keys_are_ignored() -> None:
    proc = RecordingProcess()
    outcome = await dispatch(
        "run_command",
        # The model tries to set config-only fields: cwd, timeout and an env hijack.
        {"command": "echo", "args": ["hello"], "cwd": "/", "timeoutMs": 1, "env": {"LD_PRELOAD": "x.so"}},
        host=ToolHost(process=proc),
        policy=ECHO_POLICY,
        config=NodeToolConfig(parameters={"timeoutMs": 5000, "env": {"TZ": "UTC"}}),
    )
    assert outcome.ok, outcome.error
    (command, args, env, opts) = proc.spawned[0]
    assert (command, args) == ("echo", ["hello"])
    assert env == {"TZ": "UTC"}
    assert opts.timeout_ms == 5000
    assert opts.cwd is None


async def test_config_beats_input_mapping_too() -> None:
    proc = RecordingProcess()
    outcome = await dispatch(
        "run_command",
        {},
        host=ToolHost(process=proc),
        policy=ECHO_POLICY,
        config=NodeToolConfig(
            input_mapping={"command": "echo", "args": ["hello"], "timeoutMs": 1},
            parameters={"timeoutMs": 7000},
        ),
    )
    assert outcome.ok
    assert proc.spawned[0][3].timeout_ms == 7000


def test_config_only_fields_never_reach_the_llm_schema() -> None:
    for tool in BUILTIN_TOOLS:
        schema = llm_visible_schema(tool)
        visible = set(schema.get("properties", {}))
        assert not (visible & tool.config_only), tool.id
        assert not (set(schema.get("required", [])) & tool.config_only), tool.id
        # Every field of the args model is either visible or config-only.
        assert visible | tool.config_only == set(tool.args_model.model_fields), tool.id


async def test_provider_executed_call_is_refused_before_resolution() -> None:
    registry = ToolRegistry((), ToolHost())
    outcome = await registry.dispatch(
        ToolCall("no_such_tool", {}, provider_executed=True), make_ctx("no_such_tool")
    )
    # Not unknown_tool: the refusal happens before the id is even looked up.
    assert outcome.error is not None
    assert (outcome.error.code, outcome.error.reason) == ("tool_denied", "provider_executed")


async def test_unknown_id_lists_available_ids_and_is_never_fuzzy() -> None:
    outcome = await dispatch("read_fil", {"path": "x"})
    assert outcome.error is not None and outcome.error.code == "unknown_tool"
    for tool_id in ("read_file", "write_file", "run_command", "git_commit", "read_media"):
        assert tool_id in outcome.error.message


async def test_exact_match_is_case_sensitive() -> None:
    outcome = await dispatch("Read_File", {"path": "x"})
    assert outcome.error is not None and outcome.error.code == "unknown_tool"


async def test_registered_but_not_granted_is_not_granted() -> None:
    registry = ToolRegistry(BUILTIN_TOOLS, ToolHost(process=RecordingProcess()))
    ctx = make_ctx("read_file", policy=ECHO_POLICY)  # only read_file is granted
    outcome = await registry.dispatch(ToolCall("run_command", {"command": "echo", "args": ["hello"]}), ctx)
    assert outcome.error is not None
    assert (outcome.error.code, outcome.error.reason) == ("tool_denied", "not_granted")


async def test_approval_regime_without_hook_fails_closed_for_governed_calls() -> None:
    proc = RecordingProcess()
    outcome = await dispatch(
        "run_command",
        {"command": "echo", "args": ["hello"]},
        host=ToolHost(process=proc),
        policy=ECHO_POLICY,
        approval=ApprovalRegime(hook=None),
    )
    assert outcome.error is not None
    assert (outcome.error.code, outcome.error.reason) == ("tool_denied", "no_approval_hook")
    assert proc.spawned == []


class _Echo(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = ""


def _echo_tool(policy: PolicyClass, calls: list[Any]) -> ToolDef:
    async def run(args: _Echo, host: ToolHost, ctx: Any) -> Any:
        calls.append(args.text)
        return {"echo": args.text}

    return ToolDef(id="echo", description="echo", args_model=_Echo, dispatch=run, policy=policy)


async def test_read_only_call_is_not_governed_by_the_regime() -> None:
    calls: list[Any] = []
    outcome = await dispatch(
        "echo", {"text": "hi"}, tools=(_echo_tool(PolicyClass(fs_scoped=True), calls),),
        approval=ApprovalRegime(hook=None),
    )
    assert outcome.ok and calls == ["hi"]


async def test_hook_sees_masked_args_and_its_refusal_is_user_rejected() -> None:
    asked: list[ApprovalRequest] = []

    async def hook(req: ApprovalRequest) -> ApprovalDecision:
        asked.append(req)
        return ApprovalDecision(approved=False, reason="not now")

    calls: list[Any] = []
    outcome = await dispatch(
        "echo", {"text": "token=sk-ant-api03-abcdefghijklmnopqrstuv"},
        tools=(_echo_tool(PolicyClass(egress="http"), calls),),
        approval=ApprovalRegime(hook=hook),
    )
    assert calls == []
    assert outcome.error is not None and outcome.error.reason == "user_rejected"
    assert asked[0].action_class is ActionClass.EGRESS
    assert "sk-ant" not in str(asked[0].masked_args)


async def test_auto_approved_class_skips_the_hook() -> None:
    async def hook(req: ApprovalRequest) -> ApprovalDecision:
        raise AssertionError("the hook must not be asked")

    calls: list[Any] = []
    outcome = await dispatch(
        "echo", {"text": "x"}, tools=(_echo_tool(PolicyClass(os=True), calls),),
        approval=ApprovalRegime(hook=hook, auto_approve=frozenset({ActionClass.OS})),
    )
    assert outcome.ok and calls == ["x"]


async def test_git_commit_needs_a_gate() -> None:
    proc = RecordingProcess()
    outcome = await dispatch("git_commit", {"message": "x"}, host=ToolHost(process=proc))
    assert outcome.error is not None
    assert (outcome.error.code, outcome.error.reason) == ("tool_denied", "gate_required")
    ok = await dispatch("git_commit", {"message": "x"}, host=ToolHost(process=proc), gate_approved=True)
    assert ok.ok
    assert proc.spawned[0][1][-2:] == ["-m", "x"]


async def test_missing_capability_is_tool_unavailable() -> None:
    outcome = await dispatch("read_clipboard", {})
    assert outcome.error is not None and outcome.error.code == "tool_unavailable"


async def test_schema_miss_is_correctable_invalid_args() -> None:
    outcome = await dispatch("read_file", {"path": 3})
    assert outcome.error is not None
    assert (outcome.error.code, outcome.error.reason) == ("invalid_args", "schema")
    assert "path" in outcome.error.message
    unknown_key = await dispatch("git_status", {"subcommand": "diff", "args": ["--no-index", "/etc/passwd"]})
    assert unknown_key.error is not None and unknown_key.error.code == "invalid_args"


async def test_host_exception_becomes_tool_failed_without_the_path() -> None:
    async def run(args: _Echo, host: ToolHost, ctx: Any) -> Any:
        raise FileNotFoundError(2, "No such file or directory", "/home/someone/secret/place")

    tool = ToolDef(id="echo", description="e", args_model=_Echo, dispatch=run)
    outcome = await dispatch("echo", {}, tools=(tool,))
    assert outcome.error is not None and outcome.error.code == "tool_failed"
    assert "/home/someone" not in outcome.error.message
    assert outcome.error.retryable


async def test_cancellation_wins_and_is_reported() -> None:
    started = asyncio.Event()

    async def run(args: _Echo, host: ToolHost, ctx: Any) -> Any:
        started.set()
        await asyncio.sleep(3600)

    tool = ToolDef(id="echo", description="e", args_model=_Echo, dispatch=run)
    bus = EventBus(clock=lambda: 0.0, run_id="r1")
    registry = ToolRegistry((tool,), ToolHost())
    task = asyncio.create_task(registry.dispatch(ToolCall("echo", {}), make_ctx("echo", bus=bus)))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    result = bus.history[-1]
    assert result["type"] == "agent:tool_result"
    assert result["error"]["code"] == "cancelled"


async def test_events_are_gap_free_and_paired() -> None:
    bus = EventBus(clock=lambda: 1_700_000_000.0, run_id="r1")
    calls: list[Any] = []
    registry = ToolRegistry((_echo_tool(PolicyClass(), calls),), ToolHost())
    ctx = make_ctx("echo", bus=bus)
    await registry.dispatch(ToolCall("echo", {"text": "a"}), ctx)
    await registry.dispatch(ToolCall("nope", {}), ctx)
    assert [e["sequenceNumber"] for e in bus.history] == [0, 1, 2, 3]
    assert [e["type"] for e in bus.history] == ["agent:tool_call", "agent:tool_result"] * 2
    assert bus.history[0]["toolInput"] == {"text": "a"}
    assert bus.history[0]["timestamp"] == "2023-11-14T22:13:20.000Z"
    assert bus.history[1]["success"] is True
    assert bus.history[3]["error"]["code"] == "unknown_tool"


async def test_output_mapping_reads_the_full_result() -> None:
    async def run(args: _Echo, host: ToolHost, ctx: Any) -> Any:
        return {"stdout": "x" * 200_000, "nested": {"items": [1, 2, 3]}}

    tool = ToolDef(id="echo", description="e", args_model=_Echo, dispatch=run)
    outcome = await dispatch(
        "echo", {}, tools=(tool,),
        config=NodeToolConfig(output_mapping={"out": "stdout", "second": "nested.items[1]", "gone": "no.such"}),
    )
    assert outcome.ok and outcome.truncated
    assert outcome.mapped == {"out": "x" * 200_000, "second": 2, "gone": None}
    assert outcome.model_facing is not None and len(outcome.model_facing.encode()) <= 51_200


async def test_auto_mode_still_asks_for_a_protected_path_write() -> None:
    """The registry flags protected-path writes itself; no surface has to guess."""
    asked: list[ApprovalRequest] = []

    async def hook(req: ApprovalRequest) -> ApprovalDecision:
        asked.append(req)
        return ApprovalDecision(approved=False)

    class NoFs:
        async def write_file(self, *a: Any, **k: Any) -> Any:
            raise AssertionError("must not be written")

    regime = ApprovalRegime(hook=hook, auto_approve=frozenset({ActionClass.FS_WRITE}))
    for path in (".env", "proj/.git/hooks/pre-commit", "a/.SSH/id_rsa", ".github/workflows/ci.yml"):
        outcome = await dispatch(
            "write_file", {"path": path, "content": "x"}, host=ToolHost(fs=NoFs()),  # type: ignore[arg-type]
            approval=regime,
        )
        assert outcome.error is not None and outcome.error.reason == "user_rejected"
        assert asked[-1].protected_path and asked[-1].target == path
    # An ordinary write in the same regime is auto-approved without asking.
    count = len(asked)
    outcome = await dispatch(
        "write_file", {"path": "src/app.py", "content": "x"}, host=ToolHost(fs=NoFs()),  # type: ignore[arg-type]
        approval=regime,
    )
    assert outcome.error is not None and outcome.error.code == "tool_failed"  # reached the host
    assert len(asked) == count
