"""Acceptance 1: every floor entry, nested and folded, refused with protected_path by the real host."""

from __future__ import annotations

import pytest

from relavium_desktop.engine.tools.fs_floors import SHELL_STARTUP_BASENAMES
from tests.engine.tools.floor_cases import ALLOWED, READ_DENIED, variants
from tests.helpers import dispatch
from tests.host.fs.conftest import SENTINEL, Tree

WRITE_DENIED = [
    *READ_DENIED,
    ".git/HEAD", "repo/.git/hooks/pre-commit", "bare.git/hooks/post-update", ".config/fish/conf.d/x.fish",
    *(f"home/{name}" for name in sorted(SHELL_STARTUP_BASENAMES)),
]


def _plant(tree: Tree, rel: str) -> None:
    path = tree.ws / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        path.write_text(SENTINEL)


@pytest.mark.parametrize("tier", ["sandboxed", "project", "full"])
async def test_read_floor_refused_in_every_tier_for_every_spelling(tree: Tree, tier: str) -> None:
    for rel in READ_DENIED:
        if rel != ".env":  # ".env" as a file collides with ".env/x" as a folder
            _plant(tree, rel)
    host = tree.host(tier=tier)
    for rel in READ_DENIED:
        for variant in variants(rel):
            out = await dispatch("read_file", {"path": variant}, host=host)
            assert not out.ok and out.error is not None, variant
            assert (out.error.code, out.error.reason) == ("tool_denied", "protected_path"), variant
            assert SENTINEL not in str(out.to_json())
        # Absolute spelling and a glob aimed straight at it are refused too.
        out = await dispatch("read_file", {"path": str(tree.ws / rel)}, host=host)
        assert out.error is not None and out.error.reason == "protected_path"


async def test_write_floor_refused_and_files_untouched(tree: Tree) -> None:
    host = tree.host(tier="full")
    for rel in WRITE_DENIED:
        for variant in variants(rel):
            out = await dispatch(
                "write_file", {"path": variant, "content": "pwned", "createParents": True}, host=host
            )
            assert out.error is not None, variant
            assert (out.error.code, out.error.reason) == ("tool_denied", "protected_path"), variant
            out = await dispatch("write_file", {"path": variant, "content": "x", "append": True}, host=host)
            assert out.error is not None and out.error.reason == "protected_path", variant
    # Nothing was created on the way (createParents never ran for a refused path).
    assert sorted(p.name for p in tree.ws.iterdir()) == ["a", "hello.txt", "sub"]


async def test_look_alikes_are_readable_and_writable(tree: Tree) -> None:
    host = tree.host()
    for rel in ALLOWED:
        out = await dispatch(
            "write_file", {"path": rel, "content": f"ok {rel}", "createParents": True}, host=host
        )
        assert out.ok, (rel, out.error)
        out = await dispatch("read_file", {"path": rel}, host=host)
        assert out.ok and out.result["content"] == f"ok {rel}", rel


async def test_floor_entries_are_hidden_from_listings_and_globs(tree: Tree) -> None:
    for rel in READ_DENIED:
        if rel != ".env":
            _plant(tree, rel)
    host = tree.host()
    out = await dispatch("list_directory", {"path": ".", "recursive": True}, host=host)
    assert out.ok
    names = {e["name"] for e in out.result["entries"]}
    assert "hello.txt" in names and "sub/deep/x.py" in names
    for rel in READ_DENIED:
        assert rel not in names, rel
    out = await dispatch("read_file", {"path": "**/*"}, host=host)
    assert out.ok, out.error
    assert {f["path"] for f in out.result["files"]} == {
        "hello.txt", "sub/notes.md", "sub/deep/x.py", "a/b/target.txt",
    }
    # A glob whose prefix is itself on the floor is refused outright.
    out = await dispatch("read_file", {"path": "a/b/.ssh/*"}, host=host)
    assert out.error is not None and out.error.reason == "protected_path"


async def test_extra_root_grant_never_lifts_a_floor(tree: Tree) -> None:
    ssh = tree.base / "home" / ".ssh"
    ssh.mkdir(parents=True)
    (ssh / "id_rsa").write_text(SENTINEL)
    host = tree.host(tier="project", extra_roots=[ssh])
    for path in (str(ssh / "id_rsa"), str(ssh)):
        out = await dispatch("read_file", {"path": path}, host=host)
        assert out.error is not None and out.error.reason == "protected_path"
    out = await dispatch("list_directory", {"path": str(ssh)}, host=host)
    assert out.error is not None and out.error.reason == "protected_path"
