"""A server's form, asked in the terminal: ``relavium tool call`` with stdin on a real pseudo-terminal.

Real parts: the console script, the SDK fixture server over stdio (its
``ask_name`` tool elicits ``{name: string}``), a pty from Python's ``pty``
module as the terminal.  Without a terminal the same call declines (covered
in test_mcp_tools_cli.py).
"""

from __future__ import annotations

import json
import os
import pty
import subprocess
from pathlib import Path

from tests.conftest import relavium_cmd
from tests.host.mcp.conftest import FIXTURE, PYTHON


def _at_terminal(argv: list[str], env: dict[str, str], typed: str) -> subprocess.CompletedProcess[str]:
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen([*relavium_cmd(), *argv], stdin=slave, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=env, text=True)
        os.write(master, typed.encode())
        out, err = proc.communicate(timeout=90)
        return subprocess.CompletedProcess(argv, proc.returncode, out, err)
    finally:
        os.close(slave)
        os.close(master)


def _write_fixture(home: Path) -> None:
    (home / "mcp.yaml").write_text(
        f"servers:\n  fixture:\n    transport: stdio\n    command: {json.dumps(PYTHON)}\n"
        f"    args: [{json.dumps(FIXTURE)}, stdio]\n"
    )


def test_a_form_is_asked_field_by_field_and_the_answer_reaches_the_server(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path,
) -> None:
    _write_fixture(relavium_home)
    # An empty answer to a required field is asked again; then the name.
    done = _at_terminal(["tool", "call", "mcp_fixture_ask_name", "--workspace", str(tmp_path), "--json"],
                        cli_env, "\nAda Lovelace\n")
    assert done.returncode == 0, done.stderr
    assert "hello Ada Lovelace" in json.loads(done.stdout)["model_facing"]
    assert "MCP server fixture asks: What is your name?" in done.stderr
    assert "this one is required" in done.stderr
    assert "cannot show forms" not in done.stderr


def test_typing_decline_at_the_terminal_declines_the_form(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path,
) -> None:
    _write_fixture(relavium_home)
    done = _at_terminal(["tool", "call", "mcp_fixture_ask_name", "--workspace", str(tmp_path), "--json"],
                        cli_env, "!decline\n")
    assert done.returncode == 0, done.stderr
    assert "no name (decline)" in json.loads(done.stdout)["model_facing"]
