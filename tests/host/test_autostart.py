"""Start at login: the XDG autostart entry is written, readable as a desktop entry, and removed."""

from __future__ import annotations

import configparser
import shutil
import subprocess
from pathlib import Path

import pytest

from relavium_desktop.host import autostart


def read_entry(path: Path) -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  -- keys are case-sensitive
    parser.read_string(path.read_text(encoding="utf-8"))
    return parser["Desktop Entry"]


def exec_argv(value: str) -> list[str]:
    """The Exec line as the Desktop Entry spec splits it: string unescaping, then its quoting rule."""
    value = value.replace("\\\\", "\\")
    args: list[str] = []
    current: list[str] | None = None
    quoted = False
    i = 0
    while i < len(value):
        ch = value[i]
        if quoted and ch == "\\" and i + 1 < len(value) and value[i + 1] in '"`$\\':
            current = (current or []) + [value[i + 1]]
            i += 2
            continue
        if ch == '"':
            quoted = not quoted
            current = current or []
        elif ch == " " and not quoted:
            if current is not None:
                args.append("".join(current))
            current = None
        else:
            current = (current or []) + [ch]
        i += 1
    assert not quoted, f"unbalanced quotes in {value!r}"
    if current is not None:
        args.append("".join(current))
    return args


def test_enable_writes_a_desktop_entry_under_xdg_config_home_and_disable_removes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    command = str(tmp_path / "bin" / "relavium-desktop")

    path = autostart.enable("io.example.Test", command=command)

    assert path == config / "autostart" / "io.example.Test.desktop"
    entry = read_entry(path)
    assert entry["Type"] == "Application"
    assert entry["X-GNOME-Autostart-enabled"] == "true"
    assert exec_argv(entry["Exec"]) == [command, "--hidden"]  # at login: into the tray
    assert autostart.is_enabled("io.example.Test")
    assert [p.name for p in path.parent.iterdir()] == ["io.example.Test.desktop"]  # no partial file left

    assert autostart.disable("io.example.Test") is True
    assert not path.exists()
    assert not autostart.is_enabled("io.example.Test")
    assert autostart.disable("io.example.Test") is False


def test_a_command_with_spaces_and_quotes_survives_the_exec_quoting(tmp_path: Path) -> None:
    command = str(tmp_path / 'My "Apps" $HOME' / "relavium-desktop")
    env = {"XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    entry = read_entry(autostart.enable(command=command, env=env))
    assert entry["Exec"].startswith('"')
    assert exec_argv(entry["Exec"]) == [command, "--hidden"]  # at login: into the tray
    validate = shutil.which("desktop-file-validate")
    if validate is not None:
        path = autostart.entry_path(env=env)
        result = subprocess.run([validate, str(path)], capture_output=True, text=True, check=False)
        assert result.returncode == 0, result.stdout + result.stderr


def test_unset_or_relative_xdg_config_home_means_dot_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert autostart.autostart_dir({}) == tmp_path / ".config" / "autostart"
    assert autostart.autostart_dir({"XDG_CONFIG_HOME": "relative/dir"}) == tmp_path / ".config" / "autostart"


def test_the_installed_launcher_is_found_and_the_entry_validates(tmp_path: Path) -> None:
    """The venv's relavium-desktop is what Exec names; desktop-file-validate accepts the file."""
    env = {"XDG_CONFIG_HOME": str(tmp_path)}
    path = autostart.enable(env=env)
    argv = exec_argv(read_entry(path)["Exec"])
    assert Path(argv[0]).name == "relavium-desktop" and Path(argv[0]).exists()
    validate = shutil.which("desktop-file-validate")
    if validate is None:
        pytest.skip("desktop-file-validate is not installed (Debian package desktop-file-utils)")
    result = subprocess.run([validate, str(path)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
