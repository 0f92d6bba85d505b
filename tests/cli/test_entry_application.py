"""The entry point builds one Application per command, after parsing: ``relavium --help`` creates nothing.

``relavium --help`` (or a line the parser refuses) never creates the data
folder; a command gets its data folder and stores from that one Application.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import run_cli


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (("--help",), 0),
        (("runs", "--help"), 0),
        (("--version",), 2),  # no such flag: a usage error the parser raises
        ((), 2),  # no command
        (("runs", "list", "--status", "nonsense"), 2),
    ],
    ids=["help", "command-help", "version", "no-command", "bad-choice"],
)
def test_help_and_parse_errors_do_not_create_the_data_folder(
    cli_env: dict[str, str], tmp_path: Path, argv: tuple[str, ...], code: int
) -> None:
    home = tmp_path / "not-yet"
    got, _, _ = run_cli(*argv, env={**cli_env, "RELAVIUM_HOME": str(home)})
    assert got == code
    assert not home.exists()


def test_a_command_uses_the_data_folder_it_names(cli_env: dict[str, str], tmp_path: Path) -> None:
    home = tmp_path / "fresh"
    code, out, err = run_cli("runs", "list", "--json", env={**cli_env, "RELAVIUM_HOME": str(home)})
    assert code == 0, err
    assert out["total"] == 0 and home.is_dir() and (home / "history.db").is_file()
