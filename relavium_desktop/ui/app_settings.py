"""The desktop app's own preferences (window, project, mode, notifications).

Stored with QSettings as an INI file inside the data dir, so everything the
app keeps lives under one root and tests (which set ``RELAVIUM_HOME``) never
read or write the user's real preferences.  No secret is ever stored here:
provider keys live only in the keyring.
"""

from __future__ import annotations

import math

from relavium_desktop.engine.agent.mode_ids import MODE_IDS, ChatMode
from relavium_desktop.host.datadir import data_dir
from relavium_desktop.ui.qt import QSettings

FILE_NAME = "desktop-settings.ini"

KEY_GEOMETRY = "window/geometry"
KEY_PROJECT = "project/last"
KEY_MODE = "chat/mode"
KEY_NOTIFY_RUNS = "notifications/runs"
KEY_NOTIFY_APPROVALS = "notifications/approvals"
KEY_SHORTCUT_CLIPBOARD = "shortcuts/process_clipboard"
# Days spilled tool output ($RELAVIUM_HOME/runs/) is kept before the start-up sweep; 0 keeps it.
KEY_SPILL_RETENTION_DAYS = "storage/spill_retention_days"

DEFAULT_CLIPBOARD_SHORTCUT = "Ctrl+Shift+V"
# The chat modes come from engine.agent.mode_ids (enum only: the first paint
# does not wait for pydantic); the UI adds only their labels, in picker order.
MODE_LABELS: dict[str, str] = {
    ChatMode.READ_ONLY: "Read-only", ChatMode.CONFIRM: "Ask first", ChatMode.ACCEPT_EDITS: "Accept edits", ChatMode.AUTO: "Auto",
}
MODES = MODE_IDS
DEFAULT_MODE: str = ChatMode.ACCEPT_EDITS
DEFAULT_SPILL_RETENTION_DAYS = 7


def ui_settings() -> QSettings:
    return QSettings(str(data_dir() / FILE_NAME), QSettings.Format.IniFormat)


def read_bool(settings: QSettings, key: str, default: bool) -> bool:
    value = settings.value(key, default)
    if isinstance(value, str):
        return value.lower() in ("1", "true", "yes")
    return bool(value)


def read_retention_days(settings: QSettings) -> float:
    """The spill retention in days: the ini value, or the default when missing or not a number."""
    value = settings.value(KEY_SPILL_RETENTION_DAYS, DEFAULT_SPILL_RETENTION_DAYS)
    try:
        days = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return float(DEFAULT_SPILL_RETENTION_DAYS)
    return days if math.isfinite(days) and days >= 0 else float(DEFAULT_SPILL_RETENTION_DAYS)
