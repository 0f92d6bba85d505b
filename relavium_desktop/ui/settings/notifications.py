"""Settings → Notifications & shortcuts, and how the app keeps running (tray, start at login).

"Start at login" acts at once: the autostart entry is the setting the
desktop reads, so it is written or removed when the box is toggled, and the
box shows whether the entry is there (not what the ini file remembers).
"""

from __future__ import annotations

import sys

from relavium_desktop.application.desktop import APP_ID, login_start_enabled, set_login_start
from relavium_desktop.ui import app_settings as keys
from relavium_desktop.ui.error_text import error_text
from relavium_desktop.ui.qt import (
    QCheckBox,
    QFormLayout,
    QGroupBox,
    QKeySequence,
    QKeySequenceEdit,
    QLabel,
    QSettings,
    QVBoxLayout,
    QWidget,
    Signal,
)
from relavium_desktop.ui.theme import set_tone
from relavium_desktop.ui.theme.tokens import PAD_MAIN

SYSTEM_SHORTCUT_HELP = (
    "To process the clipboard from anywhere, bind a system-wide shortcut in your desktop's "
    "keyboard settings to the command:  relavium-desktop --process-clipboard  — it is "
    "forwarded to the running app."
)


class NotificationsPage(QWidget):
    # The window owns the QShortcut; the page only says what the user chose.
    shortcut_changed = Signal(object)  # QKeySequence

    def __init__(self, settings: QSettings) -> None:
        super().__init__()
        self._settings = settings
        self.notify_runs = QCheckBox("Notify when a run finishes or fails (while the window is not focused)")
        self.notify_runs.setChecked(keys.read_bool(settings, keys.KEY_NOTIFY_RUNS, True))
        self.notify_runs.toggled.connect(lambda on: settings.setValue(keys.KEY_NOTIFY_RUNS, on))
        self.notify_approvals = QCheckBox(
            "Notify when an action waits for my permission (with Allow once / Deny buttons)"
        )
        self.notify_approvals.setChecked(keys.read_bool(settings, keys.KEY_NOTIFY_APPROVALS, True))
        self.notify_approvals.toggled.connect(lambda on: settings.setValue(keys.KEY_NOTIFY_APPROVALS, on))
        notifications = QGroupBox("Notifications")
        box = QVBoxLayout(notifications)
        box.addWidget(self.notify_runs)
        box.addWidget(self.notify_approvals)

        saved = settings.value(keys.KEY_SHORTCUT_CLIPBOARD, keys.DEFAULT_CLIPBOARD_SHORTCUT)
        self.shortcut_edit = QKeySequenceEdit(QKeySequence(str(saved)))
        self.shortcut_edit.editingFinished.connect(self._apply_shortcut)
        shortcuts = QGroupBox("Shortcuts")
        form = QFormLayout(shortcuts)
        form.addRow("Process what I copied (in the app):", self.shortcut_edit)
        help_label = QLabel(SYSTEM_SHORTCUT_HELP)
        help_label.setWordWrap(True)
        set_tone(help_label, "muted")
        form.addRow(help_label)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(PAD_MAIN, PAD_MAIN, PAD_MAIN, PAD_MAIN)  # the main area's padding
        layout.addWidget(notifications)
        layout.addWidget(self._background_group(settings))
        layout.addWidget(shortcuts)
        layout.addStretch(1)

    def _background_group(self, settings: QSettings) -> QGroupBox:
        self.close_to_tray = QCheckBox("Keep running in the tray when the window is closed")
        self.close_to_tray.setToolTip("Only where the desktop has a tray; quit from the tray icon's menu.")
        self.close_to_tray.setChecked(keys.read_bool(settings, keys.KEY_CLOSE_TO_TRAY, True))
        self.close_to_tray.toggled.connect(lambda on: settings.setValue(keys.KEY_CLOSE_TO_TRAY, on))
        self.start_at_login = QCheckBox("Start at login")
        self.login_note = QLabel()
        self.login_note.setWordWrap(True)
        self.login_note.hide()
        set_tone(self.login_note, "danger")
        if sys.platform.startswith("linux"):
            self.start_at_login.setChecked(login_start_enabled(app_id()))
            self.start_at_login.toggled.connect(self._apply_start_at_login)
        else:
            self.start_at_login.setEnabled(False)
            self.start_at_login.setToolTip("Only on Linux desktops (XDG autostart) for now.")
        group = QGroupBox("Running in the background")
        box = QVBoxLayout(group)
        box.addWidget(self.close_to_tray)
        box.addWidget(self.start_at_login)
        box.addWidget(self.login_note)
        return group

    def _apply_start_at_login(self, on: bool) -> None:
        try:
            set_login_start(on, app_id())
        except OSError as exc:  # not installed, or the config folder cannot be written
            self.login_note.setText(f"Could not change the login start: {error_text(exc)}")
            self.login_note.show()
            self.start_at_login.blockSignals(True)
            self.start_at_login.setChecked(not on)
            self.start_at_login.blockSignals(False)
            return
        self.login_note.hide()
        self._settings.setValue(keys.KEY_START_AT_LOGIN, on)

    def _apply_shortcut(self) -> None:
        sequence = self.shortcut_edit.keySequence()
        if sequence.isEmpty():
            sequence = QKeySequence(keys.DEFAULT_CLIPBOARD_SHORTCUT)
            self.shortcut_edit.setKeySequence(sequence)
        self._settings.setValue(
            keys.KEY_SHORTCUT_CLIPBOARD, sequence.toString(QKeySequence.SequenceFormat.PortableText)
        )
        self.shortcut_changed.emit(sequence)


def app_id() -> str:
    """The desktop's name for the app (the autostart file is ``<app id>.desktop``).

    Read from the app's identity, which is moving its ``APP_ID`` to ``host``;
    either place (or neither) gives the same id.
    """
    from relavium_desktop.ui import identity

    return str(getattr(identity, "APP_ID", APP_ID))
