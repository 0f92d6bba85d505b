"""git_status / git_commit see only the tool's file scope, against real repositories.

The repository search never climbs above the scope root, a ``.git`` file or
symlink pointing outside is not followed, a protected file's content is
withheld (its path may be listed), and git_commit pathspecs name only
readable paths inside the work tree.  Both scopes are exercised: the file
tools' real path policy (what the app and CLI wire in) and the workspace
fallback.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from relavium_desktop.engine.errors import DenyReason, ErrorCode
from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.tools.tooldef import NodeToolConfig
from relavium_desktop.host.fs import FsHost, PathPolicy
from relavium_desktop.host.output_store import FileOutputStore
from relavium_desktop.host.process import ProcessHost, workspace_cwd_resolver
from relavium_desktop.host.process.git_scope import PolicyGitScope
from tests.helpers import dispatch
from tests.host.process.conftest import git

SECRET = "API_TOKEN=sk-live-7f3a9c2e41b8"


def init_repo(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    git(folder, "init", "-q", "-b", "main")
    git(folder, "config", "user.name", "Test User")
    git(folder, "config", "user.email", "test@example.invalid")
    return folder


def commit_all(repo: Path, message: str = "initial") -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


@pytest.fixture(params=["policy", "workspace"])
def make_host(request: pytest.FixtureRequest, relavium_home: Path) -> Any:
    """A ProcessHost over ``workspace`` with the path policy's scope (as wired) or the workspace fallback."""

    def build(workspace: Path, tier: str = "sandboxed") -> ToolHost:
        store = FileOutputStore(relavium_home / "runs")
        if request.param == "policy":
            fs = FsHost(PathPolicy.create(workspace, tier=tier))  # type: ignore[arg-type]
            host = ProcessHost(store=store, resolve_cwd=fs.resolve_cwd, git_scope=PolicyGitScope(fs.policy))
        else:
            host = ProcessHost(store=store, resolve_cwd=workspace_cwd_resolver(workspace))
        return ToolHost(process=host)

    return build


async def view(th: ToolHost, sub: str, *flags: str) -> Any:
    config = NodeToolConfig(parameters={"flags": list(flags)}) if flags else None
    return await dispatch("git_status", {"subcommand": sub}, host=th, config=config)


# -- the repository search ----------------------------------------------------------------


async def test_a_plain_folder_inside_a_larger_repository_is_not_a_repository(
    tmp_path: Path, make_host: Any
) -> None:
    parent = init_repo(tmp_path / "parent")
    (parent / ".env").write_text("API_TOKEN=old\n")
    (parent / "ws").mkdir()
    (parent / "ws" / "notes.txt").write_text("n\n")
    commit_all(parent)
    (parent / ".env").write_text(SECRET + "\n")  # modified in the parent, outside the workspace
    th = make_host(parent / "ws")
    for sub in ("status", "diff", "log"):
        out = await view(th, sub)
        assert out.error is not None and out.error.code is ErrorCode.TOOL_FAILED, sub
        assert "not a git repository" in out.error.message
        assert "never look above the allowed folders" in out.error.message
        assert "sk-live" not in out.error.message


async def test_the_search_stops_at_the_scope_root_not_at_the_working_folder(
    tmp_path: Path, make_host: Any
) -> None:
    # The workspace is the repository: found, and its status is the workspace's own.
    ws = init_repo(tmp_path / "ws")
    (ws / "a.txt").write_text("a\n")
    commit_all(ws)
    (ws / "a.txt").write_text("b\n")
    out = await view(make_host(ws), "status", "--short")
    assert out.ok and out.result["stdout"].strip() == "M a.txt"


