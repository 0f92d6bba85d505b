"""Settings → Notifications & shortcuts."""

from __future__ import annotations

from relavium_desktop.ui import app_settings as keys
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
        layout.addWidget(notifications)
        layout.addWidget(shortcuts)
        layout.addStretch(1)

    def _apply_shortcut(self) -> None:
        sequence = self.shortcut_edit.keySequence()
        if sequence.isEmpty():
            sequence = QKeySequence(keys.DEFAULT_CLIPBOARD_SHORTCUT)
            self.shortcut_edit.setKeySequence(sequence)
        self._settings.setValue(
            keys.KEY_SHORTCUT_CLIPBOARD, sequence.toString(QKeySequence.SequenceFormat.PortableText)
        )
        self.shortcut_changed.emit(sequence)
