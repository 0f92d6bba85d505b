"""Host-issued scratch descriptors and resolve_cwd for the process host."""

from __future__ import annotations

import copy
import os
import shutil
from pathlib import Path

import pytest

from relavium_desktop.engine.errors import ToolDeniedError
from relavium_desktop.host.datadir import data_dir
from relavium_desktop.host.fs import FsHost, PathPolicy, ScratchRefused, ScratchRoot, issue_scratch_root
from tests.helpers import dispatch
from tests.host.fs.conftest import SENTINEL, Tree


def _scratch(name: str = "scratch") -> tuple[Path, Path]:
    home = data_dir()
    anchor = home / ".relavium"
    anchor.mkdir(mode=0o700, exist_ok=True)
    os.chmod(anchor, 0o700)
    root = anchor / name
    root.mkdir(mode=0o700)
    return home, root


async def test_scratch_lifts_the_relavium_floor_for_its_subtree_only(tree: Tree) -> None:
    home, root = _scratch()
    (root / "notes.txt").write_text("scratch notes\n")
    (root / ".ssh").mkdir()
    (home / ".relavium" / "history.db").write_text(SENTINEL)
    sibling = home / ".relavium" / "scratch-sibling"
    sibling.mkdir(mode=0o700)
    (sibling / "x.txt").write_text(SENTINEL)
    desc = issue_scratch_root(home, root)
    host = tree.host(tier="sandboxed", scratch=desc)
    out = await dispatch("read_file", {"path": str(root / "notes.txt")}, host=host)
    assert out.ok and out.result["content"] == "scratch notes\n"
    out = await dispatch("write_file", {"path": str(root / "out.txt"), "content": "hi"}, host=host)
    assert out.ok and (root / "out.txt").read_text() == "hi"
    for path, reason in (
        (root / ".ssh" / "k", "protected_path"),
        (home / ".relavium" / "history.db", "outside_scope"),
        (sibling / "x.txt", "outside_scope"),
        (Path(str(root) + "-prefix") / "x", "outside_scope"),
        (root / ".." / "history.db", "outside_scope"),
    ):
        out = await dispatch("read_file", {"path": str(path)}, host=host)
        assert out.error is not None and out.error.reason == reason, path
    # Even a workflow's full tier, which reaches the data dir, meets the floor outside the scratch.
    full = tree.host(tier="full", scratch=desc)
    out = await dispatch("read_file", {"path": str(sibling / "x.txt")}, host=full)
    assert out.error is not None and out.error.reason == "protected_path"
    out = await dispatch("read_file", {"path": str(root / "notes.txt")}, host=full)
    assert out.ok
    # Without the descriptor the same subtree is simply refused.
    out = await dispatch("read_file", {"path": str(root / "notes.txt")}, host=tree.host(tier="sandboxed"))
    assert out.error is not None and out.error.reason == "outside_scope"


def test_descriptors_cannot_be_forged_from_strings_or_copies(tree: Tree) -> None:
    home, root = _scratch()
    with pytest.raises(TypeError):
        ScratchRoot(home, root)
    forged = object.__new__(ScratchRoot)
    for fake in (str(root), forged):
        with pytest.raises(ScratchRefused):
            PathPolicy.create(tree.ws, scratch=fake)  # type: ignore[arg-type]
    desc = issue_scratch_root(home, root)
    with pytest.raises(TypeError):
        copy.copy(desc)
    with pytest.raises(AttributeError):
        desc.root = desc.anchor  # type: ignore[misc]
    policy = PathPolicy.create(tree.ws, scratch=desc)
    assert policy.with_scratch(desc) is policy  # reattaching the same one is idempotent
    _, other_root = _scratch("other")
    with pytest.raises(ScratchRefused):
        policy.with_scratch(issue_scratch_root(home, other_root))


def test_issue_refuses_unsafe_subtrees(tmp_path: Path) -> None:
    home, _root = _scratch()
    with pytest.raises(ScratchRefused):
        issue_scratch_root(home, home / ".relavium")  # the anchor itself
    with pytest.raises(ScratchRefused):
        issue_scratch_root(home, tmp_path)  # not beneath the anchor
    loose = home / ".relavium" / "loose"
    loose.mkdir(mode=0o755)
    os.chmod(loose, 0o755)
    with pytest.raises(ScratchRefused):
        issue_scratch_root(home, loose)
    outside = tmp_path / "elsewhere"
    outside.mkdir(mode=0o700)
    (home / ".relavium" / "via-link").symlink_to(outside)
    with pytest.raises(ScratchRefused):
        issue_scratch_root(home, home / ".relavium" / "via-link")


async def test_replaced_scratch_revokes_access(tree: Tree) -> None:
    home, root = _scratch()
    desc = issue_scratch_root(home, root)
    host = tree.host(tier="sandboxed", scratch=desc)
    shutil.rmtree(root)
    root.mkdir(mode=0o700)
    (root / "n.txt").write_text("impostor")
    out = await dispatch("read_file", {"path": str(root / "n.txt")}, host=host)
    assert out.error is not None and out.error.reason == "outside_scope"


def test_resolve_cwd(tree: Tree) -> None:
    (tree.ws / ".ssh").mkdir()
    (tree.ws / "out").symlink_to(tree.outside)
    (tree.ws / "alias").symlink_to("sub")
    fs: FsHost = tree.fs()
    assert fs.resolve_cwd(None) == str(tree.ws.resolve())
    assert fs.resolve_cwd("sub/deep") == str((tree.ws / "sub" / "deep").resolve())
    assert fs.resolve_cwd("alias") == str((tree.ws / "sub").resolve())
    assert fs.resolve_cwd(str(tree.ws / "sub")) == str((tree.ws / "sub").resolve())
    for path, reason in (("..", "outside_scope"), ("out", "outside_scope"), ("/", "outside_scope"),
                         (".ssh", "protected_path"), ("\\\\srv\\share", "unc_path")):
        with pytest.raises(ToolDeniedError) as info:
            fs.resolve_cwd(path)
        assert info.value.reason == reason, path