async def test_a_dot_git_file_pointing_outside_the_scope_is_not_followed(
    tmp_path: Path, make_host: Any
) -> None:
    outside = init_repo(tmp_path / "outside")
    (outside / "secret.txt").write_text("outside-1\n")
    commit_all(outside)
    (outside / "secret.txt").write_text("outside-2 " + SECRET + "\n")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / ".git").write_text(f"gitdir: {outside / '.git'}\n")  # like a worktree or submodule
    th = make_host(ws)
    for sub in ("status", "diff"):
        out = await view(th, sub)
        assert out.error is not None and out.error.code is ErrorCode.TOOL_DENIED, sub
        assert out.error.reason == DenyReason.OUTSIDE_SCOPE
        assert "do not follow it" in out.error.message
    # A relative pointer climbing out with '..' is the same thing.
    (ws / ".git").write_text("gitdir: ../outside/.git\n")
    out = await view(th, "diff")
    assert out.error is not None and out.error.reason == DenyReason.OUTSIDE_SCOPE
    # So is a symlinked .git.
    (ws / ".git").unlink()
    (ws / ".git").symlink_to(outside / ".git")
    out = await view(th, "status")
    assert out.error is not None and out.error.reason == DenyReason.OUTSIDE_SCOPE
    # And a gitdir inside the scope whose commondir leads out (a hand-made linked worktree).
    (ws / ".git").unlink()
    inner = ws / "gitdata"
    inner.mkdir()
    (inner / "commondir").write_text(str(outside / ".git") + "\n")
    (inner / "HEAD").write_text("ref: refs/heads/main\n")
    (ws / ".git").write_text("gitdir: gitdata\n")
    out = await view(th, "status")
    assert out.error is not None and out.error.reason == DenyReason.OUTSIDE_SCOPE
    assert "shares the git data" in out.error.message


async def test_a_real_linked_worktree_of_an_outside_repository_is_refused(
    tmp_path: Path, make_host: Any
) -> None:
    outside = init_repo(tmp_path / "outside")
    (outside / ".env").write_text("API_TOKEN=old\n")
    commit_all(outside)
    git(outside, "worktree", "add", "-q", str(tmp_path / "ws"))
    (tmp_path / "ws" / ".env").write_text(SECRET + "\n")
    out = await view(make_host(tmp_path / "ws"), "diff")
    assert out.error is not None and out.error.reason == DenyReason.OUTSIDE_SCOPE


async def test_a_nested_repository_with_an_outside_gitdir_is_never_entered(
    tmp_path: Path, make_host: Any
) -> None:
    outside = init_repo(tmp_path / "outside")
    (outside / "private.txt").write_text("p1\n")
    commit_all(outside)
    (outside / "private.txt").write_text("p2 " + SECRET + "\n")
    ws = init_repo(tmp_path / "ws")
    (ws / "a.txt").write_text("a\n")
    commit_all(ws)
    nested = ws / "nested"
    nested.mkdir()
    (nested / ".git").write_text(f"gitdir: {outside / '.git'}\n")
    # Registered as a submodule (a gitlink at the outside repository's commit), so git would enter it.
    head = git(outside, "rev-parse", "HEAD").strip()
    git(ws, "update-index", "--add", "--cacheinfo", f"160000,{head},nested")
    th = make_host(ws)
    for sub, flags in (("status", ()), ("diff", ()), ("status", ("--porcelain", "--untracked-files=all"))):
        out = await view(th, sub, *flags)
        assert out.ok, out.error
        stdout = out.result["stdout"]
        assert "private.txt" not in stdout and "sk-live" not in stdout
        assert "modified content" not in stdout and "-dirty" not in stdout  # its work tree was never read


# -- protected content ---------------------------------------------------------------------


@pytest.fixture
def secret_repo(tmp_path: Path) -> Path:
    ws = init_repo(tmp_path / "ws")
    (ws / ".env").write_text("API_TOKEN=old\n")
    (ws / "config").mkdir()
    (ws / "config" / ".env.production").write_text("DB_PASSWORD=old\n")
    (ws / ".aws").mkdir()
    (ws / ".aws" / "credentials").write_text("aws_secret_access_key=old\n")
    (ws / "app.py").write_text("print('v1')\n")
    commit_all(ws)
    (ws / ".env").write_text(SECRET + "\n")
    (ws / "config" / ".env.production").write_text("DB_PASSWORD=hunter2-prod\n")
    (ws / ".aws" / "credentials").write_text("aws_secret_access_key=wJalrXUtnFEMI\n")
    (ws / "app.py").write_text("print('v2')\n")
    return ws


def assert_withheld(stdout: str) -> None:
    for leaked in ("sk-live", "hunter2", "wJalrXUtnFEMI", "API_TOKEN=old", "DB_PASSWORD"):
        assert leaked not in stdout, leaked
    assert "diff --git a/.env b/.env" in stdout  # the path may be listed
    assert "content withheld" in stdout and "credential read floor" in stdout


async def test_a_protected_files_diff_keeps_its_path_and_loses_its_content(
    secret_repo: Path, make_host: Any
) -> None:
    th = make_host(secret_repo)
    out = await view(th, "diff")
    assert out.ok, out.error
    stdout = out.result["stdout"]
    assert_withheld(stdout)
    assert "diff --git a/config/.env.production b/config/.env.production" in stdout
    assert "diff --git a/.aws/credentials b/.aws/credentials" in stdout
    assert "-print('v1')\n+print('v2')" in stdout  # an ordinary file's diff is untouched
    status = await view(th, "status", "--short")
    assert status.ok and " M .env" in status.result["stdout"]


