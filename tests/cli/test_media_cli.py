"""``relavium media`` as a user runs it: the real console script over a real store."""

from __future__ import annotations

import os
import subprocess
import time
import uuid
from pathlib import Path

from relavium_desktop.engine.llm.messages import MediaPart, Message
from relavium_desktop.host.media import MediaStore
from relavium_desktop.store.db import history_db_path, open_db
from relavium_desktop.store.sessions import SqliteSessionStore
from tests.helpers import run_cli


def _age(store: MediaStore, sha: str, seconds: float) -> None:
    path = store.root / "objects" / sha[:2] / sha
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_absent_store_reports_zero_and_is_not_created(cli_env: dict[str, str], relavium_home: Path) -> None:
    for action in ("stats", "sweep", "gc"):
        code, out, err = run_cli("media", action, "--json", env=cli_env)
        assert code == 0, err
    assert out == {"removed": [], "kept": [], "quarantined": [], "dry_run": False}
    code, out, _ = run_cli("media", "stats", "--json", env=cli_env)
    assert out == {"objects": 0, "bytes": 0, "temps": 0, "corrupt": 0, "quarantined": 0}
    assert not (relavium_home / "media").exists()


def test_stats_sweep_and_gc(cli_env: dict[str, str], relavium_home: Path) -> None:
    store = MediaStore(relavium_home / "media")
    kept = store.publish_bytes(b"a picture someone sent", "image/png")
    orphan = store.publish_bytes(b"a draft nobody kept" * 10, "image/png")
    fresh = store.publish_bytes(b"published a moment ago", "image/png")
    for sha in (kept.sha256, orphan.sha256):
        _age(store, sha, 2 * 3600)
    sessions = SqliteSessionStore(open_db(history_db_path(relavium_home)))
    sid = sessions.create(title="t", agent_id="a", mode="chat").id
    sessions.append_message(sid, Message("user", (MediaPart(kept.handle, "image/png"),)))

    dead = subprocess.Popen(["true"])
    dead.wait()
    old = time.time() - 3 * 24 * 3600
    abandoned = store.root / f"media-v1.{dead.pid}.{uuid.uuid4()}.tmp"
    young = store.root / f"media-v1.{dead.pid}.{uuid.uuid4()}.tmp"
    for path in (abandoned, young):
        path.write_bytes(b"half")
    os.utime(abandoned, (old, old))

    code, out, err = run_cli("media", "stats", "--json", env=cli_env)
    assert code == 0, err
    assert out == {"objects": 3, "bytes": kept.size + orphan.size + fresh.size, "temps": 2, "corrupt": 0,
                   "quarantined": 0}
    code, out, err = run_cli("media", "stats", env=cli_env)
    assert out.strip() == f"3 objects, {kept.size + orphan.size + fresh.size} bytes, 2 temporaries"

    code, out, err = run_cli("media", "sweep", "--json", env=cli_env)
    assert code == 0, err
    assert out == {"removed": [abandoned.name], "retained": [young.name], "reasons": {young.name: "too_young"}}
    assert not abandoned.exists() and young.exists()

    code, out, err = run_cli("media", "gc", "--dry-run", env=cli_env)
    assert code == 0, err
    assert f"would remove {orphan.sha256}" in out and len(store.list()) == 3

    code, out, err = run_cli("media", "gc", "--json", env=cli_env)
    assert code == 0, err
    assert out["removed"] == [orphan.sha256]
    assert sorted(out["kept"]) == sorted([kept.sha256, fresh.sha256])
    assert sorted(store.list()) == sorted([kept.sha256, fresh.sha256])


def test_unsafe_store_fails_with_exit_1_and_a_clear_line(cli_env: dict[str, str], relavium_home: Path,
                                                        tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (relavium_home / "media").symlink_to(elsewhere, target_is_directory=True)
    code, out, err = run_cli("media", "stats", "--json", env=cli_env)
    assert code == 1
    assert out["error"]["code"] == "media_unsafe"
    assert err.startswith("relavium: media stats: ") and "Traceback" not in err


def test_bad_invocations_exit_2(cli_env: dict[str, str]) -> None:
    for argv in (["media"], ["media", "purge"], ["media", "sweep", "--min-age", "-1"],
                 ["media", "sweep", "--dry-run"]):
        code, _, err = run_cli(*argv, env=cli_env)
        assert code == 2 and "usage error" in err, argv
