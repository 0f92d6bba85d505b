"""list_directory: shape, names, glob filter, symlinks, and pruning before descent (acceptance 5).

Pruning is shown with the interpreter's audit events: every directory the
lister opens raises an ``open`` event with its name and every scan raises
``os.scandir``, so the test counts what was really entered (root cannot be
kept out of a 0000 folder, so permission bits would prove nothing here).
"""

from __future__ import annotations

import sys
import threading
from typing import Any

from relavium_desktop.host.fs import lister
from tests.helpers import dispatch
from tests.host.fs.conftest import SENTINEL, Tree

# (thread id, events) while recording; audit hooks cannot be removed, so they idle otherwise.
_SINK: list[tuple[int, list[tuple[str, Any]]]] = []


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _SINK and event in ("open", "os.scandir") and _SINK[0][0] == threading.get_ident():
        _SINK[0][1].append((event, args[0]))


sys.addaudithook(_audit)


def _record(fn: Any) -> tuple[Any, list[tuple[str, Any]]]:
    events: list[tuple[str, Any]] = []
    _SINK.append((threading.get_ident(), events))
    try:
        return fn(), events
    finally:
        _SINK.clear()


def test_recursive_listing_prunes_denied_folders_without_entering_them(tree: Tree) -> None:
    for denied in (".ssh", "a/.aws", "sub/.kube", "node/.relavium", "x/gcloud"):
        path = tree.ws / denied / "inner"
        path.mkdir(parents=True)
        (path / "secret").write_text(SENTINEL)
    (tree.ws / "sub" / ".env.local").write_text(SENTINEL)
    # A repository's .git is listable; its config is not.
    (tree.ws / ".git").mkdir()
    (tree.ws / ".git" / "config").write_text(SENTINEL)
    (tree.ws / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    policy = tree.fs().policy
    result, events = _record(lambda: lister.list_directory(policy, ".", recursive=True, glob=None))
    names = [e["name"] for e in result["entries"]]
    opened = [arg for ev, arg in events if ev == "open"]
    scans = [arg for ev, arg in events if ev == "os.scandir"]
    for denied in (".ssh", ".aws", ".kube", ".relavium", "gcloud", "inner", "secret"):
        assert denied not in opened, denied
        assert not any(n.split("/")[-1] == denied or f"/{denied}/" in f"/{n}/" for n in names), denied
    assert "sub/.env.local" not in names
    assert ".git/HEAD" in names and ".git/config" not in names
    # Entered: the root, a, a/b, sub, sub/deep, node, x, .git - exactly one scan each.
    assert len(scans) == 8
    assert {"a", "b", "sub", "deep", "node", "x"} <= set(opened)
    assert {"hello.txt", "sub/notes.md", "sub/deep/x.py", "a/b/target.txt", "node", "x"} <= set(names)


async def test_entry_shape_names_relative_to_the_requested_folder(tree: Tree) -> None:
    (tree.ws / "sub" / "link").symlink_to(tree.outside)
    host = tree.host()
    out = await dispatch("list_directory", {"path": "sub"}, host=host)
    assert out.ok
    entries = {e["name"]: e for e in out.result["entries"]}
    assert set(entries) == {"notes.md", "deep", "link"}
    assert entries["notes.md"]["type"] == "file" and entries["notes.md"]["sizeBytes"] == 8
    assert entries["deep"]["type"] == "directory"
    assert entries["link"]["type"] == "symlink"
    assert entries["notes.md"]["lastModified"].endswith("Z")
    out = await dispatch("list_directory", {"path": "sub", "recursive": True, "glob": "**/*.py"}, host=host)
    assert [e["name"] for e in out.result["entries"]] == ["deep/x.py"]
    out = await dispatch("list_directory", {"path": ".", "recursive": True, "glob": "*.txt"}, host=host)
    assert [e["name"] for e in out.result["entries"]] == ["hello.txt"]
    out = await dispatch("list_directory", {"path": "hello.txt"}, host=host)
    assert out.error is not None and out.error.code == "tool_failed"
    out = await dispatch("list_directory", {"path": "missing"}, host=host)
    assert out.error is not None and out.error.code == "tool_failed"
