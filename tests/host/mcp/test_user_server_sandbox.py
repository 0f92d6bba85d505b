"""A server from the user's own mcp.yaml may use its package manager's cache; a workflow's may not.

Real parts: the SDK fixture server as a sandboxed child (it writes its pid to
``MCP_FIXTURE_MARKER`` as soon as it starts, so where it may write decides
whether it starts at all), a temporary home folder with a cache and a
credential folder, and the real McpHost.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from relavium_desktop.engine.errors import ToolFailedError
from tests.host.mcp.conftest import FIXTURE, PYTHON, make_host

pytestmark = pytest.mark.spawns


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".npm").mkdir(parents=True)
    (home / ".ssh").mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home


def _entry(marker: Path, **extra: object) -> dict[str, object]:
    return {"transport": "stdio", "command": PYTHON, "args": [FIXTURE, "stdio"],
            "env": {"MCP_FIXTURE_MARKER": str(marker)}, **extra}


def _user_config(relavium_home: Path, entry: dict[str, object]) -> None:
    (relavium_home / "mcp.yaml").write_text("servers:\n  mine: " + json.dumps(entry) + "\n")


async def test_a_users_server_writes_its_cache_under_the_network_sandbox(relavium_home: Path, home: Path) -> None:
    marker = home / ".npm" / "started"
    _user_config(relavium_home, _entry(marker))
    host = make_host(relavium_home)
    try:
        [report] = await host.discover(timeout_s=30)
    finally:
        await host.aclose()
    assert report.ok, report.error
    assert marker.exists()


async def test_a_users_server_still_cannot_touch_a_credential_folder(relavium_home: Path, home: Path) -> None:
    _user_config(relavium_home, _entry(home / ".ssh" / "authorized_keys"))
    host = make_host(relavium_home)
    try:
        with pytest.raises(ToolFailedError) as failed:
            await host.call("mine", "add", {"a": 1, "b": 1})
    finally:
        await host.aclose()
    assert not (home / ".ssh" / "authorized_keys").exists()
    # The failure says the sandbox may be why, and how to loosen it.
    assert "'network' sandbox" in str(failed.value) and "sandbox: off" in str(failed.value)


async def test_a_workflows_server_gets_no_cache_and_is_told_why(relavium_home: Path, home: Path) -> None:
    marker = home / ".npm" / "started"
    host = make_host(relavium_home, {"wf": _entry(marker)})
    try:
        with pytest.raises(ToolFailedError) as failed:
            await host.call("wf", "add", {"a": 1, "b": 1})
    finally:
        await host.aclose()
    assert not marker.exists()
    assert "'strict' sandbox" in str(failed.value) and "no network" in str(failed.value)
