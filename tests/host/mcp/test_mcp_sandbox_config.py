"""``sandbox:`` on an mcp.yaml server entry (and a workflow's own servers), read from real files.

A server from the user's own mcp.yaml runs in the ``network`` sandbox unless its
entry says otherwise; one a workflow declares runs ``strict``.  A bad value, or a
sandbox on an http server (not a process we start), fails loudly with its entry.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from relavium_desktop.host.mcp.config import McpConfigError, StdioServer, load_servers, parse_servers


def write_config(home: Path, body: str) -> None:
    (home / "mcp.yaml").write_text("servers:\n" + body, encoding="utf-8")


def stdio(servers: dict[str, object], name: str) -> StdioServer:
    entry = servers[name]
    assert isinstance(entry, StdioServer)
    return entry


def test_user_servers_default_to_network_and_keep_an_explicit_mode(tmp_path: Path) -> None:
    write_config(
        tmp_path,
        (
            "  plain: {transport: stdio, command: my-server}\n"
            "  tight: {transport: stdio, command: my-server, sandbox: strict}\n"
            "  open: {transport: stdio, command: my-server, sandbox: 'off'}\n"
            "  net: {transport: stdio, command: my-server, sandbox: network}\n"
        ),
    )
    servers = load_servers(tmp_path)
    assert stdio(servers, "plain").sandbox is None
    assert stdio(servers, "plain").sandbox_for("user") == "network"
    assert stdio(servers, "tight").sandbox_for("user") == "strict"
    assert stdio(servers, "open").sandbox_for("user") == "off"
    assert stdio(servers, "net").sandbox_for("user") == "network"


def test_workflow_declared_servers_default_to_strict() -> None:
    servers = parse_servers(
        {
            "wf": {"transport": "stdio", "command": "their-server"},
            "wf-net": {"transport": "stdio", "command": "their-server", "sandbox": "network"},
        },
        source="workflow mcp servers",
    )
    assert stdio(servers, "wf").sandbox_for("workflow") == "strict"
    assert stdio(servers, "wf-net").sandbox_for("workflow") == "network"


def test_a_bad_mode_names_the_entry_and_the_choices(tmp_path: Path) -> None:
    write_config(tmp_path, "  files: {transport: stdio, command: my-server, sandbox: loose}\n")
    with pytest.raises(McpConfigError) as caught:
        load_servers(tmp_path)
    text = str(caught.value)
    assert "servers.files" in text and "sandbox" in text
    assert "'strict', 'network' or 'off'" in text
    assert "loose" not in text  # the value is never echoed (it could be a pasted secret elsewhere)


def test_an_http_server_refuses_a_sandbox(tmp_path: Path) -> None:
    write_config(tmp_path, "  docs: {transport: http, url: 'https://docs.example/mcp', sandbox: strict}\n")
    with pytest.raises(McpConfigError, match="sandbox applies to stdio servers only"):
        load_servers(tmp_path)


def test_consent_to_a_confined_server_is_not_consent_to_a_looser_one() -> None:
    from relavium_desktop.host.mcp.fingerprint import stdio_fingerprint

    def fingerprint(**extra: object) -> str:
        entry = {"transport": "stdio", "command": "their-server", "args": ["--x"], **extra}
        return stdio_fingerprint(stdio(parse_servers({"wf": entry}, source="workflow mcp servers"), "wf"))

    # Unset is the workflow default (strict): a consent given before sandbox existed still holds.
    assert fingerprint() == fingerprint(sandbox="strict")
    # Loosening the sandbox is a different launch: the user is asked again.
    assert len({fingerprint(), fingerprint(sandbox="network"), fingerprint(sandbox="off")}) == 3
