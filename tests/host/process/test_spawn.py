"""ProcessHost.spawn against real programs: shell-free argv, built env, lookup, cwd."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from relavium_desktop.engine.errors import DenyReason, ToolDeniedError, ToolFailedError
from relavium_desktop.engine.host import SpawnOptions
from relavium_desktop.host.output_store import FileOutputStore
from relavium_desktop.host.process import ProcessHost, default_search_path, workspace_cwd_resolver
from relavium_desktop.host.process.environment import POSIX_BASE_NAMES
from tests.host.process.conftest import alive, wait_for_files, wait_until_gone

OPTS = SpawnOptions(run_id="run-1")


def env_lines(stdout: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in stdout.splitlines() if "=" in line)


async def test_metacharacters_reach_the_program_literally(host: ProcessHost, workspace: Path) -> None:
    args = ["%s\n", "a;b", "x|y", "$(id)", "`id`", "> out.txt", "&& echo pwned", "*", "~"]
    result = await host.spawn("printf", args, {}, OPTS)
    assert result["exitCode"] == 0
    assert result["stdout"].splitlines() == args[1:]
    assert not (workspace / "out.txt").exists()
    assert list(workspace.iterdir()) == []


async def test_child_env_is_built_not_copied(host: ProcessHost, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RELAVIUM_TEST_SECRET", "hunter2")
    monkeypatch.setenv("LD_PRELOAD", "/nonexistent/evil.so")
    monkeypatch.setenv("PATH", "/tmp/attacker-bin:" + os.environ["PATH"])
    listed = SpawnOptions(run_id="run-1", allowed_env=("FOO",))
    result = await host.spawn("env", [], {"FOO": "bar", "LANG": "en_US.UTF-8"}, listed)
    env = env_lines(result["stdout"])
    # Plus the orphan watcher's marker (a random per-process token, no secret): see host/process/guard.py.
    assert set(env) == {*POSIX_BASE_NAMES, "FOO", "RELAVIUM_CHILD_GUARD"}
    assert env["FOO"] == "bar" and env["LANG"] == "en_US.UTF-8"
    assert env["PATH"] == os.pathsep.join(host.search_path)
    assert "hunter2" not in result["stdout"] and "/tmp/attacker-bin" not in result["stdout"]


async def test_host_refuses_a_hijack_name_even_without_the_registry(host: ProcessHost) -> None:
    with pytest.raises(ToolDeniedError) as info:
        await host.spawn("env", [], {"LD_PRELOAD": "/tmp/x.so"}, OPTS)
    assert info.value.reason == DenyReason.ENV_NOT_ALLOWED
    # Listing a hijack name does not lift it; an unlisted harmless name is refused by the host too.
    with pytest.raises(ToolDeniedError):
        await host.spawn("env", [], {"gconv_path": "/tmp/x"}, SpawnOptions(run_id="run-1", allowed_env=("gconv_path",)))
    with pytest.raises(ToolDeniedError) as info:
        await host.spawn("env", [], {"FOO": "bar"}, OPTS)
    assert "allowedEnv" in info.value.message


async def test_exit_code_and_stderr_are_reported(host: ProcessHost) -> None:
    result = await host.spawn("sh", ["-c", "echo out; echo err >&2; exit 3"], {}, OPTS)
    assert result["exitCode"] == 3
    assert result["stdout"] == "out\n" and result["stderr"] == "err\n"
    assert isinstance(result["durationMs"], int) and result["durationMs"] >= 0
    assert "stdoutSpill" not in result and "stderrSpill" not in result


async def test_missing_command_names_it_without_the_search_path(host: ProcessHost) -> None:
    with pytest.raises(ToolFailedError) as info:
        await host.spawn("relavium-no-such-command", [], {}, OPTS)
    message = info.value.message
    assert "relavium-no-such-command" in message and "not found" in message
    for folder in host.search_path:
        assert folder not in message


async def test_workspace_file_cannot_shadow_an_allowed_command(
    host: ProcessHost, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A model that can write files plants ./env and puts "." on the app's PATH.
    fake = workspace / "env"
    fake.write_text("#!/bin/sh\necho HIJACKED\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.chdir(workspace)
    monkeypatch.setenv("PATH", ".:" + os.environ["PATH"])
    result = await host.spawn("env", [], {}, OPTS)
    assert "HIJACKED" not in result["stdout"]
    # an explicit relative path is the file itself (the allowlist matched that spelling)
    result = await host.spawn("./env", [], {}, OPTS)
    assert result["stdout"] == "HIJACKED\n"


def test_relative_and_missing_search_path_entries_are_dropped(tmp_path: Path) -> None:
    configured = os.pathsep.join([".", "bin", "", str(tmp_path / "missing"), str(tmp_path), "/usr/bin/"])
    assert default_search_path(configured) == (str(tmp_path), "/usr/bin")


async def test_configured_search_path_is_the_only_lookup(tmp_path: Path, relavium_home: Path) -> None:
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "hello").write_text("#!/bin/sh\necho hi from the configured folder\n")
    (tools / "hello").chmod(0o755)
    host = ProcessHost(
        store=FileOutputStore(relavium_home / "runs"),
        resolve_cwd=workspace_cwd_resolver(tmp_path),
        search_path=default_search_path(str(tools)),
    )
    result = await host.spawn("hello", [], {}, OPTS)
    assert result["stdout"] == "hi from the configured folder\n"
    with pytest.raises(ToolFailedError, match="'env' was not found"):
        await host.spawn("env", [], {}, OPTS)


async def test_cwd_is_resolved_inside_the_workspace(host: ProcessHost, workspace: Path) -> None:
    (workspace / "sub").mkdir()
    result = await host.spawn("pwd", [], {}, SpawnOptions(run_id="run-1", cwd="sub"))
    assert result["stdout"].strip() == os.path.realpath(workspace / "sub")
    result = await host.spawn("pwd", [], {}, OPTS)
    assert result["stdout"].strip() == os.path.realpath(workspace)


@pytest.mark.parametrize("cwd", ["..", "/", "/etc", "sub/../..", "link-out"])
async def test_cwd_outside_the_workspace_is_refused(host: ProcessHost, workspace: Path, cwd: str) -> None:
    (workspace / "sub").mkdir()
    (workspace / "link-out").symlink_to("/tmp")
    with pytest.raises(ToolDeniedError) as info:
        await host.spawn("pwd", [], {}, SpawnOptions(run_id="run-1", cwd=cwd))
    assert info.value.reason == DenyReason.OUTSIDE_SCOPE


async def test_background_jobs_do_not_outlive_the_call(host: ProcessHost, workspace: Path) -> None:
    # The leader exits at once; its background sleep still holds stdout open.
    result = await host.spawn("sh", ["-c", "sleep 300 & echo $! > bg.pid; echo done"], {}, OPTS)
    assert result["exitCode"] == 0 and result["stdout"] == "done\n"
    await wait_for_files(workspace / "bg.pid")
    pid = int((workspace / "bg.pid").read_text())
    assert await wait_until_gone([pid]) == []
    assert not alive(pid)
