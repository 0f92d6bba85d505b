"""An HTTP MCP server's credentialRef: resolved in the host, sent as a header, leaked nowhere.

Real Secret Service (gnome-keyring on a private bus), real MCP server that
answers 401 unless the Bearer token matches, real assembly (mcp.yaml in
RELAVIUM_HOME, build_host).
"""

from __future__ import annotations

import json
import logging
import uuid
from pathlib import Path

import pytest

from relavium_desktop.engine.events import EventBus
from relavium_desktop.host.assembly import HostSettings, build_host
from relavium_desktop.host.secrets import SecretStore
from tests.fixtures.desktop_bus import desktop_bus_env_fixture, desktop_bus_fixture  # noqa: F401
from tests.helpers import dispatch
from tests.host.mcp.conftest import start_http_server


def _scan_home(home: Path, needle: bytes) -> list[Path]:
    return [p for p in home.rglob("*") if p.is_file() and needle in p.read_bytes()]


async def test_credential_reaches_the_server_and_nothing_else(
    desktop_bus_env: dict[str, str], relavium_home: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    name = f"mcp-{uuid.uuid4().hex[:6]}"
    value = f"sk-mcp-{uuid.uuid4().hex}"
    SecretStore().set(name, value)
    server = start_http_server(tmp_path, token=value)
    try:
        (relavium_home / "mcp.yaml").write_text(
            "servers:\n"
            f"  docs:\n    transport: http\n    url: {server.url()}\n    allowLocal: true\n"
            f"    credentialRef: secret:{name}\n"
            f"  nocred:\n    transport: http\n    url: {server.url()}\n    allowLocal: true\n"
        )
        host = build_host(HostSettings(workspace=tmp_path, home=relavium_home))
        bus = EventBus(clock=lambda: 0.0, run_id="run-cred")
        caplog.set_level(logging.DEBUG)
        out = await dispatch("mcp_call", {"server": "docs", "tool": "echo", "arguments": {"text": "ok"}},
                             host=host, bus=bus, run_id="run-cred")
        assert out.ok, out.error
        # Without the credential the same server refuses: the header is what got us in.
        refused = await dispatch("mcp_call", {"server": "nocred", "tool": "echo", "arguments": {"text": "ok"}},
                                 host=host, bus=bus, run_id="run-cred")
        assert refused.error is not None
        assert refused.error.code == "tool_failed"
        assert "'nocred'" in refused.error.message
        assert host.mcp is not None
        await host.mcp.aclose()  # type: ignore[attr-defined]
        assert value not in json.dumps(bus.history)
        assert value not in json.dumps(out.to_json())
        assert value not in json.dumps(refused.to_json())
        assert value not in caplog.text
        assert _scan_home(relavium_home, value.encode()) == []
    finally:
        server.proc.kill()
        server.proc.wait()


async def test_missing_secret_is_a_clear_failure(desktop_bus_env: dict[str, str], relavium_home: Path,
                                                 tmp_path: Path) -> None:
    (relavium_home / "mcp.yaml").write_text(
        "servers:\n  docs:\n    transport: http\n    url: http://127.0.0.1:9/mcp\n    allowLocal: true\n"
        "    credentialRef: secret:never-set-mcp\n"
    )
    host = build_host(HostSettings(workspace=tmp_path, home=relavium_home))
    out = await dispatch("mcp_call", {"server": "docs", "tool": "echo"}, host=host)
    assert out.error is not None
    assert out.error.code == "tool_failed"
    assert "secret 'never-set-mcp' is not set" in out.error.message
