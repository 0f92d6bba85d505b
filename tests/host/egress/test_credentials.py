"""A credentialRef is resolved in the host, carried to the server, and leaks nowhere.

Runs against the real Secret Service (gnome-keyring on the private bus) and
the real local TLS server.
"""

from __future__ import annotations

import json
import logging
import uuid
from pathlib import Path

import pytest

from relavium_desktop.engine.events import EventBus
from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.tools.tooldef import NodeToolConfig, ToolPolicy
from relavium_desktop.host.egress import EgressHost
from relavium_desktop.host.output_store import FileOutputStore
from relavium_desktop.host.secrets import SecretStore
from tests.fixtures.desktop_bus import desktop_bus_env_fixture, desktop_bus_fixture  # noqa: F401
from tests.helpers import dispatch
from tests.host.egress.conftest import ScriptedResolver, TestServer, test_check


def _scan_home(home: Path, needle: bytes) -> list[Path]:
    return [p for p in home.rglob("*") if p.is_file() and needle in p.read_bytes()]


@pytest.mark.parametrize("path", ["/json", "/echo", "/status/500"])
async def test_credential_reaches_the_server_and_nothing_else(
    desktop_bus_env: dict[str, str], server: TestServer, store: FileOutputStore,
    relavium_home: Path, caplog: pytest.LogCaptureFixture, path: str,
) -> None:
    name = f"api-{uuid.uuid4().hex[:6]}"
    value = f"sk-test-{uuid.uuid4().hex}"
    SecretStore().set(name, value)
    host = EgressHost(output_store=store, secrets=SecretStore(), ssl_context=server.client_context(),
                      resolver=ScriptedResolver(), check=test_check)
    bus = EventBus(clock=lambda: 0.0, run_id="run-cred")
    caplog.set_level(logging.DEBUG)
    out = await dispatch(
        "http_request", {"url": server.url(path)},
        host=ToolHost(egress=host, output_store=store),
        policy=ToolPolicy(allowed_domains=server.allowed),
        config=NodeToolConfig(parameters={"credentialRef": f"secret:{name}"}),
        bus=bus, run_id="run-cred",
    )
    assert out.ok, out.error
    # The server received it, as a Bearer Authorization header.
    assert server.requests[0]["headers"]["Authorization"] == f"Bearer {value}"
    # ... and it is nowhere else: events, result (even when echoed back), logs, data dir.
    assert value not in json.dumps(bus.history)
    assert value not in json.dumps(out.to_json())
    assert value not in caplog.text
    assert _scan_home(relavium_home, value.encode()) == []
    if path == "/echo":
        assert f"[secret:{name}]" in out.result["body"]


async def test_credential_is_not_sent_to_another_origin_on_redirect(
    desktop_bus_env: dict[str, str], server: TestServer, store: FileOutputStore,
) -> None:
    name = f"api-{uuid.uuid4().hex[:6]}"
    SecretStore().set(name, "sk-redirect-secret-0000")
    host = EgressHost(output_store=store, secrets=SecretStore(), ssl_context=server.client_context(),
                      resolver=ScriptedResolver(), check=test_check)
    from urllib.parse import quote

    target = server.url("/json", "other.example.test")
    out = await dispatch(
        "http_request", {"url": server.url(f"/redirect?to={quote(target, safe='')}")},
        host=ToolHost(egress=host), policy=ToolPolicy(allowed_domains=server.allowed),
        config=NodeToolConfig(parameters={"credentialRef": f"secret:{name}", "followRedirects": True}),
    )
    assert out.ok, out.error
    assert server.requests[0]["headers"]["Authorization"] == "Bearer sk-redirect-secret-0000"
    assert "Authorization" not in server.requests[1]["headers"]


async def test_missing_secret_is_a_clear_error(
    desktop_bus_env: dict[str, str], server: TestServer, store: FileOutputStore,
) -> None:
    host = EgressHost(output_store=store, secrets=SecretStore(), ssl_context=server.client_context(),
                      resolver=ScriptedResolver(), check=test_check)
    out = await dispatch(
        "http_request", {"url": server.url("/json")}, host=ToolHost(egress=host),
        policy=ToolPolicy(allowed_domains=server.allowed),
        config=NodeToolConfig(parameters={"credentialRef": "secret:never-set-xyz"}),
    )
    assert out.error is not None and out.error.code == "tool_failed"
    assert "secret 'never-set-xyz' is not set" in out.error.message
    assert server.requests == []


async def test_model_cannot_supply_the_credential_ref(server: TestServer, store: FileOutputStore) -> None:
    host = EgressHost(output_store=store, ssl_context=server.client_context(),
                      resolver=ScriptedResolver(), check=test_check)
    out = await dispatch("http_request", {"url": server.url("/json"), "credentialRef": "secret:other"},
                         host=ToolHost(egress=host), policy=ToolPolicy(allowed_domains=server.allowed))
    assert out.ok and "Authorization" not in server.requests[0]["headers"]
