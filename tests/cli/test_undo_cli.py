"""``relavium undo`` as a user runs it: real ``write_file`` calls, then the real console script undoing them.

Each ``relavium tool call`` is its own run (``tool-…``), so ``undo --run`` and
``undo --checkpoint`` take its writes back.  Files are compared byte for byte.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.cli.llm_cli import write_agent
from tests.conftest import relavium_cmd
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.helpers import run_cli


def _write(env: dict[str, str], ws: Path, path: str, content: str, *, append: bool = False) -> dict[str, Any]:
    args = ws.parent / "args.json"  # as a file: a large content would not fit on a command line
    args.write_text(json.dumps({"path": path, "content": content, "append": append, "createParents": True}))
    code, out, err = run_cli(
        "tool",
        "call",
        "write_file",
        "--workspace",
        str(ws),
        "--json",
        "--args",
        f"@{args}",
        env=env,
    )
    assert code == 0, err
    assert out["ok"], out
    # The tool_result event carries the same counts the result does.
    summary = json.loads(out["events"][-1]["outputSummary"])
    assert (summary["linesAdded"], summary["linesRemoved"]) == (
        out["result"]["linesAdded"],
        out["result"]["linesRemoved"],
    )
    return {"result": out["result"], "run": out["events"][0]["runId"]}


def _undo(env: dict[str, str], *argv: str) -> tuple[int, Any, str]:
    return run_cli("undo", *argv, "--json", env=env)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def test_undoing_an_overwrite_restores_a_binary_file_byte_for_byte(cli_env: dict[str, str], ws: Path) -> None:
    # The user placed a binary file; the agent writes text over it.
    original = bytes(range(256)) * 40 + b"\x00\xff tail without newline"
    (ws / "logo.bin").write_bytes(original)
    os.chmod(ws / "logo.bin", 0o640)
    wrote = _write(cli_env, ws, "logo.bin", "now text\n")
    assert (ws / "logo.bin").read_bytes() == b"now text\n"
    assert wrote["result"]["linesAdded"] == 1 and wrote["result"]["linesRemoved"] >= 1

    code, listed, err = _undo(cli_env, "list", "--run", wrote["run"])
    assert code == 0, err
    [entry] = listed["checkpoints"]
    assert entry["id"] == wrote["result"]["checkpointId"]
    assert entry["path"] == str((ws / "logo.bin").resolve()) and entry["existed"] is True

    code, out, err = _undo(cli_env, "restore", "--run", wrote["run"])
    assert code == 0, err
    assert [f["action"] for f in out["plan"]] == ["restore"]
    assert (ws / "logo.bin").read_bytes() == original
    assert (ws / "logo.bin").stat().st_mode & 0o777 == 0o640  # the restore is a replace that keeps the mode


def test_undoing_a_creation_deletes_the_file_and_that_undo_can_be_undone(
    cli_env: dict[str, str], ws: Path
) -> None:
    wrote = _write(cli_env, ws, "new/notes.md", "first\nsecond\n")
    assert wrote["result"]["linesAdded"] == 2 and wrote["result"]["linesRemoved"] == 0
    code, out, err = _undo(cli_env, "restore", "--checkpoint", wrote["result"]["checkpointId"])
    assert code == 0, err
    assert [f["action"] for f in out["plan"]] == ["delete"]
    assert out["deleted"] == [str((ws / "new" / "notes.md").resolve())]
    assert not (ws / "new" / "notes.md").exists()

    # The undo kept what it removed: restoring its checkpoint brings the file back.
    [undo_id] = out["undoCheckpointIds"]
    code, out, err = _undo(cli_env, "restore", "--checkpoint", undo_id)
    assert code == 0, err
    assert (ws / "new" / "notes.md").read_bytes() == b"first\nsecond\n"


def test_several_writes_of_one_path_restore_the_oldest_content(cli_env: dict[str, str], ws: Path) -> None:
    (ws / "a.txt").write_bytes(b"original\n")
    first = _write(cli_env, ws, "a.txt", "one\n")
    second = _write(cli_env, ws, "a.txt", "two\n", append=True)
    assert second["result"]["linesAdded"] == 1 and second["result"]["linesRemoved"] == 0
    code, out, err = _undo(cli_env, "restore", "--checkpoint", first["result"]["checkpointId"])
    # Only the first write was named, and the file moved on since: it is a conflict, nothing changes.
    assert code == 1 and out["error"]["code"] == "conflict", err
    assert (ws / "a.txt").read_bytes() == b"one\ntwo\n"
    for run in (second["run"], first["run"]):  # newest first, as a person undoes them
        code, out, err = _undo(cli_env, "restore", "--run", run)
        assert code == 0, err
    assert (ws / "a.txt").read_bytes() == b"original\n"


def test_a_conflict_is_refused_and_with_force_nothing_is_lost(cli_env: dict[str, str], ws: Path) -> None:
    (ws / "notes.md").write_bytes(b"mine\n")
    wrote = _write(cli_env, ws, "notes.md", "agent\n")
    (ws / "notes.md").write_bytes(b"edited by me since\nline two\n")

    code, out, err = _undo(cli_env, "restore", "--run", wrote["run"])
    assert code == 1
    assert out["ok"] is False and out["error"]["code"] == "conflict"
    assert [f["action"] for f in out["plan"]] == ["conflict"]
    assert "changed since the agent wrote it" in out["plan"][0]["reason"]
    assert "--force" in err
    assert (ws / "notes.md").read_bytes() == b"edited by me since\nline two\n"  # untouched

    code, out, err = _undo(cli_env, "restore", "--run", wrote["run"], "--force")
    assert code == 0, err
    assert (ws / "notes.md").read_bytes() == b"mine\n"
    # The edit the force overwrote was kept first: undoing the undo brings it back.
    [undo_id] = out["undoCheckpointIds"]
    code, out, err = _undo(cli_env, "restore", "--checkpoint", undo_id)
    assert code == 0, err
    assert (ws / "notes.md").read_bytes() == b"edited by me since\nline two\n"


def test_restoring_a_path_that_is_now_protected_is_refused(cli_env: dict[str, str], ws: Path) -> None:
    (ws / "cfg" / "autostart").mkdir(parents=True)
    (ws / "cfg" / "autostart" / "tool.desktop").write_bytes(b"[Desktop Entry]\n")
    wrote = _write(cli_env, ws, "cfg/autostart/tool.desktop", "changed\n")
    # The folder has since become the user's configuration home: its autostart/ is on the write floor.
    protected_env = {**cli_env, "XDG_CONFIG_HOME": str(ws / "cfg")}
    code, out, err = _undo(protected_env, "restore", "--run", wrote["run"], "--force")
    assert code == 1
    assert [f["action"] for f in out["plan"]] == ["refused"]
    assert "protected" in out["plan"][0]["reason"]
    assert out["error"]["code"] == "refused" and "protected" in err
    assert (ws / "cfg" / "autostart" / "tool.desktop").read_bytes() == b"changed\n"


def test_retention_evicts_the_oldest_checkpoints_first(cli_env: dict[str, str], ws: Path) -> None:
    runs = []
    for name in ("old.txt", "middle.txt", "new.txt"):
        (ws / name).write_bytes(name.encode() * 100)  # 700-900 bytes kept per write
        runs.append(_write(cli_env, ws, name, "x\n")["run"])
        time.sleep(0.01)  # distinct creation times
    # Room for two of the three before-contents: the oldest goes.
    tight = {
        **cli_env,
        "RELAVIUM_CHECKPOINT_MAX_BYTES": str(len(b"middle.txt" * 100) + len(b"new.txt" * 100)),
    }
    counts = []
    for run in runs:
        code, out, err = _undo(tight, "list", "--run", run)
        assert code == 0, err
        counts.append(len(out["checkpoints"]))
    assert counts == [0, 1, 1]
    code, out, _err = _undo(tight, "restore", "--run", runs[0])
    assert code == 0 and out["plan"] == []
    assert (ws / "old.txt").read_bytes() == b"x\n"  # evicted: no longer undoable


def test_sigkill_during_a_restore_leaves_the_old_or_the_new_content(
    cli_env: dict[str, str], ws: Path
) -> None:
    old = b"before the agent\n" * 20_000
    new = "written by the agent\n" * 20_000
    (ws / "big.txt").write_bytes(old)
    wrote = _write(cli_env, ws, "big.txt", new)
    # At the seam: the temp file is whole and synced, the rename not done.
    paused = {**cli_env, "RELAVIUM_TEST_PAUSE_RESTORE": "60"}
    proc = subprocess.Popen(
        [*relavium_cmd(), "undo", "restore", "--run", wrote["run"]],
        env=paused,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        assert "paused before rename" in line, line + proc.stderr.read()
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert (ws / "big.txt").read_bytes() == new.encode()
    # Then at random moments, through a whole restore: never a mix.
    rng = random.Random(25)
    for _ in range(4):
        proc = subprocess.Popen(
            [*relavium_cmd(), "undo", "restore", "--run", wrote["run"], "--force"],
            env=cli_env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(rng.uniform(0.3, 2.5))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        assert (ws / "big.txt").read_bytes() in (old, new.encode())
    code, _out, err = _undo(cli_env, "restore", "--run", wrote["run"], "--force")
    assert code == 0, err
    assert (ws / "big.txt").read_bytes() == old


def test_usage_errors_exit_2(cli_env: dict[str, str]) -> None:
    code, _out, err = run_cli("undo", "restore", env=cli_env)
    assert code == 2 and "--checkpoint" in err
    code, _out, err = run_cli("undo", "list", "--run", "x", "--since-message", "1", env=cli_env)
    assert code == 2 and "--chat" in err
    code, out, _err = run_cli("undo", "restore", "--checkpoint", "cp-none", "--json", env=cli_env)
    assert code == 1 and out["error"]["code"] == "not_found"


def test_a_chats_changes_since_a_message_are_undone_and_leave_with_the_chat(
    env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path, ws: Path
) -> None:
    agent = write_agent(tmp_path / "helper.agent.yaml", tools=["write_file"])
    (ws / "plan.md").write_bytes(b"step one\n")
    llm_server.script(
        Reply.call("write_file", {"path": "plan.md", "content": "step one\nstep two\n"}),
        Reply.say("Added."),
        Reply.call("write_file", {"path": "plan.md", "content": "rewritten\n"}),
        Reply.say("Rewritten."),
    )
    proc = subprocess.run(
        [*relavium_cmd(), "chat", "--agent", str(agent), "--workspace", str(ws), "--mode", "auto"],
        input="add a step\nrewrite it\n/exit\n",
        env=env,
        cwd=ws,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert (ws / "plan.md").read_bytes() == b"rewritten\n"
    code, listed, _ = run_cli("chat", "--list", "--json", env=env)
    [sid] = [s["id"] for s in listed]

    code, out, err = _undo(env, "list", "--chat", sid)
    assert code == 0, err
    first, second = out["checkpoints"]
    assert (first["linesAdded"], first["linesRemoved"], second["linesAdded"], second["linesRemoved"]) == (
        1,
        0,
        1,
        2,
    )
    assert second["messageIndex"] > first["messageIndex"]

    # Undo only what the second message led to.
    code, out, err = _undo(env, "restore", "--chat", sid, "--since-message", str(first["messageIndex"] + 1))
    assert code == 0, err
    assert [f["checkpointId"] for f in out["plan"]] == [second["id"]]
    assert (ws / "plan.md").read_bytes() == b"step one\nstep two\n"

    assert run_cli("chat", "--delete", sid, "--json", env=env)[1] == {"ok": True}
    code, out, err = _undo(env, "list", "--chat", sid)
    assert code == 0 and out["checkpoints"] == [], err
