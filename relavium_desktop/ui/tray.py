"""The tray icon: idle / working / needs-attention, and its menu.

Icons are painted at runtime (a badge per state in the theme's palette roles:
neutral, accent, warning with a danger dot) so the three states stay
distinguishable without shipping image variants, and are repainted when the
theme switches.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING

from relavium_desktop.ui.qt import (
    QAction,
    QColor,
    QIcon,
    QMenu,
    QObject,
    QPainter,
    QPixmap,
    QSystemTrayIcon,
    Qt,
    Signal,
)
from relavium_desktop.ui.theme.palette import LIGHT, Palette

if TYPE_CHECKING:
    from relavium_desktop.ui.theme import Theme


class TrayState(StrEnum):
    IDLE = "idle"
    WORKING = "working"
    ATTENTION = "attention"


# state -> (badge role, letter role); each pair is ≥3:1 (an icon) in both palettes.
_ROLES = {
    TrayState.IDLE: ("edge", "surface"),
    TrayState.WORKING: ("accent", "accent_text"),
    TrayState.ATTENTION: ("warning", "window"),
}
_TOOLTIPS = {
    TrayState.IDLE: "Relavium — idle",
    TrayState.WORKING: "Relavium — working",
    TrayState.ATTENTION: "Relavium — needs your attention",
}


def state_icon(state: TrayState, palette: Palette = LIGHT, size: int = 64) -> QIcon:
    badge, letter = _ROLES[state]
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setBrush(QColor(palette[badge]))
    painter.setPen(Qt.PenStyle.NoPen)
    painter.drawRoundedRect(4, 4, size - 8, size - 8, size / 5, size / 5)
    painter.setPen(QColor(palette[letter]))
    font = painter.font()
    font.setBold(True)
    font.setPixelSize(int(size * 0.55))
    painter.setFont(font)
    painter.drawText(pixmap.rect(), Qt.AlignmentFlag.AlignCenter, "R")
    if state is TrayState.ATTENTION:
        painter.setBrush(QColor(palette["danger"]))
        painter.setPen(Qt.PenStyle.NoPen)
        painter.drawEllipse(size - 24, 2, 22, 22)
    painter.end()
    return QIcon(pixmap)


class Tray(QObject):
    open_requested = Signal()
    process_clipboard_requested = Signal()
    quit_requested = Signal()

    def __init__(self, parent: QObject | None = None, theme: Theme | None = None) -> None:
        super().__init__(parent)
        self.state = TrayState.IDLE
        self._theme = theme
        self.icon = QSystemTrayIcon(state_icon(self.state, self._palette()), self)
        self.icon.setToolTip(_TOOLTIPS[self.state])
        self.menu = QMenu()
        self.open_action = QAction("Open", self.menu)
        self.clipboard_action = QAction("Process what I copied", self.menu)
        self.quit_action = QAction("Quit", self.menu)
        self.open_action.triggered.connect(self.open_requested)
        self.clipboard_action.triggered.connect(self.process_clipboard_requested)
        self.quit_action.triggered.connect(self.quit_requested)
        for action in (self.open_action, self.clipboard_action, self.quit_action):
            self.menu.addAction(action)
        self.icon.setContextMenu(self.menu)
        self.icon.activated.connect(self._activated)
        if theme is not None:
            theme.changed.connect(lambda: self.set_state(self.state))

    def _palette(self) -> Palette:
        return self._theme.palette if self._theme is not None else LIGHT

    def _activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason is QSystemTrayIcon.ActivationReason.Trigger:
            self.open_requested.emit()

    def set_state(self, state: TrayState) -> None:
        self.state = state
        self.icon.setIcon(state_icon(state, self._palette()))
        self.icon.setToolTip(_TOOLTIPS[state])

    def show(self) -> bool:
        """Show the icon where the desktop has a tray; False (and no icon) where it has none."""
        if not QSystemTrayIcon.isSystemTrayAvailable():
            return False
        self.icon.show()
        return True
