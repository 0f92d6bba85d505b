"""The desktop app's own preferences (window, project, mode, notifications, appearance).

Stored with QSettings as an INI file inside the data dir, so everything the
app keeps lives under one root and tests (which set ``RELAVIUM_HOME``) never
read or write the user's real preferences.  No secret is ever stored here:
provider keys live only in the keyring.
"""

from __future__ import annotations

import math

from relavium_desktop.engine.agent import mode_ids
from relavium_desktop.host.datadir import data_dir
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


def ui_settings() -> QSettings:
    return QSettings(str(data_dir() / FILE_NAME), QSettings.Format.IniFormat)


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
