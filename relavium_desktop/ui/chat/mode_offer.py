"""The chat's answer to a refusal the mode caused: say which mode would allow it, switch in one click.

A write refused in Read-only mode used to read "not granted" with no way
forward.  The engine's refusal names the mode; this bar repeats it in words
and offers the least permissive mode that allows the call
(``engine.agent.modes.mode_allowing`` decides which -- the view never
re-implements the policy).  Switching changes the app's mode (the header
picker follows) and "Continue" carries the refused turn on under it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from relavium_desktop.ui.qt import QHBoxLayout, QLabel, QPushButton, Qt, QWidget, Signal

if TYPE_CHECKING:
    from relavium_desktop.engine.agent.mode_ids import ChatMode
    from relavium_desktop.ui.context import AppContext


class ModeSwitchOffer(QWidget):
    retry_requested = Signal()

    def __init__(self, context: AppContext) -> None:
        super().__init__()
        self.setObjectName("modeSwitchOffer")
        self.setStyleSheet("#modeSwitchOffer { background: #ede9fe; } QLabel { color: #3b0764; }")
        self.setAutoFillBackground(True)
        self._context = context
        self._target: str | None = None
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.switch_button = QPushButton()
        self.switch_button.setObjectName("switchModeButton")
        self.retry_button = QPushButton("Continue")
        self.retry_button.setObjectName("modeContinueButton")
        self.dismiss = QPushButton("Dismiss")
        for b in (self.switch_button, self.retry_button, self.dismiss):
            b.setAutoDefault(False)
        self.switch_button.clicked.connect(self.switch)
        self.retry_button.clicked.connect(self._retry)
        self.dismiss.clicked.connect(self.hide)
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 6, 8, 6)
        row.addWidget(self.label, 1)
        row.addWidget(self.switch_button)
        row.addWidget(self.retry_button)
        row.addWidget(self.dismiss)
        self.setVisible(False)

    def offer(self, tool_id: str, message: str, current: ChatMode, allowing: ChatMode) -> None:
        from relavium_desktop.engine.agent.mode_ids import MODE_TITLES

        self._target = str(allowing)
        self.label.setText(message or f"{tool_id} is not available in {MODE_TITLES[current]} mode.")
        self.switch_button.setText(f"Switch to {MODE_TITLES[allowing]}")
        self.switch_button.setVisible(True)
        self.retry_button.setVisible(False)
        self.setVisible(True)

    def switch(self) -> None:
        from relavium_desktop.engine.agent.mode_ids import MODE_TITLES, parse_mode

        if self._target is None:
            return
        self._context.set_mode(self._target)
        self.label.setText(f"Mode is now {MODE_TITLES[parse_mode(self._target)]}. Continue to let the agent "
                           "try again.")
        self.switch_button.setVisible(False)
        self.retry_button.setVisible(True)

    def _retry(self) -> None:
        self.hide()
        self.retry_requested.emit()
