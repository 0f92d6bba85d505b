"""The OS sandbox (Landlock) on real processes: real programs still work, escapes fail, failures say why.

Everything here runs real children under the real kernel's Landlock (this
machine and CI offer ABI 7).  The escape matrix through the real CLI is in
tests/cli/test_sandbox_escape_cli.py; these tests cover the mechanism and the
programs that must keep working: git, pytest, an npm script, server-everything.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from relavium_desktop.engine.host import SpawnOptions, ToolHost
from relavium_desktop.host.mcp import McpHost
from relavium_desktop.host.mcp.hooks import McpClientHooks
from relavium_desktop.host.output_store import FileOutputStore
from relavium_desktop.host.process import ProcessHost, workspace_cwd_resolver
from relavium_desktop.host.process.sandbox import (
    ABI_CAP_VAR,
    SandboxSpec,
    SandboxUnavailable,
    build_spec,
    explain,
    preexec_for,
    support,
)
from tests.fixtures.mcp_everything import everything_entry
from tests.helpers import dispatch

VENV_BIN = str(Path(sys.executable).parent)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    ws = tmp_path / "project"
    ws.mkdir()
    return ws


@pytest.fixture
def phost(project: Path, relavium_home: Path) -> ProcessHost:
    # The venv first, so `python -m pytest` finds pytest; the host's default mode is strict.
    return ProcessHost(
        store=FileOutputStore(relavium_home / "runs"),
        resolve_cwd=workspace_cwd_resolver(project),
        search_path=[VENV_BIN, "/usr/bin", "/bin"],
    )


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def test_this_kernel_enforces_every_mode() -> None:
    found = support()
    assert found.fs and found.tcp and found.scoping, found.missing
    assert found.unavailable_for("strict") == [] and found.missing == []


def test_an_older_kernel_refuses_strict_and_names_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ABI_CAP_VAR, "3")
    found = support()
    assert (found.abi, found.fs, found.tcp, found.scoping) == (3, True, False, False)
    assert "TCP connect/bind rules (Landlock ABI 4)" in found.missing
    with pytest.raises(SandboxUnavailable, match=r"strict sandbox cannot be enforced .*TCP connect/bind"):
        preexec_for(SandboxSpec(mode="strict"))
    confinement = preexec_for(build_spec("network", workspace=None))  # filesystem rules alone can still run
    assert confinement is not None
    confinement.close()
    assert preexec_for(SandboxSpec(mode="off")) is None


async def test_run_command_writes_the_workspace_and_its_private_tmp_only(phost: ProcessHost, project: Path,
                                                                         tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    script = (
        'import os, tempfile\n'
        'open("inside.txt", "w").write("ok")\n'
        'tmp = tempfile.mkstemp()[1]\n'
        'print(tmp.startswith(os.environ["TMPDIR"]), os.environ["TMPDIR"])\n'
        f'open({str(outside)!r}, "w").write("escaped")\n'
    )
    result = await phost.spawn("python", ["-c", script], {}, SpawnOptions(run_id="r1"))
    assert (project / "inside.txt").read_text() == "ok"
    first, private = result["stdout"].split()
    assert first == "True" and private.startswith(("/tmp/relavium-cmd-", "/var/tmp/"))
    assert not Path(private).exists()  # removed after the call
    assert result["exitCode"] == 1 and "Permission denied" in result["stderr"]
    assert not outside.exists()
    assert result["sandbox"].startswith(f"sandbox (strict): {outside} is outside the folders this process may use")
    assert "set sandbox: off" in result["sandbox"]


async def test_the_policys_off_runs_unconfined(phost: ProcessHost, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    result = await phost.spawn("python", ["-c", f"open({str(outside)!r}, 'w').write('x')"], {},
                               SpawnOptions(run_id="r1", sandbox="off"))
    assert result["exitCode"] == 0 and outside.read_text() == "x"
    assert "ran unconfined" in result["sandbox"]  # the opt-in is said with the result


async def test_pytest_runs_sandboxed_in_a_temporary_project(phost: ProcessHost, project: Path) -> None:
    (project / "test_thing.py").write_text(
        "import pathlib\n\ndef test_writes_here(tmp_path):\n    (tmp_path / 'f').write_text('x')\n"
        "    pathlib.Path('made-by-test').write_text('y')\n\ndef test_math():\n    assert 1 + 1 == 2\n"
    )
    result = await phost.spawn("python", ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0"], {},
                               SpawnOptions(run_id="r1", timeout_ms=120_000))
    assert result["exitCode"] == 0, result
    assert "2 passed" in result["stdout"] and (project / "made-by-test").read_text() == "y"


async def test_an_npm_script_test_runs_sandboxed(phost: ProcessHost, project: Path) -> None:
    assert shutil.which("npm"), "npm is not installed; run 'bash scripts/setup'"
    (project / "package.json").write_text(json.dumps({"name": "p", "version": "1.0.0",
                                                      "scripts": {"test": "node check.js"}}))
    (project / "check.js").write_text(
        "const fs = require('fs'); const assert = require('assert');\n"
        "assert.strictEqual(1 + 1, 2); fs.writeFileSync('npm-ran.txt', 'ok'); console.log('checked');\n"
    )
    result = await phost.spawn("npm", ["test"], {}, SpawnOptions(run_id="r1", timeout_ms=120_000))
    assert result["exitCode"] == 0, result
    assert "checked" in result["stdout"] and (project / "npm-ran.txt").read_text() == "ok"


async def test_git_status_and_commit_work_sandboxed_and_a_hook_cannot_write_outside(
    phost: ProcessHost, project: Path, tmp_path: Path
) -> None:
    git(project, "init", "-q", "-b", "main")
    git(project, "config", "user.email", "t@example.com")
    git(project, "config", "user.name", "T")
    (project / "a.txt").write_text("a\n")
    git(project, "add", "a.txt")
    outside = tmp_path / "hook-escape.txt"
    hook = project / ".git" / "hooks" / "post-commit"
    hook.write_text(f"#!/bin/sh\necho escaped > {outside}\necho inside > .git/hook-ran\n")
    hook.chmod(0o755)
    th = ToolHost(process=phost)
    status = await dispatch("git_status", {}, host=th)
    assert status.ok and "a.txt" in status.result["stdout"], status
    out = await dispatch("git_commit", {"message": "first"}, host=th, gate_approved=True)
    assert out.ok and out.result["exitCode"] == 0, out.result
    assert git(project, "log", "--format=%s") == "first\n"
    assert (project / ".git" / "hook-ran").read_text() == "inside\n"  # the hook ran, inside the repository
    assert not outside.exists()  # and could write nowhere else


def test_a_sandbox_that_cannot_be_applied_in_the_child_fails_the_spawn(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    confinement = preexec_for(build_spec("strict", workspace=tmp_path))
    assert confinement is not None
    confinement.close()  # the child now restricts itself with a closed descriptor: EBADF
    with pytest.raises(subprocess.SubprocessError):
        subprocess.run(["/bin/sh", "-c", f"touch {marker}"], preexec_fn=confinement, check=False)
    assert not marker.exists()  # never ran unconfined


def test_explain_names_the_rule_and_how_to_allow_it(tmp_path: Path) -> None:
    spec = build_spec("strict", workspace=tmp_path / "ws")
    home = Path.home()
    assert explain(0, "Permission denied: /etc/x", spec) is None  # a success needs no words
    assert explain(1, "Permission denied", build_spec("off", workspace=None)) is None
    assert explain(1, "something unrelated broke", spec) is None
    note = explain(1, f"sh: 1: cannot create {tmp_path}/other/x: Permission denied", spec)
    assert note is not None and f"{tmp_path}/other/x is outside the folders this process may use" in note
    note = explain(2, "sh: 1: cannot create /usr/lib/planted: Permission denied", spec)  # readable, not writable
    assert note is not None and "/usr/lib/planted is outside the folders this process may write" in note
    note = explain(1, f"PermissionError: [Errno 13] Permission denied: '{home}/.aws/credentials'", spec)
    assert note is not None and "protected credential location" in note and "sandbox: off" in note
    note = explain(1, "ConnectionRefusedError: [Errno 111] Connection refused", spec)
    assert note == "sandbox (strict): network connections are blocked; set sandbox: network for this tool to allow them"
    assert explain(1, "PermissionError: [Errno 13] Permission denied (connect)",
                   build_spec("network", workspace=None)) is None


async def test_server_everything_runs_in_the_strict_sandbox(relavium_home: Path, tmp_path: Path) -> None:
    async def approve(_request: object) -> bool:
        return True

    # Declared by a workflow: strict by default (no network, writes only its folder and temp).
    host = McpHost(home=relavium_home, default_cwd=tmp_path, search_path=("/usr/bin", "/bin"),
                   servers={"everything": everything_entry()}, hooks=McpClientHooks(consent=approve))
    try:
        assert host.origin("everything") == "workflow"
        result = await host.call("everything", "echo", {"message": "sandboxed hello"})
    finally:
        await host.aclose()
    text = "".join(p.get("text", "") for p in result["content"])
    assert "sandboxed hello" in text


def test_a_workspace_holding_credential_folders_keeps_them_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Landlock cannot subtract a folder from a granted one: the home-as-workspace is granted child by child.
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE KEY\n")
    (home / "notes").mkdir()
    monkeypatch.setenv("HOME", str(home))
    confinement = preexec_for(build_spec("strict", workspace=home))
    assert confinement is not None
    script = (
        "import os\n"
        "open('notes/n.txt', 'w').write('ok')\n"
        "for action in (lambda: open('.ssh/id_ed25519').read(), lambda: os.listdir('.ssh'),\n"
        "               lambda: open('.ssh/authorized_keys', 'w')):\n"
        "    try:\n        action(); print('open')\n"
        "    except PermissionError:\n        print('denied')\n"
    )
    try:
        done = subprocess.run([sys.executable, "-c", script], cwd=home, preexec_fn=confinement,
                              capture_output=True, text=True, check=False)
    finally:
        confinement.close()
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["denied", "denied", "denied"]
    assert (home / "notes" / "n.txt").read_text() == "ok" and not (home / ".ssh" / "authorized_keys").exists()


def test_the_stdio_launcher_never_starts_a_server_it_cannot_confine(tmp_path: Path) -> None:
    from relavium_desktop.host.process.sandbox import LAUNCHER

    marker = tmp_path / "ran"
    done = subprocess.run([sys.executable, "-I", "-S", str(LAUNCHER), "987", "/bin/sh", "-c", f"touch {marker}"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 126 and "the sandbox could not be applied" in done.stderr
    assert not marker.exists()
