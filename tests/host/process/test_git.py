"""git_status / git_commit against real temporary repositories."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from relavium_desktop.engine.errors import DenyReason, ErrorCode, InvalidReason
from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.tools.tooldef import NodeToolConfig
from relavium_desktop.host.process import ProcessHost
from tests.helpers import dispatch
from tests.host.process.conftest import git


@pytest.fixture
def th(host: ProcessHost) -> ToolHost:
    return ToolHost(process=host)


def head_files(repo: Path, rev: str = "HEAD") -> dict[str, str]:
    names = git(repo, "ls-tree", "-r", "--name-only", rev).split("\n")
    return {n: git(repo, "show", f"{rev}:./{n}") for n in names if n}


async def test_status_log_diff_work(repo: Path, th: ToolHost) -> None:
    (repo / "a.txt").write_text("a2\n")
    out = await dispatch("git_status", {"subcommand": "status"}, host=th)
    assert out.ok and out.result["exitCode"] == 0 and "a.txt" in out.result["stdout"]
    out = await dispatch("git_status", {"subcommand": "diff"}, host=th)
    assert out.ok and "-a1\n+a2" in out.result["stdout"]
    out = await dispatch("git_status", {"subcommand": "log"}, host=th)
    assert out.ok and "initial" in out.result["stdout"] and "Test User" in out.result["stdout"]


async def test_author_pinned_flags_come_from_config(repo: Path, th: ToolHost) -> None:
    (repo / "a.txt").write_text("a2\n")
    out = await dispatch(
        "git_status", {"subcommand": "diff"}, host=th, config=NodeToolConfig(parameters={"flags": ["--stat"]})
    )
    assert out.ok and "a.txt | 2 +-" in out.result["stdout"]


async def test_model_supplied_args_are_invalid(repo: Path, th: ToolHost) -> None:
    out = await dispatch(
        "git_status", {"subcommand": "diff", "args": ["--no-index", "/etc/passwd", "x"]}, host=th
    )
    assert out.error is not None and out.error.code is ErrorCode.INVALID_ARGS
    out = await dispatch("git_status", {"subcommand": "--no-index"}, host=th)
    assert out.error is not None and out.error.code is ErrorCode.INVALID_ARGS


async def test_model_supplied_flags_are_dropped(repo: Path, th: ToolHost) -> None:
    out = await dispatch(
        "git_status", {"subcommand": "diff", "flags": ["--no-index", "/etc/passwd", "x"]}, host=th
    )
    assert out.ok and "root:" not in out.result["stdout"]


async def test_repo_config_cannot_make_git_run_programs(repo: Path, th: ToolHost) -> None:
    # A checked-out .git/config or .gitattributes that would run code on status/diff.
    marker = repo.parent / "pwned"
    git(repo, "config", "core.fsmonitor", f"touch {marker}-fsmonitor; false")
    git(repo, "config", "diff.external", f"sh -c 'touch {marker}-extdiff'")
    git(repo, "config", "diff.evil.textconv", f"sh -c 'touch {marker}-textconv; cat'")
    git(repo, "config", "core.pager", f"sh -c 'touch {marker}-pager; cat'")
    git(repo, "config", "credential.helper", f"!touch {marker}-cred")
    (repo / ".gitattributes").write_text("*.txt diff=evil\n")
    (repo / "a.txt").write_text("a2\n")
    for sub in ("status", "diff", "log"):
        out = await dispatch("git_status", {"subcommand": sub}, host=th, config=NodeToolConfig(parameters={"flags": ["-p"]} if sub == "log" else {}))
        assert out.ok, out.error
    assert sorted(p.name for p in repo.parent.iterdir() if p.name.startswith("pwned")) == []


async def test_commit_without_gate_is_refused(repo: Path, th: ToolHost) -> None:
    out = await dispatch("git_commit", {"message": "x"}, host=th)
    assert out.error is not None and out.error.reason == DenyReason.GATE_REQUIRED
    assert git(repo, "rev-list", "--count", "HEAD").strip() == "1"


async def test_commit_commits_exactly_the_index_and_never_stages(repo: Path, th: ToolHost) -> None:
    (repo / "a.txt").write_text("a-staged\n")
    git(repo, "add", "a.txt")
    (repo / "a.txt").write_text("a-working-tree\n")  # unstaged on top
    (repo / "b.txt").write_text("b-unstaged\n")
    (repo / "new.txt").write_text("untracked\n")
    out = await dispatch("git_commit", {"message": "commit staged"}, host=th, gate_approved=True)
    assert out.ok and out.result["exitCode"] == 0, out.result
    assert head_files(repo) == {"a.txt": "a-staged\n", "b.txt": "b1\n"}
    assert git(repo, "log", "-1", "--format=%s%n%an").splitlines() == ["commit staged", "Test User"]
    assert (repo / "a.txt").read_text() == "a-working-tree\n"  # working tree untouched
    assert " M b.txt" in git(repo, "status", "--porcelain")


async def test_pathspecs_limit_the_commit_to_staged_content(repo: Path, th: ToolHost) -> None:
    (repo / "a.txt").write_text("a-staged\n")
    (repo / "b.txt").write_text("b-staged\n")
    git(repo, "add", "a.txt", "b.txt")
    (repo / "a.txt").write_text("a-working-tree\n")
    out = await dispatch(
        "git_commit", {"message": "only a", "pathspecs": ["a.txt"]}, host=th, gate_approved=True
    )
    assert out.ok and out.result["exitCode"] == 0, out.result
    # a.txt's *staged* content is committed (not the working tree: no --only staging)
    assert head_files(repo) == {"a.txt": "a-staged\n", "b.txt": "b1\n"}
    # b.txt stays staged, a.txt's working-tree edit stays unstaged
    status = git(repo, "status", "--porcelain").splitlines()
    assert "M  b.txt" in status and " M a.txt" in status


async def test_pathspec_deletions_are_committed(repo: Path, th: ToolHost) -> None:
    git(repo, "rm", "-q", "b.txt")
    out = await dispatch(
        "git_commit", {"message": "drop b", "pathspecs": ["b.txt"]}, host=th, gate_approved=True
    )
    assert out.ok and out.result["exitCode"] == 0, out.result
    assert head_files(repo) == {"a.txt": "a1\n"}


async def test_dashdash_amend_is_a_path_not_an_option(repo: Path, th: ToolHost) -> None:
    before = git(repo, "rev-parse", "HEAD").strip()
    # nothing staged under "--amend": no commit, and certainly no amend
    out = await dispatch(
        "git_commit", {"message": "try amend", "pathspecs": ["--amend"]}, host=th, gate_approved=True
    )
    assert out.ok and out.result["exitCode"] != 0
    assert git(repo, "rev-parse", "HEAD").strip() == before
    # a file literally named --amend is committed as a path, on top of HEAD
    (repo / "--amend").write_text("odd name\n")
    git(repo, "add", "--", "--amend")
    out = await dispatch(
        "git_commit", {"message": "--amend", "pathspecs": ["--amend"]}, host=th, gate_approved=True
    )
    assert out.ok and out.result["exitCode"] == 0, out.result
    assert git(repo, "rev-parse", "HEAD~1").strip() == before
    assert git(repo, "log", "-1", "--format=%s").strip() == "--amend"
    assert head_files(repo)["--amend"] == "odd name\n"


async def test_pathspecs_are_literal_not_globs(repo: Path, th: ToolHost) -> None:
    (repo / "a.txt").write_text("a-staged\n")
    git(repo, "add", "a.txt")
    out = await dispatch("git_commit", {"message": "glob", "pathspecs": ["*.txt"]}, host=th, gate_approved=True)
    assert out.ok and out.result["exitCode"] != 0
    assert git(repo, "rev-list", "--count", "HEAD").strip() == "1"


async def test_hooks_run_with_the_built_environment(
    repo: Path, th: ToolHost, host: ProcessHost, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RELAVIUM_TEST_SECRET", "hunter2")
    env_file = repo / ".git" / "hook-env.txt"  # inside the repository: the sandboxed git writes nowhere else
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\nenv > {env_file}\n")
    hook.chmod(0o755)
    (repo / "a.txt").write_text("a2\n")
    git(repo, "add", "a.txt")
    out = await dispatch("git_commit", {"message": "hooked"}, host=th, gate_approved=True)
    assert out.ok and out.result["exitCode"] == 0, out.result
    seen = dict(line.split("=", 1) for line in env_file.read_text().splitlines() if "=" in line)
    assert "RELAVIUM_TEST_SECRET" not in seen and "hunter2" not in env_file.read_text()
    assert seen["PATH"].split(os.pathsep)[-len(host.search_path):] == list(host.search_path)
    assert seen["GIT_TERMINAL_PROMPT"] == "0" and seen["GIT_CONFIG_GLOBAL"] == os.devnull


@pytest.mark.parametrize(
    ("message", "reason"),
    [("", InvalidReason.SCHEMA), ("x" * (16 * 1024 + 1), InvalidReason.TOO_LARGE)],
)
async def test_commit_message_bounds(repo: Path, th: ToolHost, message: str, reason: str) -> None:
    out = await dispatch("git_commit", {"message": message}, host=th, gate_approved=True)
    assert out.error is not None and out.error.code is ErrorCode.INVALID_ARGS and out.error.reason == reason


async def test_message_at_the_limit_commits(repo: Path, th: ToolHost) -> None:
    (repo / "a.txt").write_text("a2\n")
    git(repo, "add", "a.txt")
    out = await dispatch("git_commit", {"message": "é" * 8192}, host=th, gate_approved=True)
    assert out.ok and out.result["exitCode"] == 0
