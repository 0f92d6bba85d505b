"""Per-project grants: what "Always allow in this project" covers, and the bypasses people try."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from relavium_desktop.engine.tools.fs_floors import is_protected_write
from relavium_desktop.engine.tools.masking import mask_value
from relavium_desktop.engine.tools.tooldef import ActionClass, ApprovalRequest
from relavium_desktop.host.fs.preview import HOST_GRANT_PATHS, canonical_folder
from relavium_desktop.store.db import history_db_path, open_db
from relavium_desktop.store.grants import GrantStore


def write_req(path: str, *, protected: bool = False) -> ApprovalRequest:
    # As the registry builds it: protected-path writes are flagged from the engine's floor rules.
    return ApprovalRequest(
        tool_id="write_file", action_class=ActionClass.FS_WRITE, target=path,
        masked_args={"path": path, "content": "x"}, node_id="chat",
        protected_path=protected or is_protected_write(path),
    )


def cmd_req(*argv: str) -> ApprovalRequest:
    args = mask_value({"command": argv[0], "args": list(argv[1:])})
    return ApprovalRequest(
        tool_id="run_command", action_class=ActionClass.PROCESS, target=" ".join(argv),
        masked_args=args, node_id="chat",
    )


def http_req(url: str) -> ApprovalRequest:
    return ApprovalRequest(
        tool_id="http_request", action_class=ActionClass.EGRESS, target=url,
        masked_args={"url": url, "method": "GET"}, node_id="chat",
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src" / "pkg").mkdir(parents=True)
    return root


@pytest.fixture
def store(relavium_home: Path):
    s = GrantStore.open(relavium_home, HOST_GRANT_PATHS)
    yield s
    s.close()


def test_grant_survives_reopening_history_db(store: GrantStore, project: Path, relavium_home: Path) -> None:
    store.add(str(project), write_req("src/pkg/a.py"))
    store.close()
    again = GrantStore.open(relavium_home, HOST_GRANT_PATHS)
    try:
        assert again.find(str(project), write_req("src/pkg/b.py")) is not None
        (grant,) = again.list(str(project))
        assert grant.project == canonical_folder(project)
        assert (grant.tool, grant.target.kind, grant.target.value) == ("write_file", "path", "src/pkg")
    finally:
        again.close()


def test_path_grant_covers_its_folder_only(store: GrantStore, project: Path) -> None:
    store.add(str(project), write_req("src/a.py"))
    assert store.find(str(project), write_req("src/new/deep.py"))
    assert store.find(str(project), write_req("./src/b.py"))
    assert store.find(str(project), write_req(str(project / "src" / "c.py")))
    # Sibling whose name merely starts with the prefix.
    assert store.find(str(project), write_req("src2/a.py")) is None
    assert store.find(str(project), write_req("srcfile.py")) is None
    # Dot-dot climbing out of the granted folder, or out of the project.
    assert store.find(str(project), write_req("src/../README.md")) is None
    assert store.find(str(project), write_req("src/../../outside.txt")) is None
    assert store.find(str(project), write_req("/etc/passwd")) is None


def test_symlink_inside_granted_folder_is_judged_by_where_it_leads(
    store: GrantStore, project: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    os.symlink(outside, project / "src" / "link")
    store.add(str(project), write_req("src/a.py"))
    assert store.find(str(project), write_req("src/link/evil.py")) is None


def test_protected_paths_are_never_granted_or_covered(store: GrantStore, project: Path) -> None:
    # The registry flags protected-path writes (protected_path=True), as it would for these.
    with pytest.raises(ValueError, match="always ask"):
        store.add(str(project), write_req(".git/hooks/pre-commit", protected=True))
    with pytest.raises(ValueError):
        store.add(str(project), write_req("src/x.py", protected=True))
    store.add(str(project), write_req("src/a.py"))
    assert store.find(str(project), write_req("src/.env", protected=True)) is None
    assert store.find(str(project), write_req("src/.git/config", protected=True)) is None
    assert store.find(str(project), write_req("src/b.py", protected=True)) is None


def test_root_file_grant_covers_that_file_only(store: GrantStore, project: Path) -> None:
    # A file at the root must not turn into "every write in the project".
    store.add(str(project), write_req("README.md"))
    assert store.find(str(project), write_req("README.md"))
    assert store.find(str(project), write_req("setup.py")) is None
    assert store.find(str(project), write_req("src/a.py")) is None
    with pytest.raises(ValueError):
        store.add(str(project), write_req("."))


def test_argv_grant_is_exact(store: GrantStore, project: Path) -> None:
    store.add(str(project), cmd_req("npm", "test"))
    assert store.find(str(project), cmd_req("npm", "test"))
    assert store.find(str(project), cmd_req("npm", "test", "--coverage")) is None
    assert store.find(str(project), cmd_req("npm", "test --coverage")) is None
    assert store.find(str(project), cmd_req("npm")) is None
    # Same preview string, different argv.
    assert store.find(str(project), cmd_req("npm test")) is None


def test_argv_with_a_masked_secret_is_not_grantable(store: GrantStore, project: Path) -> None:
    secret_call = cmd_req("curl", "-H", "sk-ant-abcdefghijklmnopqrstuvwxyz")
    assert "***" in str(secret_call.masked_args)
    with pytest.raises(ValueError):
        store.add(str(project), secret_call)


def test_host_grant_is_exact_host(store: GrantStore, project: Path) -> None:
    store.add(str(project), http_req("https://api.example.com/v1/x"))
    assert store.find(str(project), http_req("https://API.example.com./other"))
    assert store.find(str(project), http_req("https://evil-api.example.com/")) is None
    assert store.find(str(project), http_req("https://api.example.com.evil.net/")) is None
    assert store.find(str(project), http_req("https://api.example.com@evil.net/")) is None


def test_another_project_and_another_tool_still_ask(store: GrantStore, project: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    (other / "src").mkdir(parents=True)
    store.add(str(project), write_req("src/a.py"))
    assert store.find(str(other), write_req("src/a.py")) is None
    other_tool = ApprovalRequest(
        tool_id="append_log", action_class=ActionClass.FS_WRITE, target="src/a.py",
        masked_args={}, node_id="chat",
    )
    assert store.find(str(project), other_tool) is None


def test_project_key_is_canonical(store: GrantStore, project: Path, tmp_path: Path) -> None:
    alias = tmp_path / "alias"
    os.symlink(project, alias)
    store.add(str(alias), write_req("src/a.py"))
    assert store.find(str(project), write_req("src/b.py"))


def test_revoke_removes_the_grant(store: GrantStore, project: Path) -> None:
    grant = store.add(str(project), cmd_req("make"))
    assert store.revoke(grant.id)
    assert store.find(str(project), cmd_req("make")) is None
    assert store.list() == []
    assert not store.revoke(grant.id)


def test_tool_wide_grant_for_targetless_os_tool(store: GrantStore, project: Path) -> None:
    clip = ApprovalRequest(
        tool_id="read_clipboard", action_class=ActionClass.OS, target="", masked_args={}, node_id="wf",
    )
    store.add(str(project), clip)
    assert store.find(str(project), clip)


def test_grants_table_lives_in_history_db(store: GrantStore, project: Path, relavium_home: Path) -> None:
    store.add(str(project), cmd_req("make"))
    conn = open_db(history_db_path(relavium_home))
    try:
        rows = conn.execute("SELECT tool, kind, target FROM grants").fetchall()
        assert [tuple(r) for r in rows] == [("run_command", "argv", '["make"]')]
    finally:
        conn.close()