async def test_protected_content_is_withheld_in_every_view_and_spelling(
    secret_repo: Path, make_host: Any
) -> None:
    th = make_host(secret_repo)
    git(secret_repo, "add", "-A")
    git(secret_repo, "commit", "-q", "-m", "rotate")
    (secret_repo / "Notes.ENV").write_text("x\n")  # a look-alike that is not protected stays visible
    out = await view(th, "log", "-p")
    assert out.ok and "rotate" in out.result["stdout"]
    assert_withheld(out.result["stdout"])
    for flags in (
        ("-p", "--color=always"),
        ("-p", "--no-prefix"),
        ("--format=%s", "-p"),
        ("-p", "--word-diff"),
        ("-p", "--graph"),
        ("-p", "--graph", "--color=always"),
        ("-p", "--cc"),
    ):
        out = await view(th, "log", *flags)
        assert out.ok, (flags, out.error)
        for leaked in ("sk-live", "hunter2", "wJalrXUtnFEMI"):
            assert leaked not in out.result["stdout"], (flags, leaked)
    # A case variant of the protected name and a copy of it under another name.
    (secret_repo / ".ENV.local").write_text("TOKEN=caseleak\n")
    git(secret_repo, "add", ".ENV.local")
    (secret_repo / "copy.txt").write_text(SECRET + "\nextra\n")
    git(secret_repo, "add", "copy.txt")
    out = await view(th, "diff", "--cached", "-C", "--find-copies-harder")
    assert out.ok and "caseleak" not in out.result["stdout"]
    out = await view(th, "status", "-v")
    assert out.ok and "caseleak" not in out.result["stdout"]


async def test_a_non_ascii_protected_path_git_quotes_is_still_recognised(
    secret_repo: Path, make_host: Any
) -> None:
    folder = secret_repo / "über"
    folder.mkdir()
    (folder / ".env").write_text("K=old\n")
    commit_all(secret_repo)
    (folder / ".env").write_text("K=quoted-leak\n")
    out = await view(make_host(secret_repo), "diff")
    assert out.ok and '"a/\\303\\274ber/.env"' in out.result["stdout"]
    assert "quoted-leak" not in out.result["stdout"]


async def test_a_huge_view_is_filtered_before_it_is_spilled(secret_repo: Path, make_host: Any) -> None:
    (secret_repo / "big.txt").write_text("".join(f"line {i}\n" for i in range(20_000)))
    git(secret_repo, "add", "--intent-to-add", "big.txt")  # shows in the diff as a new file
    out = await view(make_host(secret_repo), "diff")
    assert out.ok, out.error
    result = out.result
    assert "stdoutSpill" in result, "the diff should pass the capture ceiling"
    spilled = Path(result["stdoutSpill"]["path"]).read_text()
    assert "line 19999" in spilled
    assert "sk-live" not in spilled and "hunter2" not in spilled and "content withheld" in spilled
    assert "sk-live" not in result["stdout"]


# -- author flags ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("flags", "reason"),
    [
        (("--no-index", "/etc/hostname", "app.py"), DenyReason.OUTSIDE_SCOPE),
        (("/etc/hostname", "app.py"), DenyReason.OUTSIDE_SCOPE),  # git's implicit --no-index
        (("--", "../outside"), DenyReason.OUTSIDE_SCOPE),
        (("--output=leak.txt",), DenyReason.OUTSIDE_SCOPE),
        (("--outp=leak.txt",), DenyReason.OUTSIDE_SCOPE),
        (("--submodule=diff",), DenyReason.OUTSIDE_SCOPE),
        (("--ignore-submodules=none",), DenyReason.OUTSIDE_SCOPE),
        (("--check",), DenyReason.PROTECTED_PATH),
        (("--ext-diff",), DenyReason.PROTECTED_PATH),
        (("-L", "/API_TOKEN/,+1:.env"), DenyReason.PROTECTED_PATH),
        (("-L/DB_/,+1:config/.env.production",), DenyReason.PROTECTED_PATH),
        (("--line-prefix=> ",), DenyReason.PROTECTED_PATH),
        (("-Ssk-live",), DenyReason.PROTECTED_PATH),
        (("-G", "API_TOKEN"), DenyReason.PROTECTED_PATH),
    ],
)
async def test_author_flags_that_see_past_the_scope_are_refused(
    secret_repo: Path, make_host: Any, flags: tuple[str, ...], reason: DenyReason
) -> None:
    out = await view(make_host(secret_repo), "diff", *flags)
    assert out.error is not None and out.error.code is ErrorCode.TOOL_DENIED, flags
    assert out.error.reason == reason
    assert not (secret_repo / "leak.txt").exists()


