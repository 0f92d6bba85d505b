"""Real MCP servers for the MCP host tests: the fixture script over stdio and over HTTP."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil
import pytest

from relavium_desktop.host.mcp import McpHost
from relavium_desktop.host.mcp.hooks import ConsentRequest, McpClientHooks
from relavium_desktop.host.process import default_search_path

FIXTURE = str(Path(__file__).resolve().parents[2] / "fixtures" / "mcp_server.py")
PYTHON = sys.executable


def stdio_entry(**extra: Any) -> dict[str, Any]:
    return {"transport": "stdio", "command": PYTHON, "args": [FIXTURE, "stdio"], **extra}


async def approve(request: ConsentRequest) -> bool:
    return True


def make_host(home: Path, servers: dict[str, Any] | None = None, **kw: Any) -> McpHost:
    """A host over ``servers`` (workflow origin); tests not about consent get a hook that approves."""
    if "hooks" not in kw:
        kw["hooks"] = McpClientHooks(consent=approve)
    return McpHost(home=home, default_cwd=home, search_path=default_search_path(), servers=servers, **kw)


def result_text(result: dict) -> str:
    """The text parts of an MCP tool result, joined."""
    return "".join(p["text"] for p in result["content"] if p["type"] == "text")


def process_gone(pid: int) -> bool:
    """The process has exited (a zombie awaiting its reap counts as gone)."""
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


@dataclass
class HttpServer:
    port: int
    proc: subprocess.Popen[bytes]

    def url(self, host: str = "127.0.0.1", scheme: str = "http") -> str:
        return f"{scheme}://{host}:{self.port}/mcp"


def start_http_server(tmp: Path, token: str | None = None) -> HttpServer:
    port_file = tmp / f"port-{time.monotonic_ns()}"
    env = {k: v for k, v in os.environ.items() if k != "MCP_FIXTURE_TOKEN"}
    if token:
        env["MCP_FIXTURE_TOKEN"] = token
    proc = subprocess.Popen([PYTHON, FIXTURE, "http", str(port_file)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while not port_file.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail("the MCP fixture HTTP server did not start")
        time.sleep(0.05)
    return HttpServer(int(port_file.read_text()), proc)


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[HttpServer]:
    server = start_http_server(tmp_path)
    yield server
    server.proc.kill()
    server.proc.wait()
