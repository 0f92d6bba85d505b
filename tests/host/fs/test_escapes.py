"""Acceptance 2: escapes out of the roots are refused, including a check/use race."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest

from relavium_desktop.engine.errors import ToolDeniedError, ToolError
from relavium_desktop.host.fs import reader, writer
from tests.helpers import dispatch
from tests.host.fs.conftest import SENTINEL, Tree


def _denied(out: object, reason: str) -> None:
    error = out.error  # type: ignore[attr-defined]
    assert error is not None, "expected a denial"
    assert (error.code, error.reason) == ("tool_denied", reason), error


@pytest.mark.parametrize(
    "path",
    ["../outside/secret.txt", "sub/../../outside/secret.txt", "../../../../../../etc/passwd", "/etc/passwd"],
)
async def test_dotdot_and_absolute_paths_outside_are_outside_scope(tree: Tree, path: str) -> None:
    host = tree.host()
    _denied(await dispatch("read_file", {"path": path}, host=host), "outside_scope")
    _denied(await dispatch("write_file", {"path": path, "content": "x"}, host=host), "outside_scope")
    _denied(await dispatch("list_directory", {"path": path}, host=host), "outside_scope")


async def test_absolute_path_into_another_tmp_folder_and_posix_double_slash(tree: Tree) -> None:
    host = tree.host()
    _denied(await dispatch("read_file", {"path": str(tree.outside / "secret.txt")}, host=host), "outside_scope")
    _denied(await dispatch("read_file", {"path": "/" + str(tree.outside / "secret.txt")}, host=host), "outside_scope")
    # POSIX // is ordinary: the workspace spelled with a leading // is still the workspace.
    out = await dispatch("read_file", {"path": "/" + str(tree.ws / "hello.txt")}, host=host)
    assert out.ok and out.result["content"] == "hello\n"
    # `..` that comes back inside is fine.
    out = await dispatch("read_file", {"path": "sub/../hello.txt"}, host=host)
    assert out.ok and out.result["path"] == "hello.txt"


@pytest.mark.parametrize("path", ["\\\\server\\share\\x.txt", "\\\\server\\share\\*", "\\\\?\\C:\\x", "\\\\.\\pipe\\p"])
async def test_unc_paths_refused_before_io(tree: Tree, path: str) -> None:
    host = tree.host(tier="full")
    _denied(await dispatch("read_file", {"path": path}, host=host), "unc_path")
    _denied(await dispatch("write_file", {"path": path, "content": "x"}, host=host), "unc_path")
    _denied(await dispatch("list_directory", {"path": path}, host=host), "unc_path")


async def test_symlinked_file_and_folder_pointing_outside(tree: Tree) -> None:
    (tree.ws / "lnfile").symlink_to(tree.outside / "secret.txt")
    (tree.ws / "lndir").symlink_to(tree.outside)
    (tree.ws / "rel").symlink_to("../outside")
    before = tree.snapshot_outside()
    host = tree.host()
    for path in ("lnfile", "lndir/secret.txt", "rel/secret.txt", "sub/../lndir/a/b/target.txt"):
        _denied(await dispatch("read_file", {"path": path}, host=host), "outside_scope")
        _denied(await dispatch("write_file", {"path": path, "content": "pwned"}, host=host), "outside_scope")
        _denied(await dispatch("write_file", {"path": path, "content": "pwned", "append": True}, host=host),
                "outside_scope")
    _denied(await dispatch("write_file", {"path": "lndir/new.txt", "content": "x"}, host=host), "outside_scope")
    _denied(await dispatch("write_file", {"path": "lndir/n/new.txt", "content": "x", "createParents": True},
                           host=host), "outside_scope")
    _denied(await dispatch("list_directory", {"path": "lndir"}, host=host), "outside_scope")
    # Globs: a prefix through the link is refused; a match that is a link out is skipped.
    _denied(await dispatch("read_file", {"path": "lndir/*"}, host=host), "outside_scope")
    _denied(await dispatch("read_file", {"path": "../outside/*"}, host=host), "outside_scope")
    _denied(await dispatch("read_file", {"path": "../*/secret.txt"}, host=host), "outside_scope")
    out = await dispatch("read_file", {"path": "**/*"}, host=host)
    assert out.ok and SENTINEL not in str(out.result)
    out = await dispatch("read_file", {"path": "*"}, host=host)
    assert out.ok and [f["path"] for f in out.result["files"]] == ["hello.txt"]
    # Listing reports links as links and never enters them.
    out = await dispatch("list_directory", {"path": ".", "recursive": True}, host=host)
    entries = {e["name"]: e["type"] for e in out.result["entries"]}
    assert entries["lndir"] == "symlink" and entries["lnfile"] == "symlink"
    assert not any(name.startswith(("lndir/", "rel/")) for name in entries)
    assert tree.snapshot_outside() == before


async def test_symlinks_that_stay_inside_are_followed_but_floors_still_apply(tree: Tree) -> None:
    (tree.ws / "alias").symlink_to("sub")
    (tree.ws / "abs_alias").symlink_to(tree.ws / "sub" / "notes.md")
    (tree.ws / ".ssh").mkdir()
    (tree.ws / ".ssh" / "id_rsa").write_text(SENTINEL)
    (tree.ws / "innocent.txt").symlink_to(".ssh/id_rsa")
    (tree.ws / "innocent_dir").symlink_to(".ssh")
    host = tree.host()
    out = await dispatch("read_file", {"path": "alias/notes.md"}, host=host)
    assert out.ok and out.result["content"] == "# notes\n" and out.result["path"] == "sub/notes.md"
    out = await dispatch("read_file", {"path": "abs_alias"}, host=host)
    assert out.ok and out.result["content"] == "# notes\n"
    out = await dispatch("write_file", {"path": "alias/new.txt", "content": "via link"}, host=host)
    assert out.ok and (tree.ws / "sub" / "new.txt").read_text() == "via link"
    for path in ("innocent.txt", "innocent_dir/id_rsa"):
        _denied(await dispatch("read_file", {"path": path}, host=host), "protected_path")
        _denied(await dispatch("write_file", {"path": path, "content": "x"}, host=host), "protected_path")
    assert (tree.ws / ".ssh" / "id_rsa").read_text() == SENTINEL


async def test_hard_linked_file_can_be_neither_written_nor_read(tree: Tree) -> None:
    os.link(tree.outside / "secret.txt", tree.ws / "hl.txt")
    host = tree.host()
    for append in (False, True):
        _denied(await dispatch("write_file", {"path": "hl.txt", "content": "pwned", "append": append}, host=host),
                "protected_path")
    assert (tree.outside / "secret.txt").read_text() == SENTINEL
    out = await dispatch("read_file", {"path": "hl.txt"}, host=host)
    _denied(out, "protected_path")  # its other name is outside the roots (tests/host/fs/test_hardlinks.py)
    assert SENTINEL not in str(out.to_json())


async def test_vanished_or_replaced_root_revokes_access(tree: Tree) -> None:
    host = tree.host()
    assert (await dispatch("read_file", {"path": "hello.txt"}, host=host)).ok
    tree.ws.rename(tree.base / "ws-old")
    _denied(await dispatch("read_file", {"path": "hello.txt"}, host=host), "outside_scope")
    tree.ws.mkdir()
    (tree.ws / "hello.txt").write_text("impostor\n")
    _denied(await dispatch("read_file", {"path": "hello.txt"}, host=host), "outside_scope")
    shutil.rmtree(tree.ws)
    tree.ws.symlink_to(tree.outside)
    _denied(await dispatch("read_file", {"path": "secret.txt"}, host=host), "outside_scope")
    _denied(await dispatch("write_file", {"path": "x.txt", "content": "x"}, host=host), "outside_scope")


async def test_tiers_pick_the_roots(tree: Tree) -> None:
    extra = tree.base / "extra"
    extra.mkdir()
    (extra / "e.txt").write_text("extra\n")
    target = str(extra / "e.txt")
    out = await dispatch("read_file", {"path": target}, host=tree.host(tier="project", extra_roots=[extra]))
    assert out.ok and out.result["path"] == "../extra/e.txt"
    _denied(await dispatch("read_file", {"path": target}, host=tree.host(tier="sandboxed", extra_roots=[extra])),
            "outside_scope")
    # Chat's full is clamped to project; a workflow's full reaches the whole disk (floors still apply).
    chat = tree.host(tier="full", surface="chat")
    _denied(await dispatch("read_file", {"path": str(tree.outside / "secret.txt")}, host=chat), "outside_scope")
    flow = tree.host(tier="full", surface="workflow")
    out = await dispatch("read_file", {"path": str(tree.outside / "secret.txt")}, host=flow)
    assert out.ok and out.result["path"] == "../outside/secret.txt"


# -- the race: a folder swapped for a symlink between the policy check and the open ------------


def _swap_hook(tree: Tree, victim: str, fire_at: int) -> object:
    """A walk hook that, on its ``fire_at``-th call, replaces ws/<victim> with a link to outside."""
    calls = [0]

    def hook(stage: str, name: str) -> None:
        calls[0] += 1
        if calls[0] == fire_at:
            real = tree.ws / victim
            shutil.rmtree(real)
            real.symlink_to(tree.outside / victim)

    return hook


def _restore(tree: Tree) -> None:
    victim = tree.ws / "a"
    if victim.is_symlink():
        victim.unlink()
    if not victim.exists():
        (victim / "b").mkdir(parents=True)
        (victim / "b" / "target.txt").write_text("inside\n")


@pytest.mark.parametrize("op", ["read", "write", "append", "list", "glob"])
def test_swap_between_check_and_open_never_escapes(tree: Tree, op: str) -> None:
    before = tree.snapshot_outside()
    policy = tree.fs().policy
    outcomes: set[str] = set()
    for _ in range(40):
        for fire_at in (1, 2, 3):
            _restore(tree)
            hook = _swap_hook(tree, "a", fire_at)
            try:
                if op == "read":
                    result = reader.read_file(policy, "a/b/target.txt", hook)  # type: ignore[arg-type]
                    assert result["content"] == "inside\n"
                elif op == "glob":
                    files = reader.read_glob(policy, "a/b/*.txt", hook)  # type: ignore[arg-type]
                    assert all(f["content"] == "inside\n" for f in files)
                elif op == "list":
                    from relavium_desktop.host.fs import lister

                    lister.list_directory(policy, "a/b", recursive=True, glob=None, hook=hook)  # type: ignore[arg-type]
                else:
                    writer.write_file(policy, "a/b/target.txt", "written\n", append=op == "append",
                                      create_parents=True, hook=hook)  # type: ignore[arg-type]
                outcomes.add("ok")
            except ToolDeniedError as exc:
                assert exc.reason == "outside_scope"
                outcomes.add("denied")
            except (ToolError, OSError):
                outcomes.add("failed")  # e.g. the folder we held was deleted by the swap
            assert tree.snapshot_outside() == before
    # The swap really landed inside the walk: some calls saw the link and were refused.
    assert "denied" in outcomes


def test_concurrent_swapper_thread_never_leads_outside(tree: Tree) -> None:
    before = tree.snapshot_outside()
    policy = tree.fs().policy
    stop = threading.Event()

    def swapper() -> None:
        tmp = tree.ws / "a.tmp"
        link = tree.ws / "a.link"
        while not stop.is_set():
            try:
                if link.is_symlink():
                    link.unlink()
                link.symlink_to(tree.outside / "a")
                os.rename(tree.ws / "a", tmp)
                os.rename(link, tree.ws / "a")  # now a link to outside
                os.rename(tree.ws / "a", link)
                os.rename(tmp, tree.ws / "a")  # the real folder is back
            except OSError:
                continue

    thread = threading.Thread(target=swapper, daemon=True)
    thread.start()
    seen = {"ok": 0, "refused": 0}
    try:
        for i in range(600):
            try:
                if i % 2:
                    assert reader.read_file(policy, "a/b/target.txt")["content"] == "inside\n"
                else:
                    writer.write_file(policy, "a/b/w.txt", "w\n", append=False, create_parents=False)
                seen["ok"] += 1
            except (ToolError, OSError):
                seen["refused"] += 1
    finally:
        stop.set()
        thread.join()
    assert tree.snapshot_outside() == before
    assert not (tree.outside / "a" / "b" / "w.txt").exists()
    assert seen["ok"] + seen["refused"] == 600


def test_list_of_a_folder_whose_parent_becomes_a_link_is_refused(tree: Tree) -> None:
    victim = tree.ws / "a"
    shutil.rmtree(victim)
    victim.symlink_to(tree.outside / "a")
    with pytest.raises(ToolDeniedError) as info:
        reader.read_file(tree.fs().policy, "a/b/target.txt")
    assert info.value.reason == "outside_scope"
    assert Path(tree.outside / "a" / "b" / "target.txt").read_text() == SENTINEL


@pytest.mark.parametrize("tool", ["read_file", "write_file", "list_directory"])
async def test_a_lone_surrogate_in_a_path_is_an_argument_error_not_a_failure(tree: Tree, tool: str) -> None:
    args: dict[str, str] = {"path": "bad\ud800name.txt"}
    if tool == "write_file":
        args["content"] = "x"
    out = await dispatch(tool, args, host=tree.host())
    assert out.error is not None and out.error.code == "invalid_args", out.error
    assert "lone surrogate" in out.error.message


async def test_an_undecodable_name_read_off_disk_is_still_readable(tree: Tree) -> None:
    (tree.ws / os.fsdecode(b"caf\xe9.txt")).write_text("bytes name")
    out = await dispatch("read_file", {"path": os.fsdecode(b"caf\xe9.txt")}, host=tree.host())
    assert out.ok and out.result["content"] == "bytes name"
