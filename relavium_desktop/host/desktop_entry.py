"""Install the app into the current user's desktop (menu entry, icon, file type).

``relavium-desktop --install-desktop-entry`` is how a pip/pipx install becomes
a double-clickable app: it writes, under ``$XDG_DATA_HOME`` (default
``~/.local/share``), the files a Linux desktop reads -- the ``.desktop``
launcher, the icon in the hicolor theme at every bundled size, the MIME type
for ``*.relavium.yaml`` and the AppStream metainfo -- from the copies shipped
in ``relavium_desktop/assets`` (packaging/make_icons.py writes them).  The
launcher's ``Exec`` is rewritten to the command that is actually installed,
since a menu launch does not see the shell's PATH of a venv.

Install is idempotent (same bytes, same result) and uninstall removes exactly
the paths install writes.  The desktop's cache tools run only when present:
a minimal system without them still gets working files, picked up at the next
login.  No Qt here: this runs before (and without) a display.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

APP_ID = "io.relavium.Desktop"
COMMAND = "relavium-desktop"
ASSETS = Path(__file__).resolve().parents[1] / "assets"
ICON_SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)
MIME_SOURCE = "relavium-workflow.xml"
# Characters that make an Exec argument need quoting (Desktop Entry spec, "The Exec key").
_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")
_ESCAPED_IN_QUOTES = set('"`$\\')
_TOOL_TIMEOUT_S = 30


@dataclass
class Report:
    """What an install or uninstall did, line by line, for the command to print."""

    lines: list[str] = field(default_factory=list)

    def add(self, line: str) -> None:
        self.lines.append(line)


def data_home(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    value = env.get("XDG_DATA_HOME", "")
    # The spec: a relative or empty XDG_DATA_HOME is invalid and ignored.
    if value and Path(value).is_absolute():
        return Path(value)
    return Path.home() / ".local" / "share"


def launcher_argv(argv0: str | None = None) -> list[str]:
    """The argv that starts this installed app from a menu (no shell, no venv PATH).

    The running ``relavium-desktop`` script when that is how we were started,
    else the one on PATH, else the one beside this interpreter, else this
    interpreter with ``-m relavium_desktop``.
    """
    import shutil  # here, not at import: the window imports APP_ID before its first paint

    argv0 = sys.argv[0] if argv0 is None else argv0
    if argv0 and Path(argv0).name == COMMAND:
        found = shutil.which(argv0) if os.sep not in argv0 else argv0
        if found and os.access(found, os.X_OK):
            return [str(Path(found).absolute())]
    found = shutil.which(COMMAND)
    if found:
        return [str(Path(found).absolute())]
    beside = Path(sys.executable).with_name(COMMAND)  # a venv's script, its bin/ not on PATH
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside.absolute())]
    return [str(Path(sys.executable).absolute()), "-m", "relavium_desktop"]


def quote_exec_arg(arg: str) -> str:
    """One Exec argument, double-quoted with the spec's escapes when it needs quoting."""
    if arg and not any(ch in _RESERVED for ch in arg):
        return arg.replace("%", "%%")
    body = "".join("\\" + ch if ch in _ESCAPED_IN_QUOTES else ch for ch in arg)
    return '"' + body.replace("%", "%%") + '"'


def exec_value(argv: Sequence[str]) -> str:
    """An Exec value for ``argv``, escaped once more as a Desktop Entry string (``\\`` -> ``\\\\``)."""
    line = " ".join(quote_exec_arg(arg) for arg in argv)
    return line.replace("\\", "\\\\")


def desktop_file(launcher: Sequence[str]) -> str:
    """The shipped .desktop text with Exec and TryExec pointing at ``launcher``."""
    template = (ASSETS / "linux" / f"{APP_ID}.desktop").read_text(encoding="utf-8")
    lines = []
    for line in template.splitlines():
        if line.startswith(f"Exec={COMMAND}"):
            lines.append("Exec=" + exec_value(launcher) + line[len(f"Exec={COMMAND}"):])
        elif line.startswith("TryExec="):
            lines.append("TryExec=" + launcher[0].replace("\\", "\\\\"))
        else:
            lines.append(line)
    return "\n".join(lines) + "\n"


