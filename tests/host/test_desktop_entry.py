"""``relavium-desktop --install-desktop-entry`` makes a menu launcher that really starts the app.

The launcher is read back the way a desktop launches it (gtk-launch /
GLib): the Desktop Entry string is unescaped, the Exec line split by its
quoting rules and the field codes replaced, and the resulting argv must be
the installed ``relavium-desktop`` with the user's files -- and must run.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from relavium_desktop.host import desktop_entry
from relavium_desktop.host.desktop_entry import APP_ID, ICON_SIZES

SCRIPT = Path(sys.executable).with_name("relavium-desktop")


def desktop_groups(text: str) -> dict[str, dict[str, str]]:
    groups: dict[str, dict[str, str]] = {}
    current: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("[") and line.endswith("]"):
            current = groups.setdefault(line[1:-1], {})
        elif "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            current[key.strip()] = value.strip()
    return groups


def unescape_string(value: str) -> str:
    """The Desktop Entry ``string`` escapes: \\s \\n \\t \\r \\\\."""
    out, chars = [], iter(value)
    for ch in chars:
        if ch == "\\":
            nxt = next(chars, "")
            out.append({"s": " ", "n": "\n", "t": "\t", "r": "\r", "\\": "\\"}.get(nxt, "\\" + nxt))
        else:
            out.append(ch)
    return "".join(out)


def exec_argv(value: str, files: list[str]) -> list[str]:
    """Split an Exec value and expand its field codes as a launcher does."""
    line = unescape_string(value)
    argv: list[str] = []
    i = 0
    while i < len(line):
        if line[i] == " ":
            i += 1
            continue
        if line[i] == '"':
            arg, i = [], i + 1
            while line[i] != '"':
                if line[i] == "\\" and line[i + 1] in '"`$\\':
                    i += 1
                arg.append(line[i])
                i += 1
            argv.append("".join(arg).replace("%%", "%"))
            i += 1
            continue
        end = line.find(" ", i)
        end = len(line) if end == -1 else end
        token = line[i:end]
        i = end
        if token in ("%F", "%U"):
            argv.extend(files)
        elif token in ("%f", "%u"):
            argv.extend(files[:1])
        elif token in ("%i", "%c", "%k"):
            continue
        else:
            argv.append(token.replace("%%", "%"))
    return argv


def install_cli(home: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["XDG_DATA_HOME"] = str(home)
    return subprocess.run([str(SCRIPT), *flags], env=env, capture_output=True, text=True, timeout=120, check=False)


def snapshot(home: Path) -> dict[str, bytes]:
    return {str(p.relative_to(home)): p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file()}


def test_install_without_a_display_lands_every_file_and_a_runnable_launcher(tmp_path: Path) -> None:
    assert SCRIPT.exists(), "the package is not installed into the venv (pip install -e .)"
    home = tmp_path / "share"
    done = install_cli(home, "--install-desktop-entry")
    assert done.returncode == 0, done.stderr
    assert "wrote" in done.stdout and "no graphical display" not in done.stderr

    desktop = home / "applications" / f"{APP_ID}.desktop"
    expected = [
        desktop,
        home / "mime" / "packages" / f"{APP_ID}.xml",
        home / "metainfo" / f"{APP_ID}.metainfo.xml",
        home / "icons" / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg",
        *(home / "icons" / "hicolor" / f"{s}x{s}" / "apps" / f"{APP_ID}.png" for s in ICON_SIZES),
    ]
    for path in expected:
        assert path.is_file() and path.stat().st_size > 0, path

    validate = subprocess.run(["desktop-file-validate", str(desktop)], capture_output=True, text=True, check=False)
    assert validate.returncode == 0, validate.stdout + validate.stderr

    groups = desktop_groups(desktop.read_text(encoding="utf-8"))
    main, action = groups["Desktop Entry"], groups["Desktop Action process-clipboard"]
    workflow = str(tmp_path / "my flows" / "review.relavium.yaml")
    assert exec_argv(main["Exec"], [workflow]) == [str(SCRIPT), workflow]
    assert exec_argv(action["Exec"], []) == [str(SCRIPT), "--process-clipboard"]
    assert main["Icon"] == APP_ID and main["StartupWMClass"] == APP_ID

    # The launcher's argv is a real, runnable relavium-desktop.
    helped = subprocess.run([*exec_argv(action["Exec"], []), "--help"], capture_output=True, text=True,
                            timeout=120, check=False)
    assert helped.returncode == 0 and "relavium-desktop" in helped.stdout, helped.stderr

    # The desktop now knows *.relavium.yaml (update-mime-database ran over the user's database).
    globs = (home / "mime" / "globs2").read_text(encoding="utf-8")
    assert "application/x-relavium-workflow:*.relavium.yaml" in globs


def test_install_twice_is_the_same_and_uninstall_leaves_no_trace(tmp_path: Path) -> None:
    home = tmp_path / "share"
    assert install_cli(home, "--install-desktop-entry").returncode == 0
    first = snapshot(home)
    again = install_cli(home, "--install-desktop-entry")
    assert again.returncode == 0 and "wrote " not in again.stdout
    assert snapshot(home) == first

    gone = install_cli(home, "--uninstall-desktop-entry")
    assert gone.returncode == 0 and "removed" in gone.stdout
    left = snapshot(home)
    mentions = [name for name, data in left.items() if APP_ID.encode() in data or b"x-relavium-workflow" in data]
    assert not mentions
    assert not [name for name in left if APP_ID in name]


def test_missing_cache_tools_never_fail_the_install(tmp_path: Path) -> None:
    empty = tmp_path / "no-tools"
    empty.mkdir()
    home = tmp_path / "share"
    report = desktop_entry.install(home, ["/opt/relavium/bin/relavium-desktop"], env={"PATH": str(empty)})
    assert not any(line.startswith("ran ") for line in report.lines)
    assert (home / "applications" / f"{APP_ID}.desktop").is_file()
    desktop_entry.uninstall(home, env={"PATH": str(empty)})
    assert snapshot(home) == {}
    assert not any(home.rglob("*"))


@pytest.mark.parametrize("launcher", [
    ["/home/ann/My Apps/relavium-desktop"],
    ["/opt/odd \"$HOME\" `x` \\dir/python3", "-m", "relavium_desktop"],
    ["/srv/100%/relavium-desktop"],
])
def test_exec_quoting_round_trips_through_the_launcher_rules(tmp_path: Path, launcher: list[str]) -> None:
    text = desktop_entry.desktop_file(launcher)
    path = tmp_path / f"{APP_ID}.desktop"
    path.write_text(text, encoding="utf-8")
    validate = subprocess.run(["desktop-file-validate", str(path)], capture_output=True, text=True, check=False)
    assert validate.returncode == 0, validate.stdout + validate.stderr
    groups = desktop_groups(text)
    assert exec_argv(groups["Desktop Entry"]["Exec"], ["/tmp/a b.relavium.yaml"]) == [*launcher, "/tmp/a b.relavium.yaml"]
    assert exec_argv(groups["Desktop Action process-clipboard"]["Exec"], []) == [*launcher, "--process-clipboard"]


def test_python_m_install_still_points_the_menu_at_the_venv_script(monkeypatch: pytest.MonkeyPatch,
                                                                   tmp_path: Path) -> None:
    """``python -m relavium_desktop --install-desktop-entry`` from a venv whose bin/ is not on PATH."""
    monkeypatch.setenv("PATH", str(tmp_path))
    assert desktop_entry.launcher_argv("/somewhere/relavium_desktop/__main__.py") == [str(SCRIPT)]


def test_a_data_folder_that_cannot_be_written_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the data folder should be\n")
    done = install_cli(blocker / "share", "--install-desktop-entry")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("relavium-desktop: cannot install the desktop entry: ")
    assert len(done.stderr.strip().splitlines()) == 1
