"""open_host owns a host's MCP servers: discovered in the block, stopped when it ends, however it ends.

Real parts: the fixture MCP server (tests/fixtures/mcp_server.py) started
over stdio from the data folder's mcp.yaml, its process looked up by pid;
the real host assembly and registry.  Each test checks the server process is
gone after the block -- the thing a user would notice as a leftover process.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from relavium_desktop.application.app import Application
from relavium_desktop.application.hosting import HostedTools, open_host, own_host
from relavium_desktop.application.mcp import cli_mcp_hooks
from relavium_desktop.application.paths import AppPaths
from relavium_desktop.application.tools import surface_host, tool_registry
from tests.host.mcp.conftest import process_gone, result_text, stdio_entry

# Every test here starts a real MCP server process.
pytestmark = pytest.mark.spawns


def _configure(home: Path, **servers: dict[str, Any]) -> None:
    (home / "mcp.yaml").write_text(json.dumps({"servers": servers}), encoding="utf-8")  # JSON is YAML


@pytest.fixture
def app(relavium_home: Path) -> Iterator[Application]:
    _configure(relavium_home, calc=stdio_entry())
    application = Application(AppPaths(relavium_home))
    yield application
    application.close()


async def _server_pid(hosted: HostedTools) -> int:
    return int(result_text(await hosted.host.mcp_or_absent().call("calc", "pid", {})))


async def test_discovered_tools_are_offered_and_the_server_stops_when_the_block_ends(
    app: Application, tmp_path: Path
) -> None:
    async with open_host(app, tmp_path, surface="workflow", discover="all", timeout_s=30) as hosted:
        assert hosted.server_names() == ["calc"]
        assert hosted.discovery.problems() == []
        assert [r.server for r in hosted.discovery.reports if r.ok] == ["calc"]
        assert hosted.registry.get("mcp_calc_add") is not None
        assert "mcp_calc_add" in {t.id for t in hosted.discovery.tools}
        assert hosted.registry.get("read_file") is not None  # the built-ins are there too
        pid = await _server_pid(hosted)
        assert not process_gone(pid)
    assert process_gone(pid)


async def test_an_exception_in_the_block_still_stops_the_server(app: Application, tmp_path: Path) -> None:
    pid = 0
    with pytest.raises(RuntimeError, match="the surface failed"):
        async with open_host(app, tmp_path, surface="workflow", discover=["calc"], timeout_s=30) as hosted:
            pid = await _server_pid(hosted)
            raise RuntimeError("the surface failed")
    assert pid and process_gone(pid)


async def test_cancelling_the_task_in_the_block_still_stops_the_server(app: Application, tmp_path: Path) -> None:
    started: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    async def surface() -> None:
        async with open_host(app, tmp_path, surface="workflow", discover="all", timeout_s=30) as hosted:
            started.set_result(await _server_pid(hosted))
            await asyncio.sleep(3600)  # a turn the user stops

    task = asyncio.create_task(surface())
    pid = await asyncio.wait_for(started, 60)
    assert not process_gone(pid)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert process_gone(pid)


async def test_without_discovery_no_server_starts_until_the_block_asks(app: Application, tmp_path: Path) -> None:
    async with open_host(app, tmp_path, surface="workflow") as hosted:
        assert hosted.discovery.reports == [] and hosted.registry.get("mcp_calc_add") is None
        found = await hosted.discover(["calc"], timeout_s=30)
        assert [t.id for t in found.tools if t.id == "mcp_calc_add"] == ["mcp_calc_add"]
        assert hosted.registry.get("mcp_calc_add") is not None
        pid = await _server_pid(hosted)
    assert process_gone(pid)


async def test_a_workflow_server_without_consent_is_a_problem_line_and_never_starts(
    app: Application, tmp_path: Path
) -> None:
    marker = tmp_path / "started"
    # A server that would leave a file behind if it ever ran.
    entry = {"transport": "stdio", "command": sys.executable,
             "args": ["-c", f"open({str(marker)!r}, 'w').close()"]}
    hooks = cli_mcp_hooks((), project=tmp_path, consents=app.consents)
    async with open_host(app, tmp_path, surface="workflow", mcp_servers={"wf": entry}, mcp_hooks=hooks,
                         discover=["wf"], timeout_s=30) as hosted:
        [problem] = hosted.discovery.problems()
        assert problem.startswith("MCP server wf: unavailable:") and "--approve-mcp wf" in problem
    assert not marker.exists()


async def test_owning_a_registry_built_beforehand_stops_its_servers(app: Application, tmp_path: Path) -> None:
    registry = tool_registry(surface_host(tmp_path, surface="workflow", home=app.paths.home), home=app.paths.home)
    async with own_host(registry) as hosted:
        await hosted.discover("all", timeout_s=30)
        assert hosted.registry is registry and registry.get("mcp_calc_add") is not None
        pid = await _server_pid(hosted)
    assert process_gone(pid)
