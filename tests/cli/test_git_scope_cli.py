"""``relavium tool call git_status|git_commit`` see only the file scope of the call's tier.

The real console script against real repositories: a workspace that is a
plain folder inside a larger repository is "not a git repository" (never the
parent's status and its ``.env``), a ``.git`` file pointing outside is not
followed, a protected file's content is withheld while its path is listed,
and git_commit pathspecs outside the scope or into a protected file are
refused.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run_cli

SECRET = "API_TOKEN=sk-live-5b1e0c9d7a22"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"},
    ).stdout


def init_repo(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    git(folder, "init", "-q", "-b", "main")
    git(folder, "config", "user.name", "Test User")
    git(folder, "config", "user.email", "test@example.invalid")
    return folder


def tool(
    cli_env: dict[str, str], cwd: Path, tool_id: str, workspace: Path, tier: str, *extra: str
) -> tuple[int, Any, str]:
    return run_cli(
        "tool",
        "call",
        tool_id,
        "--workspace",
        str(workspace),
        "--tier",
        tier,
        *extra,
        "--json",
        env=cli_env,
        cwd=cwd,
    )


def no_secret(*texts: Any) -> None:
    for text in texts:
        assert "sk-live" not in json.dumps(text)


@pytest.mark.parametrize("tier", ["sandboxed", "project"])
def test_a_folder_inside_a_larger_repository_never_reports_the_parent(
    cli_env: dict[str, str], tmp_path: Path, tier: str
) -> None:
    parent = init_repo(tmp_path / "parent")
    (parent / ".env").write_text("API_TOKEN=old\n")
    (parent / "ws").mkdir()
    (parent / "ws" / "notes.txt").write_text("n\n")
    git(parent, "add", "-A")
    git(parent, "commit", "-q", "-m", "initial")
    (parent / ".env").write_text(SECRET + "\n")
    for sub in ("status", "diff"):
        code, out, err = tool(
            cli_env, tmp_path, "git_status", parent / "ws", tier, "--args", json.dumps({"subcommand": sub})
        )
        assert code == 1, err
        assert out["error"]["code"] == "tool_failed"
        assert out["error"]["message"].startswith("not a git repository")
        assert ".env" not in json.dumps(out)
        no_secret(out, err)
    # read_file refuses the same file as protected, and git agrees now.
    code, out, _ = tool(cli_env, tmp_path, "read_file", parent / "ws", tier, "--args", '{"path": "../.env"}')
    assert code == 1 and out["error"]["code"] == "tool_denied"


def test_a_dot_git_file_pointing_outside_the_workspace_is_refused(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    outside = init_repo(tmp_path / "outside")
    (outside / ".env").write_text("API_TOKEN=old\n")
    git(outside, "add", "-A")
    git(outside, "commit", "-q", "-m", "initial")
    (outside / ".env").write_text(SECRET + "\n")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / ".git").write_text("gitdir: ../outside/.git\n")
    code, out, err = tool(
        cli_env, tmp_path, "git_status", ws, "sandboxed", "--args", '{"subcommand": "diff"}'
    )
    assert code == 1, err
    assert (out["error"]["code"], out["error"]["reason"]) == ("tool_denied", "outside_scope")
    assert "do not follow it" in out["error"]["message"]
    no_secret(out, err)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    ws = init_repo(tmp_path / "ws")
    (ws / ".env").write_text("API_TOKEN=old\n")
    (ws / "app.py").write_text("print('v1')\n")
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "initial")
    (ws / ".env").write_text(SECRET + "\n")
    (ws / "app.py").write_text("print('v2')\n")
    return ws


@pytest.mark.parametrize("tier", ["sandboxed", "full"])
def test_a_protected_files_diff_is_listed_with_its_content_withheld(
    cli_env: dict[str, str], tmp_path: Path, repo: Path, tier: str
) -> None:
    code, out, err = tool(cli_env, tmp_path, "git_status", repo, tier, "--args", '{"subcommand": "diff"}')
    assert code == 0, err
    stdout = out["result"]["stdout"]
    assert "diff --git a/.env b/.env" in stdout
    assert "content withheld" in stdout and "credential read floor" in stdout
    assert "+print('v2')" in stdout
    no_secret(out, err)
    # An author-pinned -p on log is filtered the same way once the change is committed.
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "rotate")
    code, out, err = tool(
        cli_env,
        tmp_path,
        "git_status",
        repo,
        tier,
        "--args",
        '{"subcommand": "log"}',
        "--config",
        '{"flags": ["-p"]}',
    )
    assert code == 0, err
    assert "rotate" in out["result"]["stdout"] and "content withheld" in out["result"]["stdout"]
    no_secret(out, err)


def test_an_author_flag_reaching_outside_the_work_tree_is_refused(
    cli_env: dict[str, str], tmp_path: Path, repo: Path
) -> None:
    (tmp_path / "elsewhere.txt").write_text(SECRET + "\n")
    code, out, err = tool(
        cli_env,
        tmp_path,
        "git_status",
        repo,
        "sandboxed",
        "--args",
        '{"subcommand": "diff"}',
        "--config",
        json.dumps({"flags": ["app.py", str(tmp_path / "elsewhere.txt")]}),
    )
    assert code == 1, err
    assert (out["error"]["code"], out["error"]["reason"]) == ("tool_denied", "outside_scope")
    no_secret(out, err)


@pytest.mark.parametrize(
    ("pathspec", "reason"),
    [
        (".env", "protected_path"),
        ("../outside.txt", "outside_scope"),
        ("sub/../../outside.txt", "outside_scope"),
        ("link/x.txt", "outside_scope"),
    ],
)
def test_git_commit_pathspecs_outside_the_scope_or_into_protected_files_are_refused(
    cli_env: dict[str, str], tmp_path: Path, repo: Path, pathspec: str, reason: str
) -> None:
    git(repo, "add", "-A")
    (repo / "sub").mkdir()
    (repo / "link").symlink_to(tmp_path)
    args = json.dumps({"message": "by tool", "pathspecs": ["app.py", pathspec]})
    code, out, err = tool(
        cli_env, tmp_path, "git_commit", repo, "sandboxed", "--args", args, "--gate-approved"
    )
    assert code == 1, err
    assert (out["error"]["code"], out["error"]["reason"]) == ("tool_denied", reason)
    assert pathspec in out["error"]["message"]
    assert git(repo, "log", "--format=%s").splitlines() == ["initial"]
    # The in-scope pathspec alone commits.
    args = json.dumps({"message": "by tool", "pathspecs": ["app.py"]})
    code, out, err = tool(
        cli_env, tmp_path, "git_commit", repo, "sandboxed", "--args", args, "--gate-approved"
    )
    assert code == 0, err
    assert git(repo, "log", "--format=%s").splitlines() == ["by tool", "initial"]
