"""The desktop app's own preferences (window, project, mode, notifications, appearance).

Stored with QSettings as an INI file inside the data dir, so everything the
app keeps lives under one root and tests (which set ``RELAVIUM_HOME``) never
read or write the user's real preferences.  No secret is ever stored here:
provider keys live only in the keyring.

QSettings reads a damaged INI file as far as it can and then silently writes
its defaults over it, losing the project folder and everything else.  So the
file is checked first (:func:`ini_problem`): a broken one is never opened for
writing -- the app runs on an in-memory copy of the last good version
(``desktop-settings.ini.bak``, refreshed at every start from a good file) or
on defaults, and :func:`settings_problem` says so for the window to show.
"""

from __future__ import annotations

import math
from pathlib import Path

from relavium_desktop.engine.agent import mode_ids
from relavium_desktop.ui.qt import QSettings

FILE_NAME = "desktop-settings.ini"

KEY_GEOMETRY = "window/geometry"
KEY_PROJECT = "project/last"
KEY_MODE = "chat/mode"
# Set once the stored mode has been read with the current meaning of the ids (see read_mode).
KEY_MODE_SCHEME = "chat/mode_scheme"
MODE_SCHEME = 2
# The first-run flow: "done" once a provider worked or the user skipped it.
KEY_WELCOME_DONE = "welcome/done"
KEY_NOTIFY_RUNS = "notifications/runs"
KEY_NOTIFY_APPROVALS = "notifications/approvals"
KEY_SHORTCUT_CLIPBOARD = "shortcuts/process_clipboard"
# Days spilled tool output ($RELAVIUM_HOME/runs/) is kept before the start-up sweep; 0 keeps it.
KEY_SPILL_RETENTION_DAYS = "storage/spill_retention_days"
# Settings -> Appearance: "light", "dark" or "system" (follow the desktop), and the text size in points.
KEY_THEME = "appearance/theme"
KEY_FONT_PT = "appearance/font_pt"
# Closing the window hides it in the tray (the app keeps running) when a tray exists; default on.
KEY_CLOSE_TO_TRAY = "tray/close_to_tray"
# Set once the "still running in the tray" notification was sent (or would have been).
KEY_TOLD_ABOUT_TRAY = "tray/told_about_tray"
# Mirrors the XDG autostart entry the app writes; the entry itself is what the desktop reads.
KEY_START_AT_LOGIN = "startup/at_login"

DEFAULT_CLIPBOARD_SHORTCUT = "Ctrl+Shift+V"
# The chat modes, their titles and descriptions come from engine.agent.mode_ids
# (enum only: the first paint does not wait for pydantic), in menu order.
MODES = mode_ids.MODE_IDS
DEFAULT_MODE: str = mode_ids.DEFAULT_MODE
DEFAULT_SPILL_RETENTION_DAYS = 7
THEME_CHOICES = ("light", "dark", "system")
DEFAULT_THEME = "system"
# Text sizes Settings -> Appearance offers; 0 stored means "the desktop's own size".
FONT_PT_RANGE = (8, 20)


# A dynamic property on the QSettings object: why the file on disk is not the one in use.
_PROBLEM_PROPERTY = "relaviumSettingsProblem"


def ui_settings(home: Path) -> QSettings:
    """The app's settings in ``home`` (the Application's data folder): the INI file when it reads cleanly,
    else an in-memory stand-in (see the module doc)."""
    path = home / FILE_NAME
    problem = ini_problem(path)
    if problem is None:
        return QSettings(str(path), QSettings.Format.IniFormat)
    return _stand_in(path, problem)


def keep_backup(settings: QSettings) -> None:
    """Copy the settings file, read cleanly at this start, to ``.bak`` (after the first paint: it fsyncs).

    Nothing is copied from a stand-in: the broken file is not a good version.
    """
    if settings_problem(settings) is None and settings.format() == QSettings.Format.IniFormat:
        _keep_backup(Path(settings.fileName()))


def settings_problem(settings: QSettings) -> str | None:
    """One sentence naming the broken settings file and what the app did instead; None when all is well."""
    value = settings.property(_PROBLEM_PROPERTY)
    return str(value) if value else None


