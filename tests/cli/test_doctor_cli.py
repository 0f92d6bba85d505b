"""``relavium doctor`` through the real CLI: the sandbox's protections, present or missing, per mode.

This machine's kernel has Landlock ABI 7 (the issue's premise); the older-kernel
report is the same binary with the host's own ABI cap (RELAVIUM_SANDBOX_ABI_CAP,
which can only lower what the probe reports), so the degraded branch is
simulated, not faked in the report code.
"""

from __future__ import annotations

from pathlib import Path

from relavium_desktop.host.process.landlock import abi_version
from tests.helpers import run_cli


def test_doctor_json_reports_this_kernels_landlock(cli_env: dict[str, str]) -> None:
    code, out, err = run_cli("doctor", "--json", env=cli_env)
    assert code == 0, err
    sandbox = out["sandbox"]
    assert sandbox["landlockAbi"] == abi_version() >= 6  # the premise for this machine
    assert sandbox["protections"] == {"filesystem": True, "tcp": True, "scoping": True}
    assert sandbox["missing"] == []
    assert {m: v["runs"] for m, v in sandbox["modes"].items()} == {
        "strict": True,
        "network": True,
        "off": True,
    }
    assert "unconfined" in sandbox["modes"]["off"]["allows"]


def test_doctor_text_names_each_protection(cli_env: dict[str, str]) -> None:
    code, out, err = run_cli("doctor", env=cli_env)
    assert code == 0, err
    assert f"Landlock ABI {abi_version()}" in out
    assert "present: filesystem rules (Landlock)" in out
    assert "present: TCP connect/bind rules" in out
    assert "strict: runs" in out and "off: runs" in out


def test_an_older_kernel_is_reported_loudly_and_strict_refuses(cli_env: dict[str, str]) -> None:
    env = {**cli_env, "RELAVIUM_SANDBOX_ABI_CAP": "3"}  # simulated: Landlock without TCP rules
    code, out, err = run_cli("doctor", "--json", env=env)
    assert code == 0, err
    sandbox = out["sandbox"]
    assert sandbox["landlockAbi"] == 3
    assert sandbox["protections"] == {"filesystem": True, "tcp": False, "scoping": False}
    assert "TCP connect/bind rules (Landlock ABI 4)" in sandbox["missing"]
    assert sandbox["modes"]["strict"]["runs"] is False
    assert sandbox["modes"]["strict"]["missing"] == ["TCP connect/bind rules (Landlock ABI 4)"]
    assert sandbox["modes"]["network"]["runs"] is True
    code, text, _ = run_cli("doctor", env=env)
    assert "MISSING: TCP connect/bind rules" in text
    assert "strict: REFUSES to run" in text and "sandbox: off" in text


def test_no_landlock_at_all_refuses_both_confined_modes(cli_env: dict[str, str]) -> None:
    env = {**cli_env, "RELAVIUM_SANDBOX_ABI_CAP": "0"}  # simulated: a kernel without Landlock
    code, out, err = run_cli("doctor", "--json", env=env)
    assert code == 0, err
    modes = out["sandbox"]["modes"]
    assert (modes["strict"]["runs"], modes["network"]["runs"], modes["off"]["runs"]) == (False, False, True)
    assert "filesystem rules (Landlock)" in modes["network"]["missing"]
    code, text, _ = run_cli("doctor", env=env)
    assert "Landlock is not available" in text


def test_doctor_lists_each_mcp_server_sandbox_and_says_off_loudly(cli_env: dict[str, str]) -> None:
    home = Path(cli_env["RELAVIUM_HOME"])
    (home / "mcp.yaml").write_text(
        "servers:\n"
        "  files: {transport: stdio, command: my-server}\n"
        "  wide: {transport: stdio, command: my-server, sandbox: 'off'}\n"
        "  tight: {transport: stdio, command: my-server, sandbox: strict}\n"
        "  docs: {transport: http, url: 'https://docs.example/mcp'}\n",
        encoding="utf-8",
    )
    code, out, err = run_cli("doctor", "--json", env=cli_env)
    assert code == 0, err
    assert out["sandbox"]["mcpServers"] == [
        {"name": "files", "mode": "network", "explicit": False},
        {"name": "tight", "mode": "strict", "explicit": True},
        {"name": "wide", "mode": "off", "explicit": True},
    ]
    code, text, err = run_cli("doctor", env=cli_env)
    assert "mcp server files: network (the default for your mcp.yaml servers)" in text
    assert "mcp server wide: off -- runs UNCONFINED" in text


def test_a_broken_mcp_yaml_is_named_and_the_report_still_prints(cli_env: dict[str, str]) -> None:
    (Path(cli_env["RELAVIUM_HOME"]) / "mcp.yaml").write_text("servers: [", encoding="utf-8")
    code, out, err = run_cli("doctor", "--json", env=cli_env)
    assert code == 0
    assert out["sandbox"]["mcpServers"] == [] and "landlockAbi" in out["sandbox"]
    assert "mcp.yaml" in err
