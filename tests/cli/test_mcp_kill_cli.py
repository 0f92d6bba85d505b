"""kill -9 of ``relavium`` while an MCP stdio server works: no server, and none of its children, survives.

A server is a child like ``run_command``'s: the process guard's watcher ends
its process group and every process carrying the guard's marker when the
``relavium`` process dies, however it died.  Real CLI, real server
(tests/fixtures/mcp_server.py), real SIGKILL.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import psutil

from tests.conftest import relavium_cmd
from tests.host.mcp.conftest import process_gone, stdio_entry


def _wait(predicate, timeout_s: float) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return bool(predicate())


def test_kill_9_of_the_cli_mid_call_leaves_no_server_and_no_escaped_child(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path,
) -> None:
    (relavium_home / "mcp.yaml").write_text(json.dumps({"servers": {"fx": stdio_entry(timeoutMs=120_000)}}))
    pid_file = tmp_path / "escaped.pid"
    cli = subprocess.Popen(
        [*relavium_cmd(), "tool", "call", "mcp_fx_spawn_escaped", "--workspace", str(tmp_path), "--json",
         "--args", json.dumps({"pid_file": str(pid_file), "then_sleep": 100})],
        env=cli_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        assert _wait(lambda: pid_file.exists() and pid_file.read_text().strip() != "", 60), "the tool never ran"
        escaped = int(pid_file.read_text())
        servers = [p.pid for p in psutil.Process(cli.pid).children(recursive=True)
                   if "mcp_server.py" in " ".join(p.cmdline())]
        assert servers, "the server is not a child of the CLI"
        os.kill(cli.pid, signal.SIGKILL)
        cli.wait(timeout=10)
        assert _wait(lambda: all(process_gone(pid) for pid in [escaped, *servers]), 10), (
            "an MCP server or the child it moved to its own session outlived kill -9 of relavium")
    finally:
        if cli.poll() is None:
            cli.kill()
            cli.wait()
