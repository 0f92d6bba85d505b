"""Hard-link controls: a regular file with more than one link is refused, reads and writes alike.

Real files on disk.  The other name of a hard link may sit outside every
root, so reading "the workspace file" would hand over the outside file's
bytes.  The refusal is ``tool_denied``/``protected_path`` with a hint, is
checked on the opened descriptor, and a glob read skips such a match and
says so (see ``reader.read_glob``).
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from relavium_desktop.engine.errors import ToolError
from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS
from relavium_desktop.engine.tools.registry import DispatchOutcome, ToolRegistry
from relavium_desktop.engine.tools.tooldef import ToolCall
from relavium_desktop.host.assembly import HostSettings, build_host
from relavium_desktop.host.fs import reader, writer
from tests.helpers import dispatch, make_ctx, run_cli
from tests.host.fs.conftest import SENTINEL, Tree


def _everything(out: DispatchOutcome) -> str:
    return json.dumps(out.to_json(), default=str) + str(out.model_facing)


def _refused(out: DispatchOutcome) -> None:
    """A hard-link refusal: the fixed reason, a hint, and not a byte of the outside file."""
    error = out.error
    assert error is not None, f"expected a hard-link refusal, got {out.result!r}"[:300]
    assert (error.code, error.reason) == ("tool_denied", "protected_path"), error
    assert "more than one hard link" in error.message
    assert "pnpm" in error.message and "run_command" in error.message  # the hint
    assert SENTINEL not in _everything(out)


def _skipped(entry: dict[str, Any]) -> None:
    assert entry["skipped"] is True and "content" not in entry, entry
    assert (entry["error"]["code"], entry["error"]["reason"]) == ("tool_denied", "protected_path")
    assert "run_command" in entry["error"]["message"]


@pytest.fixture
def hl(tree: Tree) -> Tree:
    """``ws/hl.txt`` is a second hard link to ``outside/secret.txt``."""
    os.link(tree.outside / "secret.txt", tree.ws / "hl.txt")
    return tree


# -- read_file of one path ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "tier", ["sandboxed", "project", "project+extra-root", "full"],
)
async def test_hard_link_to_a_file_outside_every_root_is_refused_at_every_tier(hl: Tree, tier: str) -> None:
    kw: dict[str, Any] = {"tier": tier}
    if tier == "project+extra-root":
        extra = hl.base / "extra"
        extra.mkdir()
        kw = {"tier": "project", "extra_roots": [extra]}
    host = hl.host(**kw)
    for path in ("hl.txt", str(hl.ws / "hl.txt"), "sub/../hl.txt"):
        _refused(await dispatch("read_file", {"path": path}, host=host))
    # The same host still reads an ordinary file: the refusal is about the link count.
    out = await dispatch("read_file", {"path": "hello.txt"}, host=host)
    assert out.ok and out.result["content"] == "hello\n"
    if tier == "full":
        # Full (workflow) reaches the outside file by its own name; the second name is still refused.
        out = await dispatch("read_file", {"path": str(hl.outside / "secret.txt")}, host=host)
        _refused(out)  # it, too, has two links now


async def test_hard_link_between_two_workspace_files_is_refused_by_both_names(tree: Tree) -> None:
    os.link(tree.ws / "hello.txt", tree.ws / "sub" / "alias.txt")
    host = tree.host()
    for path in ("hello.txt", "sub/alias.txt"):
        out = await dispatch("read_file", {"path": path}, host=host)
        assert out.error is not None and (out.error.code, out.error.reason) == ("tool_denied", "protected_path")
    # Back to one link: readable again.
    (tree.ws / "sub" / "alias.txt").unlink()
    out = await dispatch("read_file", {"path": "hello.txt"}, host=host)
    assert out.ok and out.result["content"] == "hello\n"


async def test_symlink_to_a_hard_linked_file_is_refused(hl: Tree) -> None:
    ws = hl.ws
    (ws / "rel_link").symlink_to("hl.txt")
    (ws / "abs_link").symlink_to(ws / "hl.txt")
    (ws / "sub" / "up_link").symlink_to("../hl.txt")
    (ws / "alias").symlink_to("sub")
    os.link(hl.outside / "a" / "b" / "target.txt", ws / "sub" / "hl2.txt")
    host = hl.host()
    for path in ("rel_link", "abs_link", "sub/up_link", "alias/up_link", "alias/hl2.txt"):
        _refused(await dispatch("read_file", {"path": path}, host=host))
        for append in (False, True):
            out = await dispatch("write_file", {"path": path, "content": "pwned", "append": append}, host=host)
            assert out.error is not None and out.error.reason == "protected_path"
    assert (hl.outside / "secret.txt").read_text() == SENTINEL
    assert (hl.outside / "a" / "b" / "target.txt").read_text() == SENTINEL


# -- glob reads: the match is skipped and reported ------------------------------------------------


async def test_glob_skips_a_hard_linked_match_and_says_so(hl: Tree) -> None:
    (hl.ws / "ln.txt").symlink_to("hl.txt")
    host = hl.host()
    out = await dispatch("read_file", {"path": "*.txt"}, host=host)
    assert out.ok, out.error
    files = {f["path"]: f for f in out.result["files"]}
    assert set(files) == {"hello.txt", "hl.txt", "ln.txt"}
    assert files["hello.txt"]["content"] == "hello\n"
    _skipped(files["hl.txt"])
    _skipped(files["ln.txt"])  # a symlink onto the hard link: reported under the name it matched
    assert SENTINEL not in _everything(out)

    out = await dispatch("read_file", {"path": "**/*"}, host=host)
    assert out.ok and SENTINEL not in _everything(out)
    read = {f["path"] for f in out.result["files"] if not f.get("skipped")}
    assert read == {"hello.txt", "sub/notes.md", "sub/deep/x.py", "a/b/target.txt"}

    # A glob whose only match is the hard link: nothing read, the skip reported.
    out = await dispatch("read_file", {"path": "h?.txt"}, host=host)
    assert out.ok and [f["path"] for f in out.result["files"]] == ["hl.txt"]
    _skipped(out.result["files"][0])
    assert SENTINEL not in _everything(out)


async def test_glob_through_a_pnpm_like_store_reads_the_rest(tree: Tree) -> None:
    store = tree.outside / "pnpm-store"
    store.mkdir()
    (store / "index.js").write_text(SENTINEL)
    pkg = tree.ws / "node_modules" / ".pnpm" / "left-pad@1.0.0" / "node_modules" / "left-pad"
    pkg.mkdir(parents=True)
    os.link(store / "index.js", pkg / "index.js")
    (tree.ws / "src").mkdir()
    (tree.ws / "src" / "main.js").write_text("main\n")
    out = await dispatch("read_file", {"path": "**/*.js"}, host=tree.host())
    assert out.ok, out.error
    files = {f["path"]: f for f in out.result["files"]}
    assert files["src/main.js"]["content"] == "main\n"
    _skipped(files["node_modules/.pnpm/left-pad@1.0.0/node_modules/left-pad/index.js"])
    assert SENTINEL not in _everything(out)


# -- the check is on the descriptor ---------------------------------------------------------------


def _plant_hard_link(src: Path, at: Path) -> None:
    """Atomically make ``at`` a second hard link to ``src``."""
    tmp = at.with_name(".planting")
    os.link(src, tmp)
    os.replace(tmp, at)


def _plant_plain(at: Path, text: str) -> None:
    """Atomically make ``at`` a fresh single-link file."""
    tmp = at.with_name(".planting")
    tmp.write_text(text)
    os.replace(tmp, at)


def _hook_at(stage: str, name: str, action: Any) -> Any:
    fired = []

    def hook(s: str, n: str) -> None:
        if (s, n) == (stage, name) and not fired:
            fired.append(True)
            action()

    hook.fired = fired  # type: ignore[attr-defined]
    return hook


@pytest.mark.parametrize("op", ["read", "glob"])
def test_hard_link_planted_after_admission_before_open_is_refused(tree: Tree, op: str) -> None:
    """At admission x.txt is a plain one-link file; just before the open it becomes a hard link out."""
    x = tree.ws / "x.txt"
    x.write_text("inside\n")
    assert x.stat().st_nlink == 1
    hook = _hook_at("file", "x.txt", lambda: _plant_hard_link(tree.outside / "secret.txt", x))
    policy = tree.fs().policy
    if op == "read":
        with pytest.raises(ToolError) as info:
            reader.read_file(policy, "x.txt", hook)
        assert (info.value.code, info.value.reason) == ("tool_denied", "protected_path")
        assert SENTINEL not in info.value.message
    else:
        files = reader.read_glob(policy, "x.*", hook)
        assert [f["path"] for f in files] == ["x.txt"]
        _skipped(files[0])
        assert SENTINEL not in json.dumps(files)
    assert hook.fired


@pytest.mark.parametrize("op", ["read", "glob"])
def test_a_link_added_after_the_open_is_seen_on_the_descriptor(tree: Tree, op: str) -> None:
    x = tree.ws / "x.txt"
    x.write_text("inside\n")
    hook = _hook_at("opened", "x.txt", lambda: os.link(x, tree.outside / "extra.txt"))
    policy = tree.fs().policy
    if op == "read":
        with pytest.raises(ToolError) as info:
            reader.read_file(policy, "x.txt", hook)
        assert (info.value.code, info.value.reason) == ("tool_denied", "protected_path")
    else:
        files = reader.read_glob(policy, "x.*", hook)
        _skipped(files[0])
    assert hook.fired


@pytest.mark.parametrize("op", ["read", "glob"])
def test_hard_link_swapped_out_after_the_open_never_leaks(tree: Tree, op: str) -> None:
    """Opened while x.txt was a hard link out; right after the open x.txt becomes a plain file.

    The descriptor now has one link - its only name is outside - and the name
    looks innocent, so neither an fstat-only nor a name-only check would do:
    the name must still be the opened inode.
    """
    x = tree.ws / "x.txt"
    os.link(tree.outside / "secret.txt", x)
    hook = _hook_at("opened", "x.txt", lambda: _plant_plain(x, "inside\n"))
    policy = tree.fs().policy
    if op == "read":
        with pytest.raises(ToolError) as info:
            reader.read_file(policy, "x.txt", hook)
        assert SENTINEL not in info.value.message
    else:
        files = reader.read_glob(policy, "x.*", hook)
        assert SENTINEL not in json.dumps(files)
    assert hook.fired
    # Afterwards x.txt is an ordinary file and reads normally.
    assert reader.read_file(policy, "x.txt")["content"] == "inside\n"


def test_concurrent_relinker_never_leaks_or_writes_outside(tree: Tree) -> None:
    """A thread keeps flipping ws/flip.txt between a plain file and a hard link to a fresh outside file."""
    flip = tree.ws / "flip.txt"
    flip.write_text("inside\n")
    policy = tree.fs().policy
    stop = threading.Event()
    planted: list[Path] = []

    def swapper() -> None:
        k = 0
        while not stop.is_set():
            k += 1
            secret = tree.outside / f"s{k}.txt"
            secret.write_text(SENTINEL)
            planted.append(secret)
            try:
                _plant_hard_link(secret, flip)
                _plant_plain(flip, "inside\n")
            except OSError:
                continue

    thread = threading.Thread(target=swapper, daemon=True)
    thread.start()
    seen = {"ok": 0, "denied": 0, "failed": 0}
    deadline = time.monotonic() + 20
    i = 0
    try:
        while time.monotonic() < deadline and (i < 600 or not (seen["ok"] and seen["denied"])):
            i += 1
            try:
                if i % 3 == 0:
                    files = reader.read_glob(policy, "flip.*")
                    assert SENTINEL not in json.dumps(files)
                    kinds = {"denied" if f.get("skipped") else "ok" for f in files} or {"failed"}
                    for kind in kinds:
                        seen[kind] += 1
                    continue
                if i % 3 == 1:
                    content = reader.read_file(policy, "flip.txt")["content"]
                    assert content.startswith("inside\n") and SENTINEL not in content
                else:
                    writer.write_file(policy, "flip.txt", "+\n", append=True, create_parents=False)
                seen["ok"] += 1
            except ToolError as exc:
                assert SENTINEL not in exc.message
                seen["denied" if exc.code == "tool_denied" else "failed"] += 1
            except OSError:
                seen["failed"] += 1
    finally:
        stop.set()
        thread.join()
    for secret in planted:
        if secret.exists():
            assert secret.read_text() == SENTINEL, "an append went through a hard link"
    assert seen["ok"] and seen["denied"], seen


# -- write_file still refuses ---------------------------------------------------------------------


async def test_write_file_still_refuses_a_hard_link(hl: Tree) -> None:
    os.link(hl.ws / "hello.txt", hl.ws / "hello2.txt")
    host = hl.host(tier="full")
    for path in ("hl.txt", "hello.txt", "hello2.txt"):
        for append in (False, True):
            out = await dispatch("write_file", {"path": path, "content": "pwned", "append": append}, host=host)
            assert out.error is not None and (out.error.code, out.error.reason) == ("tool_denied", "protected_path")
            assert "run_command" in out.error.message
    assert (hl.outside / "secret.txt").read_text() == SENTINEL
    assert (hl.ws / "hello.txt").read_text() == "hello\n"


def test_append_whose_name_is_swapped_after_the_open_writes_nothing_outside(tree: Tree) -> None:
    x = tree.ws / "x.txt"
    os.link(tree.outside / "secret.txt", x)
    hook = _hook_at("opened", "x.txt", lambda: _plant_plain(x, "inside\n"))
    with pytest.raises(ToolError):
        writer.write_file(tree.fs().policy, "x.txt", "pwned\n", append=True, create_parents=False, hook=hook)
    assert hook.fired
    assert (tree.outside / "secret.txt").read_text() == SENTINEL
    assert x.read_text() == "inside\n"


# -- nothing leaks by the other tools or a spill --------------------------------------------------


async def test_list_directory_shows_the_name_but_never_the_content(hl: Tree) -> None:
    host = hl.host()
    for args in ({"path": ".", "recursive": True}, {"path": ".", "recursive": True, "glob": "*.txt"}):
        out = await dispatch("list_directory", args, host=host)
        assert out.ok, out.error
        entries = {e["name"]: e for e in out.result["entries"]}
        assert entries["hl.txt"]["type"] == "file"
        assert SENTINEL not in _everything(out)


async def test_no_spill_carries_the_outside_content(tmp_path: Path, relavium_home: Path) -> None:
    ws = tmp_path / "ws"
    outside = tmp_path / "outside"
    ws.mkdir()
    outside.mkdir()
    (outside / "big.txt").write_text("\n".join(f"{SENTINEL} {i}" for i in range(5000)))
    os.link(outside / "big.txt", ws / "big-hl.txt")
    (ws / "big-ok.txt").write_text("\n".join(f"line {i}" for i in range(5000)))
    registry = ToolRegistry(BUILTIN_TOOLS, build_host(HostSettings(workspace=ws, tier="full", home=relavium_home)))
    ctx = make_ctx("read_file")

    single = await registry.dispatch(ToolCall("read_file", {"path": "big-hl.txt"}), ctx)
    _refused(single)
    assert single.spill is None

    glob = await registry.dispatch(ToolCall("read_file", {"path": "big-*.txt"}), ctx)
    assert glob.ok and glob.truncated and glob.spill is not None  # the ordinary big file spilled
    assert SENTINEL not in _everything(glob)
    for path in relavium_home.rglob("*"):
        if path.is_file():
            assert SENTINEL not in path.read_text(errors="replace"), path


# -- the real CLI ---------------------------------------------------------------------------------


@pytest.mark.parametrize("tier", ["sandboxed", "full"])
def test_cli_read_file_of_a_hard_link_is_tool_denied(hl: Tree, cli_env: dict[str, str], tier: str) -> None:
    proc_code, out, err = run_cli(
        "tool", "call", "read_file", "--workspace", str(hl.ws), "--tier", tier,
        "--args", '{"path":"hl.txt"}', "--json", env=cli_env,
    )
    assert proc_code == 1 and out["ok"] is False
    assert (out["error"]["code"], out["error"]["reason"]) == ("tool_denied", "protected_path")
    assert "hard link" in out["error"]["message"]
    assert SENTINEL not in json.dumps(out) and SENTINEL not in err
    assert str(hl.outside) not in out["error"]["message"]


def test_cli_glob_read_skips_the_hard_link(hl: Tree, cli_env: dict[str, str]) -> None:
    proc_code, out, err = run_cli(
        "tool", "call", "read_file", "--workspace", str(hl.ws),
        "--args", '{"path":"*.txt"}', "--json", env=cli_env,
    )
    assert proc_code == 0 and out["ok"] is True
    files = {f["path"]: f for f in out["result"]["files"]}
    assert files["hello.txt"]["content"] == "hello\n"
    _skipped(files["hl.txt"])
    assert SENTINEL not in json.dumps(out) and SENTINEL not in err
