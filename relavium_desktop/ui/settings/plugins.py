"""Settings → Plugins: which installed ``relavium.tools`` plugins may load.

A plugin is third-party code running with the user's privileges, so
installing one is not consent to run it: the page lists what the package
metadata says is installed (nothing is imported for that) and the user
enables each plugin with its checkbox.  The choice is ``plugins.yaml`` in the
data folder, the same file ``relavium plugins enable|disable`` writes.  A
plugin that cannot load shows why ("refused: ..."); its tools are not offered.
New chats and runs pick the change up (each builds its tools when it starts).
"""

from __future__ import annotations

import logging
from pathlib import Path

from relavium_desktop.application.paths import AppPaths
from relavium_desktop.ui.error_text import error_text
from relavium_desktop.ui.qt import QCheckBox, QGridLayout, QLabel, QPushButton, QVBoxLayout, QWidget
from relavium_desktop.ui.theme import set_tone
from relavium_desktop.ui.theme.tokens import PAD_MAIN

log = logging.getLogger(__name__)

EMPTY_TEXT = (
    "No plugins are installed. A plugin is a Python package with an entry point in the group "
    "relavium.tools; install it into Relavium's environment (for example "
    "pip install -e examples/relavium-plugin-wordcount) and it appears here, disabled."
)
INTRO_TEXT = (
    "Plugins add tools (ids plugin_<name>). Installed plugins are only listed; a plugin's code runs "
    "only after you enable it here. Changes apply to new chats and runs."
)


class PluginsPage(QWidget):
    def __init__(self, home: Path) -> None:
        """``home``: the window's data folder (its Application's paths), whose plugins.yaml this page edits."""
        super().__init__()
        self._home = home
        self.intro = QLabel(INTRO_TEXT)
        self.intro.setWordWrap(True)
        set_tone(self.intro, "muted")
        self.empty = QLabel(EMPTY_TEXT)
        self.empty.setWordWrap(True)
        set_tone(self.empty, "muted")
        self.error = QLabel()
        self.error.setWordWrap(True)
        set_tone(self.error, "danger")
        self.error.hide()
        self.rows = QWidget()
        self.grid = QGridLayout(self.rows)
        self.checks: dict[str, QCheckBox] = {}
        self.notes: dict[str, QLabel] = {}
        self.reload_button = QPushButton("Check again")
        self.reload_button.clicked.connect(self.refresh)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(PAD_MAIN, PAD_MAIN, PAD_MAIN, PAD_MAIN)  # the main area's padding
        layout.addWidget(self.intro)
        layout.addWidget(self.error)
        layout.addWidget(self.empty)
        layout.addWidget(self.rows)
        layout.addWidget(self.reload_button)
        layout.addStretch(1)

    def _paths(self) -> AppPaths:
        return AppPaths(self._home)

    def refresh(self) -> None:
        """Re-read what is installed and enabled; imports only the enabled plugins (to show refusals)."""
        from relavium_desktop.application.plugins import plugin_statuses

        while self.grid.count():
            item = self.grid.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self.checks.clear()
        self.notes.clear()
        rows = plugin_statuses(self._paths())
        self.empty.setVisible(not rows)
        for i, row in enumerate(rows):
            version = f" {row.info.version}" if row.info is not None and row.info.version else ""
            check = QCheckBox(f"{row.name}{version}")
            check.setChecked(row.enabled)
            check.setEnabled(row.info is not None)  # a missing plugin or broken plugins.yaml: nothing to toggle
            check.toggled.connect(lambda on, name=row.name: self.set_enabled(name, on))
            note = QLabel(self._note(row.state, row.tools, row.reason))
            note.setWordWrap(True)
            note.setObjectName(f"pluginNote_{row.name}")
            set_tone(note, "danger" if row.state in ("refused", "missing") else "muted")
            self.grid.addWidget(check, i, 0)
            self.grid.addWidget(note, i, 1)
            self.checks[row.name] = check
            self.notes[row.name] = note

    @staticmethod
    def _note(state: str, tools: tuple[str, ...], reason: str | None) -> str:
        if state == "loaded":
            return "Enabled: " + (", ".join(tools) or "no tools")
        if state == "refused":
            return f"Refused: {reason}"
        if state == "missing":
            return "Enabled, but no longer installed"
        return "Disabled (not loaded)"

    def set_enabled(self, name: str, on: bool) -> None:
        from relavium_desktop.application.plugins import PluginsFileError, set_plugin_enabled

        try:
            set_plugin_enabled(self._paths(), name, on)
        except (PluginsFileError, OSError) as exc:
            log.warning("plugins.yaml: %s", exc)
            self.error.setText(f"Could not save the plugin choice: {error_text(exc)}")
            self.error.show()
            return
        self.error.hide()
        self.refresh()
