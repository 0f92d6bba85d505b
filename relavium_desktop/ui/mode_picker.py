"""The top bar's mode chip: each mode with the one line that says what it lets the agent do.

A bare "Ask / Plan / Accept edits / Auto" list left users guessing; the menu
shows every mode's title and description, the chip shows the current mode in
words ("Ask before acting") with its description as the tooltip.  Titles and descriptions
come from ``engine.agent.mode_ids`` -- the picker only lists them.
"""

from __future__ import annotations

from relavium_desktop.engine.agent.mode_ids import MODE_DESCRIPTIONS, MODE_IDS, MODE_TITLES, ChatMode
from relavium_desktop.ui.qt import QAction, QActionGroup, QMenu, Qt, QToolButton, Signal


class ModePicker(QToolButton):
    picked = Signal(str)  # a canonical mode id the user chose

    def __init__(self, mode: str) -> None:
        super().__init__()
        self.setObjectName("modePicker")
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.menu_ = QMenu(self)
        self.menu_.setToolTipsVisible(True)
        group = QActionGroup(self)
        group.setExclusive(True)
        self.actions_by_mode: dict[str, QAction] = {}
        for mode_id in MODE_IDS:
            mode_enum = ChatMode(mode_id)
            action = QAction(f"{MODE_TITLES[mode_enum]} — {MODE_DESCRIPTIONS[mode_enum]}", self)
            action.setCheckable(True)
            action.setToolTip(MODE_DESCRIPTIONS[mode_enum])
            action.setData(mode_id)
            action.triggered.connect(lambda _checked=False, m=mode_id: self.picked.emit(m))
            group.addAction(action)
            self.menu_.addAction(action)
            self.actions_by_mode[mode_id] = action
        self.setMenu(self.menu_)
        self.show_mode(mode)

    def show_mode(self, mode: str) -> None:
        """Reflect ``mode`` (set elsewhere: a stored session, the refusal bar's switch)."""
        mode_enum = ChatMode(mode)
        self.setText(MODE_TITLES[mode_enum])
        self.setToolTip(MODE_DESCRIPTIONS[mode_enum])
        self.setAccessibleName(f"Mode: {MODE_TITLES[mode_enum]}. Change mode")
        self.actions_by_mode[mode].setChecked(True)

    def current_mode(self) -> str:
        for mode, action in self.actions_by_mode.items():
            if action.isChecked():
                return mode
        return MODE_IDS[0]
