"""Consent before the first spawn of a workflow-declared stdio MCP server, with real processes.

A refused server must never run at all: the fixture writes a marker file the
moment its process starts, so "not spawned" is checked on disk, not assumed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from relavium_desktop.engine.errors import ToolDeniedError
from relavium_desktop.host.mcp.config import parse_servers
from relavium_desktop.host.mcp.fingerprint import stdio_fingerprint
from relavium_desktop.host.mcp.hooks import ConsentRequest, McpClientHooks
from tests.host.mcp.conftest import FIXTURE, PYTHON, make_host, stdio_entry


class Consent:
    """A consent hook that records what it was asked and answers a fixed way."""

    def __init__(self, answer: bool) -> None:
        self.answer = answer
        self.asked: list[ConsentRequest] = []

    async def __call__(self, request: ConsentRequest) -> bool:
        self.asked.append(request)
        return self.answer


def _marked(marker: Path, **extra: Any) -> dict[str, Any]:
    return stdio_entry(env={"MCP_FIXTURE_MARKER": str(marker)}, **extra)


async def test_consent_is_asked_once_per_host_and_the_request_names_the_launch(
    relavium_home: Path, tmp_path: Path
) -> None:
    consent = Consent(True)
    marker = relavium_home / "started"  # the server's working folder: a sandboxed server writes nowhere else
    host = make_host(relavium_home, {"fx": _marked(marker)}, hooks=McpClientHooks(consent=consent))
    try:
        [report] = await host.discover(timeout_s=30)
        await host.call("fx", "add", {"a": 1, "b": 1})
        await host.aclose()  # the next call spawns the server again
        await host.call("fx", "add", {"a": 2, "b": 2})
    finally:
        await host.aclose()
    assert report.ok, report.error
    assert len(consent.asked) == 1
    [asked] = consent.asked
    assert asked.server == "fx" and asked.command == PYTHON and asked.args == (FIXTURE, "stdio")
    assert asked.env_names == ("MCP_FIXTURE_MARKER",)
    assert asked.cwd == str(relavium_home)
    assert asked.fingerprint == stdio_fingerprint(parse_servers({"fx": _marked(marker)})["fx"])  # type: ignore[arg-type]


async def test_a_changed_fingerprint_is_asked_again(relavium_home: Path, tmp_path: Path) -> None:
    consent = Consent(True)
    marker = relavium_home / "started"  # the server's working folder: a sandboxed server writes nowhere else
    hooks = McpClientHooks(consent=consent)
    first = make_host(relavium_home, {"fx": _marked(marker)}, hooks=hooks)
    changed = make_host(relavium_home, {"fx": _marked(marker, args=[FIXTURE, "stdio", "--extra"])}, hooks=hooks)
    try:
        await first.call("fx", "echo", {"text": "a"})
        await changed.call("fx", "echo", {"text": "b"})
    finally:
        await first.aclose()
        await changed.aclose()
    assert [r.args for r in consent.asked] == [(FIXTURE, "stdio"), (FIXTURE, "stdio", "--extra")]
    assert consent.asked[0].fingerprint != consent.asked[1].fingerprint


@pytest.mark.parametrize("hooks", [McpClientHooks(consent=Consent(False)), McpClientHooks(), None])
async def test_refused_or_unanswerable_consent_never_spawns_the_server(
    relavium_home: Path, tmp_path: Path, hooks: McpClientHooks | None
) -> None:
    marker = relavium_home / "started"  # the server's working folder: a sandboxed server writes nowhere else
    host = make_host(relavium_home, {"fx": _marked(marker)}, hooks=hooks)
    try:
        with pytest.raises(ToolDeniedError) as err:
            await host.call("fx", "add", {"a": 1, "b": 1})
        [report] = await host.discover(timeout_s=30)
    finally:
        await host.aclose()
    assert not marker.exists()  # the process never started
    message = str(err.value)
    assert "'fx'" in message and "--approve-mcp fx" in message and "consent prompt" in message
    assert err.value.reason in {"user_rejected", "no_approval_hook"}
    assert not report.ok and "--approve-mcp fx" in (report.error or "")
    if hooks is not None and isinstance(hooks.consent, Consent):
        assert len(hooks.consent.asked) == 1  # the refusal is remembered for this host, not re-asked


async def test_user_servers_in_mcp_yaml_never_ask(relavium_home: Path, tmp_path: Path) -> None:
    marker = relavium_home / "started"  # the server's working folder: a sandboxed server writes nowhere else
    (relavium_home / "mcp.yaml").write_text(
        f"servers:\n  mine:\n    transport: stdio\n    command: {PYTHON}\n    args: [{FIXTURE}, stdio]\n"
        f"    env: {{MCP_FIXTURE_MARKER: {marker}}}\n"
    )
    consent = Consent(False)
    host = make_host(relavium_home, hooks=McpClientHooks(consent=consent))
    try:
        result = await host.call("mine", "add", {"a": 20, "b": 22})
    finally:
        await host.aclose()
    assert result["content"][0]["text"] == "42"
    assert consent.asked == []
    assert marker.exists()


def test_fingerprint_covers_command_args_env_names_and_cwd_but_not_env_values() -> None:
    def fp(**entry: Any) -> str:
        return stdio_fingerprint(parse_servers({"s": {"transport": "stdio", "command": "srv", **entry}})["s"])  # type: ignore[arg-type]

    base = fp(args=["a"], env={"TOKEN": "one"}, cwd="/srv")
    assert fp(args=["a"], env={"TOKEN": "two"}, cwd="/srv") == base  # a value is not part of it (may be secret)
    assert fp(args=["b"], env={"TOKEN": "one"}, cwd="/srv") != base
    assert fp(args=["a"], env={"OTHER": "one"}, cwd="/srv") != base
    assert fp(args=["a"], env={"TOKEN": "one"}, cwd="/tmp") != base
    assert fp(command="other", args=["a"], env={"TOKEN": "one"}, cwd="/srv") != base
    assert len(base) == 64 and int(base, 16) >= 0


async def test_a_failing_consent_prompt_is_no_approval_and_is_asked_again(relavium_home: Path, tmp_path: Path) -> None:
    marker = relavium_home / "started"  # the server's working folder: a sandboxed server writes nowhere else
    calls: list[str] = []

    async def broken(request: ConsentRequest) -> bool:
        calls.append(request.server)
        raise RuntimeError("the dialog could not be shown")

    host = make_host(relavium_home, {"fx": _marked(marker)}, hooks=McpClientHooks(consent=broken))
    for _ in range(2):
        with pytest.raises(ToolDeniedError):
            await host.call("fx", "add", {"a": 1, "b": 1})
    await host.aclose()
    assert calls == ["fx", "fx"]
    assert not marker.exists()


async def test_time_spent_reading_the_consent_prompt_is_not_the_servers_deadline(
    relavium_home: Path, tmp_path: Path
) -> None:
    import asyncio

    deadline_s = 10.0

    async def slow_yes(request: ConsentRequest) -> bool:
        await asyncio.sleep(deadline_s + 0.5)  # the person reads the prompt for longer than the deadline
        return True

    marker = relavium_home / "started"  # the server's working folder: a sandboxed server writes nowhere else
    host = make_host(relavium_home, {"fx": _marked(marker)}, hooks=McpClientHooks(consent=slow_yes))
    try:
        [report] = await host.discover(timeout_s=deadline_s)
    finally:
        await host.aclose()
    # Counting the prompt against the deadline would have reported "did not answer within 10 s".
    assert report.ok, report.error
    assert marker.exists() and [t.name for t in report.tools if t.name == "add"] == ["add"]
