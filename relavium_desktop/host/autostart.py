"""Start at login: the XDG autostart entry (``$XDG_CONFIG_HOME/autostart/<app id>.desktop``).

Desktops that follow the XDG autostart spec (GNOME, KDE, Xfce, ...) launch
every ``.desktop`` file in that folder when the user logs in, so writing the
file is the whole of "start at login" on Linux; removing it undoes it.  The
Exec line names the installed ``relavium-desktop`` command, found at the
moment the setting is switched on, so the entry keeps working after the
terminal that started the app is gone.

The app id is a parameter, not imported: ``host`` must not import ``ui``
(where the app's identity lives), so the caller passes it.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path

DEFAULT_APP_ID = "io.relavium.Desktop"
COMMAND = "relavium-desktop"
# Characters that make the spec require a quoted Exec argument.
_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")


def autostart_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CONFIG_HOME/autostart``, with the spec's default of ``~/.config`` when unset or relative."""
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME", "")
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".config"
    return root / "autostart"


def entry_path(app_id: str = DEFAULT_APP_ID, env: Mapping[str, str] | None = None) -> Path:
    return autostart_dir(env) / f"{app_id}.desktop"


def installed_command() -> str:
    """The ``relavium-desktop`` launcher: on PATH, else the one beside this interpreter (a venv)."""
    found = shutil.which(COMMAND)
    if found:
        return str(Path(found).resolve())
    beside = Path(sys.executable).parent / COMMAND
    if beside.exists():
        return str(beside)
    raise FileNotFoundError(f"{COMMAND} is not installed (not on PATH nor beside {sys.executable})")


def exec_argument(arg: str) -> str:
    """One Exec argument, quoted and escaped as the Desktop Entry spec asks when it must be."""
    if arg and not (_RESERVED & set(arg)):
        return arg
    escaped = "".join("\\" + ch if ch in '"`$\\' else ch for ch in arg)
    # The whole value is a string too, where a backslash is itself escaped.
    return '"' + escaped.replace("\\", "\\\\") + '"'


def desktop_entry(command: str) -> str:
    return "\n".join([
        "[Desktop Entry]",
        "Type=Application",
        "Name=Relavium Desktop",
        "Comment=Start Relavium when you log in",
        f"Exec={exec_argument(command)} --hidden",  # at login: into the tray, not a window in the way
        "Terminal=false",
        "X-GNOME-Autostart-enabled=true",
        "",
    ])


def enable(app_id: str = DEFAULT_APP_ID, command: str | None = None,
           env: Mapping[str, str] | None = None) -> Path:
    """Write the entry (replacing an older one atomically) and return its path."""
    path = entry_path(app_id, env)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = desktop_entry(command or installed_command())
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)
    return path


def disable(app_id: str = DEFAULT_APP_ID, env: Mapping[str, str] | None = None) -> bool:
    """Remove the entry; False when there was none."""
    try:
        entry_path(app_id, env).unlink()
    except FileNotFoundError:
        return False
    return True


def is_enabled(app_id: str = DEFAULT_APP_ID, env: Mapping[str, str] | None = None) -> bool:
    return entry_path(app_id, env).is_file()
