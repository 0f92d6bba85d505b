"""Login-time persistence locations are on the write floor, through the real ``relavium tool call``.

Each test runs the CLI with ``HOME`` (and, where said, ``XDG_CONFIG_HOME``)
pointing into a temporary folder, at the ``full`` tier (the whole file
system is in scope), so only the floor stands between the call and the file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.helpers import run_cli


@pytest.fixture
def home(tmp_path: Path, cli_env: dict[str, str]) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    cli_env["HOME"] = str(home)
    cli_env.pop("XDG_CONFIG_HOME", None)
    cli_env.pop("XDG_DATA_HOME", None)
    return home


@pytest.fixture
def ws(home: Path) -> Path:
    ws = home / "project"
    (ws / "docs").mkdir(parents=True)
    return ws


def _write(env: dict[str, str], ws: Path, path: str | Path, content: str = "[Desktop Entry]\nExec=evil\n",
           **extra: object) -> tuple[int, dict[str, object]]:
    args = {"path": str(path), "content": content, "createParents": True, **extra}
    code, out, err = run_cli("tool", "call", "write_file", "--workspace", str(ws), "--tier", "full",
                             "--args", json.dumps(args), "--json", env=env)
    assert isinstance(out, dict), err
    return code, out


def _refused(code: int, out: dict[str, object]) -> str:
    assert code == 1, out
    error = out["error"]
    assert isinstance(error, dict)
    assert (error["code"], error["reason"]) == ("tool_denied", "protected_path"), error
    message = str(error["message"])
    assert "write floor" in message
    return message


PERSISTENCE = [
    ".config/autostart/evil.desktop",
    ".config/systemd/user/evil.service",
    ".config/systemd/user/default.target.wants/evil.service",
    ".config/environment.d/50-evil.conf",
    "Library/LaunchAgents/com.evil.agent.plist",
    "AppData/Roaming/Microsoft/Windows/Start Menu/Programs/Startup/evil.bat",
]


@pytest.mark.parametrize("rel", PERSISTENCE)
def test_creating_a_persistence_file_is_refused(cli_env: dict[str, str], home: Path, ws: Path, rel: str) -> None:
    message = _refused(*_write(cli_env, ws, home / rel))
    assert "login" in message or "launchd" in message or "Startup" in message or "systemd" in message
    assert not (home / rel).exists()
    # Nothing was created on the way either: the refusal comes before createParents makes a folder.
    assert not (home / rel.split("/", maxsplit=1)[0]).exists()


def test_overwriting_and_appending_to_an_existing_entry_are_refused(
    cli_env: dict[str, str], home: Path, ws: Path
) -> None:
    entry = home / ".config" / "autostart" / "app.desktop"
    entry.parent.mkdir(parents=True)
    entry.write_text("[Desktop Entry]\nExec=app\n")
    _refused(*_write(cli_env, ws, entry))
    _refused(*_write(cli_env, ws, entry, append=True))
    # A folder spelled in another case is refused too (the floor folds case on every OS).
    _refused(*_write(cli_env, ws, home / ".Config" / "AutoStart" / "x.desktop"))
    assert entry.read_text() == "[Desktop Entry]\nExec=app\n"
    assert sorted(p.name for p in entry.parent.iterdir()) == ["app.desktop"]


def test_look_alikes_inside_a_project_stay_writable(cli_env: dict[str, str], home: Path, ws: Path) -> None:
    for rel in ("docs/autostart.md", "config/autostart/readme.txt", "deploy/systemd/user/app.service"):
        code, out = _write(cli_env, ws, rel, content="notes\n")
        assert code == 0, out
        assert (ws / rel).read_text() == "notes\n"


def test_a_symlinked_parent_and_dot_dot_do_not_reach_a_persistence_folder(
    cli_env: dict[str, str], home: Path, ws: Path
) -> None:
    (home / ".config").mkdir()
    (ws / "cfg").symlink_to(home / ".config")  # a project folder that is really ~/.config
    (ws / "wants").symlink_to(home / ".config", target_is_directory=True)
    _refused(*_write(cli_env, ws, "cfg/autostart/evil.desktop"))
    _refused(*_write(cli_env, ws, "wants/systemd/user/default.target.wants/evil.service"))
    # ``..`` out of the project into the home, and ``..`` inside the persistence folder.
    _refused(*_write(cli_env, ws, "docs/../../.config/autostart/evil.desktop"))
    _refused(*_write(cli_env, ws, "cfg/autostart/../autostart/evil.desktop"))
    (home / ".config" / "autostart").mkdir()
    (ws / "startup").symlink_to(home / ".config" / "autostart")
    _refused(*_write(cli_env, ws, "startup/evil.desktop"))
    assert list((home / ".config" / "autostart").iterdir()) == []
    assert sorted(p.name for p in (home / ".config").iterdir()) == ["autostart"]


def test_a_moved_config_home_is_refused_where_xdg_config_home_points(
    cli_env: dict[str, str], home: Path, ws: Path
) -> None:
    config_home = home / "dotfiles-config"
    config_home.mkdir()
    target = config_home / "autostart" / "evil.desktop"
    # Without XDG_CONFIG_HOME the folder is an ordinary one.
    code, out = _write(cli_env, ws, target)
    assert code == 0, out
    target.unlink()
    cli_env["XDG_CONFIG_HOME"] = str(config_home)
    _refused(*_write(cli_env, ws, target))
    _refused(*_write(cli_env, ws, config_home / "systemd" / "user" / "evil.service"))
    _refused(*_write(cli_env, ws, config_home / "environment.d" / "evil.conf"))
    # Reached through a project symlink into the moved home.
    (ws / "linked").symlink_to(config_home)
    _refused(*_write(cli_env, ws, "linked/autostart/evil.desktop"))
    # An ordinary app folder inside it is still writable.
    code, out = _write(cli_env, ws, config_home / "myapp" / "settings.ini", content="x=1\n")
    assert code == 0, out
    assert not target.exists()
    assert os.listdir(config_home / "autostart") == []