def planned_files(home: Path, launcher: Sequence[str]) -> dict[Path, bytes]:
    """Every file install writes, and its bytes."""
    linux = ASSETS / "linux"
    icons = ASSETS / "icons"
    files: dict[Path, bytes] = {
        home / "applications" / f"{APP_ID}.desktop": desktop_file(launcher).encode(),
        home / "mime" / "packages" / f"{APP_ID}.xml": (linux / MIME_SOURCE).read_bytes(),
        home / "metainfo" / f"{APP_ID}.metainfo.xml": (linux / f"{APP_ID}.metainfo.xml").read_bytes(),
        home / "icons" / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg": (icons / "relavium.svg").read_bytes(),
    }
    for size in ICON_SIZES:
        target = home / "icons" / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png"
        files[target] = (icons / f"relavium-{size}.png").read_bytes()
    return files


def refresh_caches(home: Path, report: Report, env: Mapping[str, str] | None = None) -> None:
    """Tell the desktop about the change with whichever cache tools this system has."""
    import shutil
    import subprocess

    path = (os.environ if env is None else env).get("PATH")
    commands = (
        ("update-desktop-database", [str(home / "applications")]),
        ("update-mime-database", [str(home / "mime")]),
        ("gtk-update-icon-cache", ["--quiet", "--ignore-theme-index", str(home / "icons" / "hicolor")]),
    )
    for name, args in commands:
        tool = shutil.which(name, path=path)
        target = Path(args[-1])
        if tool is None or not target.is_dir():
            continue
        try:
            done = subprocess.run([tool, *args], capture_output=True, text=True,
                                  timeout=_TOOL_TIMEOUT_S, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            report.add(f"skipped {name}: {exc}")
            continue
        if done.returncode == 0:
            report.add(f"ran {name}")
        else:
            report.add(f"{name} failed (exit {done.returncode}); the desktop picks the files up at next login")


def install(home: Path | None = None, launcher: Sequence[str] | None = None,
            env: Mapping[str, str] | None = None) -> Report:
    home = data_home(env) if home is None else home
    launcher = list(launcher or launcher_argv())
    report = Report()
    for path, data in planned_files(home, launcher).items():
        if path.is_file() and path.read_bytes() == data:
            report.add(f"unchanged {path}")
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(path.name + ".tmp")
        temporary.write_bytes(data)
        temporary.replace(path)
        report.add(f"wrote {path}")
    report.add("launcher runs: " + " ".join(launcher))
    refresh_caches(home, report, env)
    return report


def uninstall(home: Path | None = None, env: Mapping[str, str] | None = None) -> Report:
    """Remove the files install writes (and folders left empty by that), then refresh caches."""
    home = data_home(env) if home is None else home
    report = Report()
    planned = planned_files(home, [COMMAND])
    for path in planned:
        if path.exists():
            path.unlink()
            report.add(f"removed {path}")
    if not report.lines:
        report.add(f"nothing to remove under {home}")
    hicolor = home / "icons" / "hicolor"
    cache = hicolor / "icon-theme.cache"
    if cache.is_file() and not any(p.is_file() and p != cache for p in hicolor.rglob("*")):
        # gtk-update-icon-cache leaves the cache of a folder with no icons left as it was:
        # it would go on listing ours.
        cache.unlink()
        report.add(f"removed {cache} (it listed only our icons)")
    # Folders are pruned only after the refresh: the cache tools need theirs to drop our entries.
    refresh_caches(home, report, env)
    folders = {parent for path in planned for parent in path.parents if home in parent.parents}
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
    return report