def ini_problem(path: Path) -> str | None:
    """Why ``path`` is not a settings file QSettings wrote (binary, cut off, not UTF-8); None when it is, or is absent.

    Every line QSettings writes is blank, a ``[section]`` or ``key=value``;
    a value that spans lines is escaped onto one.  So any other line means
    damage -- typically a file cut off mid-line by a crash or a full disk.
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"it cannot be read ({exc.strerror or type(exc).__name__})"
    if b"\0" in data:
        return "it holds binary data, not settings text"
    try:
        text = data.decode("utf-8-sig")  # an editor's byte-order mark is not damage
    except UnicodeDecodeError:
        return "it is not UTF-8 text"
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped[0] in ";#":
            continue
        if stripped.startswith("["):
            if not stripped.endswith("]"):
                return f"line {number} is not a [section] header"
            continue
        key, eq, _value = stripped.partition("=")
        if not eq or not key.strip():
            return f"line {number} is not a key=value setting (the file may be cut off)"
    return None


def _keep_backup(path: Path) -> None:
    """Copy a good settings file to ``.bak`` when it changed since the last copy (best effort: never blocks a start)."""
    from relavium_desktop.application.settings_files import refresh_backup

    refresh_backup(path)


def _stand_in(path: Path, problem: str) -> QSettings:
    """Settings in a private temporary file seeded from a good ``.bak`` (or empty); the broken file is left alone."""
    import atexit
    import shutil
    import tempfile

    from relavium_desktop.application.settings_files import backup_of

    bak = backup_of(path)
    seeded = bak.is_file() and ini_problem(bak) is None and bak.stat().st_size > 0
    folder = Path(tempfile.mkdtemp(prefix="relavium-settings-"))
    atexit.register(shutil.rmtree, folder, True)
    copy = folder / FILE_NAME
    if seeded:
        shutil.copyfile(bak, copy)
    settings = QSettings(str(copy), QSettings.Format.IniFormat)
    using = f"the last good copy ({bak.name})" if seeded else "default settings"
    settings.setProperty(
        _PROBLEM_PROPERTY,
        f"{FILE_NAME} is damaged: {problem}. Relavium started with {using} and left the file as it is "
        f"({path}); changes you make now are not saved. Fix or remove the file, then restart.",
    )
    return settings


def save_problem(settings: QSettings) -> str | None:
    """Write pending changes now; why they could not be written (a full disk, a read-only file), else None."""
    settings.sync()
    if settings.status() == QSettings.Status.NoError:
        return None
    from relavium_desktop.application.storage import disk_full

    path = Path(settings.fileName())
    if disk_full(path.parent):
        return f"cannot save {path.name}: the disk holding {path.parent} is full; the change applies until you quit"
    return f"cannot save {path.name} ({path}): the file or its folder cannot be written; the change applies until you quit"


def read_bool(settings: QSettings, key: str, default: bool) -> bool:
    value = settings.value(key, default)
    if isinstance(value, str):
        return value.lower() in ("1", "true", "yes")
    return bool(value)


def read_mode(settings: QSettings) -> str:
    """The saved chat mode as a canonical id; upstream ids are read as the mode they name.

    Before the modes were renamed, ``accept-edits`` was the default and asked
    before every edit -- what "Ask before acting" does now -- so a value saved
    under the old scheme keeps the behaviour the user had, once; afterwards
    ``accept-edits`` means "Auto-approve edits".
    """
    raw = str(settings.value(KEY_MODE, DEFAULT_MODE))
    scheme = settings.value(KEY_MODE_SCHEME)
    if scheme is None:
        if raw == mode_ids.ChatMode.ACCEPT_EDITS:
            raw = mode_ids.ChatMode.CONFIRM
        settings.setValue(KEY_MODE_SCHEME, MODE_SCHEME)
    try:
        mode = str(mode_ids.parse_mode(raw))
    except ValueError:
        mode = DEFAULT_MODE
    if mode != raw or settings.value(KEY_MODE) is None:
        settings.setValue(KEY_MODE, mode)
    return mode


def read_retention_days(settings: QSettings) -> float:
    """The spill retention in days: the ini value, or the default when missing or not a number."""
    value = settings.value(KEY_SPILL_RETENTION_DAYS, DEFAULT_SPILL_RETENTION_DAYS)
    try:
        days = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return float(DEFAULT_SPILL_RETENTION_DAYS)
    return days if math.isfinite(days) and days >= 0 else float(DEFAULT_SPILL_RETENTION_DAYS)


def read_theme(settings: QSettings) -> str:
    """The saved theme choice, or "system" when missing or not one of the choices."""
    value = str(settings.value(KEY_THEME, DEFAULT_THEME))
    return value if value in THEME_CHOICES else DEFAULT_THEME


def read_font_pt(settings: QSettings) -> int:
    """The saved text size in points, 0 (the desktop's size) when missing or out of range."""
    try:
        value = int(settings.value(KEY_FONT_PT, 0))  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return 0
    low, high = FONT_PT_RANGE
    return value if low <= value <= high else 0
