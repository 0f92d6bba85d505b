"""Input bounds: inclusive UTF-8 byte limits on the effective arguments."""

from __future__ import annotations

from typing import Any

import pytest

from relavium_desktop.engine.errors import InvalidArgsError
from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.tools import bounds
from relavium_desktop.engine.tools.tooldef import NodeToolConfig, ToolPolicy
from tests.engine.tools.doubles import RecordingProcess
from tests.helpers import dispatch

MiB = 1024 * 1024
# (text unit, its UTF-8 size): ASCII, 2-byte é, 3-byte €, 4-byte 😀.
UNITS = [("a", 1), ("é", 2), ("€", 3), ("😀", 4)]


def _fill(limit: int, unit: str, size: int) -> str:
    """A string of exactly ``limit`` UTF-8 bytes made mostly of ``unit``."""
    count, rest = divmod(limit, size)
    return unit * count + "a" * rest


async def _call(tool: str, args: dict[str, Any], **kw: Any):
    return await dispatch(tool, args, host=ToolHost(process=RecordingProcess()), **kw)


def _is_too_large(outcome: Any) -> bool:
    return outcome.error is not None and (outcome.error.code, outcome.error.reason) == (
        "invalid_args",
        "too_large",
    )


@pytest.mark.parametrize(("unit", "size"), UNITS)
def test_write_file_content_limit_is_inclusive(unit: str, size: int) -> None:
    from relavium_desktop.engine.tools.builtins.write_file import TOOL

    bound = TOOL.byte_bounds["content"]
    at_limit = _fill(8 * MiB, unit, size)
    assert bounds.utf8_len(at_limit) == 8 * MiB
    bounds.check_string("write_file", "content", at_limit, bound)
    with pytest.raises(InvalidArgsError) as exc:
        bounds.check_string("write_file", "content", at_limit + "a", bound)
    assert getattr(exc.value, "reason", None) == "too_large"


@pytest.mark.parametrize(("unit", "size"), UNITS)
async def test_http_body_limit_through_the_pipeline(unit: str, size: int) -> None:
    policy = ToolPolicy(allowed_domains=("example.com",))
    body = _fill(MiB, unit, size)
    ok = await _call("http_request", {"url": "https://example.com/", "method": "POST", "body": body}, policy=policy)
    # At the limit the bound passes (the missing egress host is what stops it).
    assert ok.error is not None and ok.error.code == "tool_unavailable"
    over = await _call(
        "http_request", {"url": "https://example.com/", "method": "POST", "body": body + "a"}, policy=policy
    )
    assert _is_too_large(over)


@pytest.mark.parametrize(("unit", "size"), UNITS)
async def test_git_commit_message_limit(unit: str, size: int) -> None:
    msg = _fill(16 * 1024, unit, size)
    ok = await _call("git_commit", {"message": msg}, gate_approved=True)
    assert ok.ok, ok.error
    over = await _call("git_commit", {"message": msg + "a"}, gate_approved=True)
    assert _is_too_large(over)


async def test_git_commit_message_must_not_be_empty() -> None:
    out = await _call("git_commit", {"message": ""}, gate_approved=True)
    assert out.error is not None and out.error.code == "invalid_args"


@pytest.mark.parametrize(("unit", "size"), UNITS)
def test_run_command_entry_and_total_limits(unit: str, size: int) -> None:
    from relavium_desktop.engine.tools.builtins.run_command import TOOL

    vb = TOOL.vector_bounds["args"]
    entry = _fill(16 * 1024, unit, size)
    bounds.check_vector("run_command", "args", [entry], vb)  # exactly 16 KiB passes
    with pytest.raises(InvalidArgsError) as exc:
        bounds.check_vector("run_command", "args", [entry + "a"], vb)
    assert getattr(exc.value, "reason", None) == "too_large"
    # Four full entries are exactly 64 KiB in total; one more byte anywhere fails.
    bounds.check_vector("run_command", "args", [entry] * 4, vb)
    with pytest.raises(InvalidArgsError):
        bounds.check_vector("run_command", "args", [entry] * 4 + ["a"], vb)


async def test_run_command_limits_through_the_pipeline() -> None:
    args = ["x" * (16 * 1024)] * 4
    policy = ToolPolicy(allowed_command_globs=("echo *",))
    over = await _call("run_command", {"command": "echo", "args": [*args, "y"]}, policy=policy)
    assert _is_too_large(over)
    # A tool node's input_mapping is bounded exactly like model args.
    mapped = await _call(
        "run_command", {}, policy=policy,
        config=NodeToolConfig(input_mapping={"command": "echo", "args": ["z" * (16 * 1024 + 1)]}),
    )
    assert _is_too_large(mapped)


async def test_257_args_fail_before_any_member_is_scanned(monkeypatch: pytest.MonkeyPatch) -> None:
    scanned: list[str] = []
    real = bounds.utf8_len

    def spy(text: str) -> int:
        scanned.append(text)
        return real(text)

    monkeypatch.setattr(bounds, "utf8_len", spy)
    out = await _call("run_command", {"command": "echo", "args": ["é" * 5000] * 257})
    assert _is_too_large(out)
    assert "256" in out.error.message  # type: ignore[union-attr]
    assert scanned == []


async def test_empty_and_omitted_values_are_valid() -> None:
    policy = ToolPolicy(allowed_commands=("echo",))
    assert (await _call("run_command", {"command": "echo"}, policy=policy)).ok
    assert (await _call("run_command", {"command": "echo", "args": []}, policy=policy)).ok
    empty_arg = await _call("run_command", {"command": "echo", "args": [""]}, policy=ToolPolicy(allowed_commands=("echo ''",)))
    assert empty_arg.ok, empty_arg.error


def test_lone_surrogates_are_counted_not_crashed() -> None:
    lone = "\ud800"
    assert bounds.utf8_len(lone) == 3
    assert bounds.utf8_len("a" + lone + "b") == 5
    from relavium_desktop.engine.tools.builtins.git_commit import TOOL

    bound = TOOL.byte_bounds["message"]
    bounds.check_string("git_commit", "message", lone * (16 * 1024 // 3), bound)
    with pytest.raises(InvalidArgsError):
        bounds.check_string("git_commit", "message", lone * (16 * 1024 // 3 + 1), bound)


def test_bounds_apply_only_to_the_listed_fields() -> None:
    from relavium_desktop.engine.tools.builtins.notify import TOOL

    assert TOOL.byte_bounds == {} and TOOL.vector_bounds == {}
