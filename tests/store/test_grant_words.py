"""What a project grant is called where people read it: one file, or everything under a folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from relavium_desktop.engine.tools.tooldef import ActionClass, ApprovalRequest
from relavium_desktop.host.fs.preview import HOST_GRANT_PATHS
from relavium_desktop.store.grants import GrantStore


def write_req(path: str) -> ApprovalRequest:
    return ApprovalRequest(tool_id="write_file", action_class=ActionClass.FS_WRITE, target=path,
                           masked_args={"path": path, "content": "x"}, node_id="chat")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "notes.md").write_text("# notes\n")
    return root


@pytest.fixture
def store(relavium_home: Path):
    s = GrantStore.open(relavium_home, HOST_GRANT_PATHS)
    yield s
    s.close()


@pytest.mark.parametrize(("path", "words"), [
    ("notes.md", "writes notes.md"),  # a file at the root grants only itself
    ("src/app.py", "writes under src/"),
    ("src/pkg/mod.py", "writes under src/pkg/"),
])
def test_the_offer_and_the_stored_grant_say_what_they_cover(
    store: GrantStore, project: Path, relavium_home: Path, path: str, words: str
) -> None:
    offered = store.target_for(str(project), write_req(path))
    assert offered is not None and offered.describe() == words
    store.add(str(project), write_req(path))
    store.close()
    again = GrantStore.open(relavium_home, HOST_GRANT_PATHS)  # as Settings reads it after a restart
    try:
        assert [g.target.describe() for g in again.list(str(project))] == [words]
    finally:
        again.close()


def test_a_single_file_grant_covers_that_file_only(store: GrantStore, project: Path) -> None:
    store.add(str(project), write_req("notes.md"))
    assert store.find(str(project), write_req("notes.md")) is not None
    assert store.find(str(project), write_req("notes.md.bak")) is None
    assert store.find(str(project), write_req("src/app.py")) is None