# -- git_commit pathspecs ------------------------------------------------------------------


def commits(repo: Path) -> list[str]:
    return git(repo, "log", "--format=%s").splitlines()


async def commit(th: ToolHost, *pathspecs: str) -> Any:
    return await dispatch(
        "git_commit", {"message": "by tool", "pathspecs": list(pathspecs)}, host=th, gate_approved=True
    )


async def test_commit_pathspecs_outside_the_scope_or_into_protected_files_are_refused(
    secret_repo: Path, tmp_path: Path, make_host: Any
) -> None:
    th = make_host(secret_repo)
    git(secret_repo, "add", "-A")
    outside = tmp_path / "outside"
    outside.mkdir()
    (secret_repo / "sub").mkdir()
    (secret_repo / "link").symlink_to(outside)
    (secret_repo / "alias").symlink_to(secret_repo / ".aws")
    cases = {
        "../outside/x.txt": DenyReason.OUTSIDE_SCOPE,
        "sub/../../outside": DenyReason.OUTSIDE_SCOPE,
        str(outside / "x.txt"): DenyReason.OUTSIDE_SCOPE,
        "link/x.txt": DenyReason.OUTSIDE_SCOPE,  # a symlinked folder leading out
        ".env": DenyReason.PROTECTED_PATH,
        "config/.env.production": DenyReason.PROTECTED_PATH,
        "sub/../.aws/credentials": DenyReason.PROTECTED_PATH,
        "alias/credentials": DenyReason.PROTECTED_PATH,  # a symlinked folder into a protected one
        ".AWS": DenyReason.PROTECTED_PATH,
    }
    for spec, reason in cases.items():
        out = await commit(th, "app.py", spec)
        assert out.error is not None and out.error.code is ErrorCode.TOOL_DENIED, spec
        assert out.error.reason == reason, (spec, out.error.message)
        assert spec in out.error.message
    assert commits(secret_repo) == ["initial"]
    # An ordinary pathspec commits just that file.
    out = await commit(th, "sub/../app.py")
    assert out.ok and out.result["exitCode"] == 0, out.result
    assert commits(secret_repo) == ["by tool", "initial"]
    assert git(secret_repo, "show", "--name-only", "--format=", "HEAD").split() == ["app.py"]


async def test_commit_in_a_folder_inside_a_larger_repository_commits_nothing(
    tmp_path: Path, make_host: Any
) -> None:
    parent = init_repo(tmp_path / "parent")
    (parent / "ws").mkdir()
    (parent / "ws" / "f.txt").write_text("1\n")
    commit_all(parent)
    (parent / "ws" / "f.txt").write_text("2\n")
    git(parent, "add", "-A")
    out = await commit(make_host(parent / "ws"))
    assert out.error is not None and "not a git repository" in out.error.message
    assert commits(parent) == ["initial"]


async def test_a_blob_named_by_object_id_is_refused_and_a_path_form_is_filtered(
    secret_repo: Path, make_host: Any
) -> None:
    th = make_host(secret_repo)
    env_blob = git(secret_repo, "rev-parse", "HEAD:.env").strip()
    app_blob = git(secret_repo, "rev-parse", "HEAD:app.py").strip()
    git(secret_repo, "tag", "envblob", env_blob)  # a lightweight tag pointing at the blob
    for flags in ((env_blob, app_blob), (app_blob, env_blob), ("envblob", app_blob)):
        out = await view(th, "diff", *flags)
        assert out.error is not None and out.error.reason == DenyReason.PROTECTED_PATH, flags
        assert "object id" in out.error.message
    out = await view(th, "diff", "HEAD:.env", "HEAD:app.py")
    assert out.ok and "diff --git a/.env b/app.py" in out.result["stdout"]
    assert "API_TOKEN=old" not in out.result["stdout"] and "content withheld" in out.result["stdout"]
    out = await view(th, "diff", "HEAD:app.py", "HEAD:app.py")
    assert out.ok and out.result["exitCode"] == 0
    out = await view(th, "log", "-L", "1,1:app.py")  # -L on an ordinary file still works
    assert out.ok and "print('v1')" in out.result["stdout"]
