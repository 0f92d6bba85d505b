"""Faults through the real ``relavium`` and ``relavium-desktop`` processes: a full disk, damaged files.

The full disk is a real 2 MiB tmpfs filled to ENOSPC (tests/fixtures/small_disk.py);
the damaged files are real bytes.  After each fault every file is whole -- the old
version or the new, never half -- and every message names the file and the cause
("disk is full", "not a database"), in one line, instead of "disk I/O error",
"[Errno 28]" or an internal error.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

from relavium_desktop.store.sessions import MIGRATIONS as SESSION_MIGRATIONS
from tests.cli.llm_cli import KEY, write_agent, write_providers
from tests.conftest import relavium_cmd
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.fixtures.small_disk import SmallDisk, small_disk  # noqa: F401 -- the fixture
from tests.helpers import run_cli
from tests.host.media.pictures import png

DESKTOP = Path(sys.executable).with_name("relavium-desktop")
SESSION_VERSION = len(SESSION_MIGRATIONS)


def _home_on(disk: SmallDisk, cli_env: dict[str, str]) -> tuple[Path, dict[str, str]]:
    home = disk.root / "home"
    home.mkdir()
    return home, {**cli_env, "RELAVIUM_HOME": str(home), "RELAVIUM_TEST_KEY": KEY}


def _chat(env: dict[str, str], stdin: str, *args: str, cwd: Path) -> tuple[int, str, str]:
    proc = subprocess.run([*relavium_cmd(), "chat", *args], input=stdin, env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=60, check=False)
    return proc.returncode, proc.stdout, proc.stderr


def _integrity(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()


def _one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith("relavium:")]
    assert len(lines) == 1, err
    assert "Traceback" not in err and "internal error" not in err and "Errno" not in err, err
    return lines[0]


# -- a full disk ---------------------------------------------------------------------------


def test_chat_on_a_full_disk_names_the_disk_and_keeps_the_history_whole(
    small_disk: SmallDisk, cli_env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path,  # noqa: F811
) -> None:
    home, env = _home_on(small_disk, cli_env)
    write_providers(home, llm_server.base_url)
    agent = write_agent(tmp_path / "helper.agent.yaml", tools=[])
    llm_server.script(Reply.say("Hello, Ada."))
    code, out, err = _chat(env, "my name is Ada\n/exit\n", "--agent", str(agent), cwd=tmp_path)
    assert code == 0, err
    assert "Hello, Ada." in out

    small_disk.fill()
    llm_server.script(Reply.say("never stored"))
    code, _, err = _chat(env, "a second chat\n/exit\n", "--agent", str(agent), cwd=tmp_path)
    assert code == 1
    assert _one_line(err) == f"relavium: cannot write history.db: the disk holding {home} is full"
    code, _, err = run_cli("chat", "--list", env=env)
    assert code == 1 and "the disk holding" in err and "is full" in err and "disk I/O error" not in err

    small_disk.free()
    assert _integrity(home / "history.db") == "ok"
    code, listed, err = run_cli("chat", "--list", "--json", env=env)
    assert code == 0, err
    assert len(listed) == 1  # the first chat, whole; the refused one left nothing behind


def test_write_file_replace_and_append_on_a_full_disk_leave_the_file_as_it_was(
    small_disk: SmallDisk, cli_env: dict[str, str],  # noqa: F811
) -> None:
    ws = small_disk.root / "ws"
    ws.mkdir()
    log = ws / "log.txt"
    log.write_text("x" * 3600)
    small_disk.fill(leave=8192)  # room for part of the append: the short write the issue saw

    for args in ({"path": "log.txt", "content": "y" * 40000, "append": True},
                 {"path": "log.txt", "content": "z" * 40000}):
        code, out, _ = run_cli("tool", "call", "write_file", "--workspace", str(ws),
                               "--args", json.dumps(args), "--json", env=cli_env)
        assert code == 1 and out["ok"] is False
        assert out["error"]["code"] == "tool_failed"
        assert out["error"]["message"] == "cannot write log.txt: the disk is full (nothing was written)"
        assert log.read_text() == "x" * 3600  # the old length, the old bytes
    assert sorted(p.name for p in ws.iterdir()) == ["log.txt"]  # no temp left behind


def test_media_publish_on_a_full_disk_keeps_nothing_and_says_so(
    small_disk: SmallDisk, cli_env: dict[str, str],  # noqa: F811
) -> None:
    home, env = _home_on(small_disk, cli_env)
    ws = small_disk.root / "ws"
    ws.mkdir()
    (ws / "shot.png").write_bytes(png(300, 300, noise=1))
    small_disk.fill()
    code, out, _ = run_cli("tool", "call", "read_file", "--workspace", str(ws),
                           "--args", '{"path":"shot.png"}', "--json", env=env)
    assert code == 1
    assert out["error"]["message"] == "cannot keep the file in the media store: the disk is full (nothing was kept)"
    objects = home / "media" / "objects"
    assert not objects.exists() or not any(p.is_file() for p in objects.rglob("*"))
    small_disk.free()
    code, out, _ = run_cli("tool", "call", "read_file", "--workspace", str(ws),
                           "--args", '{"path":"shot.png"}', "--json", env=env)
    assert code == 0, out  # and with room again it works


def test_providers_add_on_a_full_disk_keeps_providers_yaml_whole(
    small_disk: SmallDisk, cli_env: dict[str, str],  # noqa: F811
) -> None:
    home, env = _home_on(small_disk, cli_env)
    code, _, err = run_cli("providers", "add", "first", "--kind", "openai", "--api-key", "env:X", env=env)
    assert code == 0, err
    before = (home / "providers.yaml").read_bytes()
    small_disk.fill()
    code, _, err = run_cli("providers", "add", "second", "--kind", "anthropic", "--api-key", "env:Y", env=env)
    assert code == 1
    assert _one_line(err) == f"relavium: cannot write providers.yaml: the disk holding {home} is full"
    assert (home / "providers.yaml").read_bytes() == before
    assert not [p for p in home.iterdir() if p.name.endswith(".tmp")]
    small_disk.free()
    code, out, err = run_cli("providers", "list", "--json", env=env)
    assert code == 0, err
    names = [p["name"] for p in out]
    assert "first" in names and "second" not in names


def test_a_workflow_run_on_a_full_disk_says_so(
    small_disk: SmallDisk, cli_env: dict[str, str], tmp_path: Path,  # noqa: F811
) -> None:
    home, env = _home_on(small_disk, cli_env)
    flow = tmp_path / "w.relavium.yaml"
    flow.write_text(
        "schema_version: '1.0'\nworkflow:\n  id: w\n  nodes:\n"
        "    - {id: s, type: input}\n    - {id: t, type: transform, transform: '\"hi\"'}\n"
        "    - {id: out, type: output}\n  edges: [{from: s, to: t}, {from: t, to: out}]\n"
    )
    code, _, err = run_cli("validate", str(flow), env=env)
    assert code == 0, err
    code, _, err = run_cli("run", str(flow), env=env)  # history.db is made while there is room
    assert code == 0, err
    small_disk.fill()
    code, _, err = run_cli("run", str(flow), env=env)
    assert code == 1
    assert f"cannot write history.db: the disk holding {home} is full" in err
    assert "Traceback" not in err and "disk I/O error" not in err
    small_disk.free()
    assert _integrity(home / "history.db") == "ok"


# -- damaged files ------------------------------------------------------------------------------


def test_a_damaged_history_db_is_named_by_every_command_that_opens_it(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path,
) -> None:
    damaged = os.urandom(8192)
    (relavium_home / "history.db").write_bytes(damaged)
    expected = f"relavium: history.db is not a database or is damaged ({relavium_home / 'history.db'})"
    code, _, err = run_cli("chat", "--list", env=cli_env)
    assert code == 1 and _one_line(err) == expected
    code, out, err = run_cli("chat", "--list", "--json", env=cli_env)
    assert code == 1 and out == {"ok": False, "error": {"code": "storage", "message": expected[len("relavium: "):]}}
    code, _, err = _chat(cli_env, "hello\n", cwd=tmp_path)
    assert code == 1 and _one_line(err) == expected
    # gc cannot see what history.db references: it refuses rather than collect blind.
    (relavium_home / "media" / "objects").mkdir(parents=True)
    code, _, err = run_cli("media", "gc", env=cli_env)
    assert code == 1 and _one_line(err) == expected
    flow = tmp_path / "w.relavium.yaml"
    flow.write_text("schema_version: '1.0'\nworkflow:\n  id: w\n  nodes:\n    - {id: s, type: input}\n"
                    "    - {id: out, type: output}\n  edges: [{from: s, to: out}]\n")
    code, _, err = run_cli("run", str(flow), env=cli_env)
    assert code == 1 and expected in err and "Traceback" not in err
    assert (relavium_home / "history.db").read_bytes() == damaged  # kept as it was


def test_a_history_db_from_a_newer_version_is_one_clear_line(cli_env: dict[str, str], relavium_home: Path) -> None:
    code, _, err = run_cli("chat", "--list", env=cli_env)
    assert code == 0, err
    conn = sqlite3.connect(relavium_home / "history.db")
    conn.execute("UPDATE schema_versions SET version = 99 WHERE component = 'sessions'")
    conn.commit()
    conn.close()
    code, _, err = run_cli("chat", "--list", env=cli_env)
    assert code == 1
    assert _one_line(err) == ("relavium: history.db's sessions schema is version 99, newer than this app "
                              f"understands ({SESSION_VERSION}); update Relavium Desktop")


def test_a_cut_off_providers_yaml_fails_providers_list_and_points_to_the_backup(
    cli_env: dict[str, str], relavium_home: Path,
) -> None:
    code, _, err = run_cli("providers", "add", "box", "--kind", "openai", "--api-key", "env:X", env=cli_env)
    assert code == 0, err
    code, _, err = run_cli("providers", "add", "other", "--kind", "gemini", "--api-key", "env:Y", env=cli_env)
    assert code == 0, err
    path = relavium_home / "providers.yaml"
    assert (relavium_home / "providers.yaml.bak").is_file()  # the version before the second add
    text = path.read_text()
    cut = text[: text.index("base_url:") + len("base_url: http")]  # the truncated file
    path.write_text(cut)
    cut_entry = re.findall(r"^  (\w+):$", cut, re.MULTILINE)[-1]  # the entry the cut went through
    code, _, err = run_cli("providers", "list", env=cli_env)
    assert code == 1
    assert _one_line(err) == (f"relavium: providers list: providers.yaml: provider {cut_entry!r}: provider base URL: "
                              "url: has no host; the last good version is kept in providers.yaml.bak")
    path.write_text("providers: [\n  {box: ")  # not YAML at all: the .bak runs, in memory
    code, out, err = run_cli("providers", "list", env=cli_env)
    assert code == 0, err
    assert "box" in out and "providers.yaml: not valid YAML" in err
    assert "the last good version (providers.yaml.bak) is in use" in err
    code, _, err = run_cli("providers", "add", "third", "--kind", "openai", "--api-key", "env:Z", env=cli_env)
    assert code == 1 and "not valid YAML" in err and "fix or remove providers.yaml first" in err
    assert path.read_text() == "providers: [\n  {box: "  # never rewritten because it failed to parse


def test_a_damaged_mcp_yaml_leaves_chat_working_with_a_clear_line(
    env: dict[str, str], relavium_home: Path, llm_server: ScriptedLLMServer, tmp_path: Path,
) -> None:
    # The built-in chat agent (the one offered MCP tools) routes to anthropic/…: point it at the scripted server.
    (relavium_home / "providers.yaml").write_text(json.dumps({"providers": {"anthropic": {
        "kind": "anthropic", "base_url": llm_server.base_url, "api_key": "env:RELAVIUM_TEST_KEY",
        "allow_local": True}}}))
    (relavium_home / "mcp.yaml").write_bytes(b"servers:\n  fx: {command: [\x00\x01")
    llm_server.script(Reply.say("Still here."))
    code, out, err = _chat(env, "hello\n/exit\n", "--workspace", str(tmp_path), cwd=tmp_path)
    assert code == 0, err
    assert "Still here." in out
    assert "mcp.yaml is not usable; MCP tools are off" in out + err
    assert (relavium_home / "mcp.yaml").read_bytes() == b"servers:\n  fx: {command: [\x00\x01"


# -- the app's --headless-check ---------------------------------------------------------------------


def _check(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(DESKTOP), "--headless-check", *args], env={**env, "QT_QPA_PLATFORM": "offscreen"},
                          capture_output=True, text=True, timeout=120, check=False)


def test_headless_check_fails_with_the_reason_for_a_damaged_history_db(
    cli_env: dict[str, str], relavium_home: Path,
) -> None:
    damaged = os.urandom(8192)
    (relavium_home / "history.db").write_bytes(damaged)
    done = _check(cli_env)
    assert done.returncode == 1, done.stderr
    assert "ok, first paint" not in done.stdout
    assert (f"relavium-desktop: history.db cannot be used: history.db is not a database or is damaged "
            f"({relavium_home / 'history.db'})") in done.stderr
    assert (relavium_home / "history.db").read_bytes() == damaged


def test_headless_check_on_a_full_disk_fails_naming_the_disk(
    small_disk: SmallDisk, cli_env: dict[str, str],  # noqa: F811
) -> None:
    home, env = _home_on(small_disk, cli_env)
    assert _check(env).returncode == 0  # history.db and the settings made while there is room
    small_disk.fill()
    done = _check(env)
    assert done.returncode == 1, done.stderr
    assert f"history.db cannot be used: cannot write history.db: the disk holding {home} is full" in done.stderr


def test_headless_check_starts_on_broken_settings_files_and_names_each(
    cli_env: dict[str, str], relavium_home: Path,
) -> None:
    assert _check(cli_env).returncode == 0  # a good desktop-settings.ini ...
    assert _check(cli_env).returncode == 0  # ... copied to its .bak at the next start
    assert b"[" in (relavium_home / "desktop-settings.ini.bak").read_bytes()
    broken = {
        "desktop-settings.ini": os.urandom(512).replace(b"\n", b"") + b"\x00",
        "providers.yaml": b"providers:\n  box: {kind: openai, base_url: htt",
        "mcp.yaml": b"servers: [",
    }
    for name, data in broken.items():
        (relavium_home / name).write_bytes(data)
    done = _check(cli_env)
    assert done.returncode == 0, done.stderr
    assert "ok, first paint" in done.stdout
    assert "warning: desktop-settings.ini is damaged: it holds binary data" in done.stderr
    assert "started with the last good copy (desktop-settings.ini.bak)" in done.stderr
    assert "warning: providers.yaml: not valid YAML" in done.stderr
    assert "warning: mcp.yaml: not valid YAML" in done.stderr
    for name, data in broken.items():
        assert (relavium_home / name).read_bytes() == data, name  # each kept as it was


def test_headless_check_with_an_mcp_server_configured_is_quiet(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path,
) -> None:
    server = Path(__file__).resolve().parents[1] / "fixtures" / "mcp_server.py"
    (relavium_home / "mcp.yaml").write_text(
        f"servers:\n  fx:\n    transport: stdio\n    command: {sys.executable}\n    args: [{server}, stdio]\n"
    )
    project = tmp_path / "project"
    project.mkdir()
    done = _check(cli_env, "--project", str(project))
    assert done.returncode == 0, done.stderr
    assert "ok, first paint" in done.stdout
    assert "MCP" not in done.stderr and "event loop" not in done.stderr
