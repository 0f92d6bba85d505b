"""The tray icon: idle / working / needs-attention, and its menu.

The icon per state comes from the app's identity (``ui.identity.tray_icon``)
when that module provides one; otherwise it is painted at runtime (a badge
per state in the theme's palette roles: neutral, accent, warning with a
danger dot), repainted when the theme switches.  What the state *is* is
decided by :class:`~relavium_desktop.ui.tray_state.TrayStatus`.

The number of things waiting is in the tooltip, and handed to
``QGuiApplication.setBadgeNumber``, which Qt shows only where the platform
has a badge (the macOS dock, the Windows taskbar, Linux docks that read the
Unity launcher API); a tray icon itself has no badge anywhere.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Any

from relavium_desktop.ui.qt import (
    QAction,
    QColor,
    QGuiApplication,
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
    from collections.abc import Callable

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


def tray_icon_for(state: TrayState, palette: Palette = LIGHT) -> QIcon:
    """The identity's icon for ``state`` when the app has one, else the painted badge."""
    identity_icon = _identity_tray_icon()
    if identity_icon is not None:
        found = identity_icon(state)
        if isinstance(found, QIcon) and not found.isNull():
            return found
    return state_icon(state, palette)


def _identity_tray_icon() -> Callable[[Any], Any] | None:
    try:
        from relavium_desktop.ui import identity
    except ImportError:
        return None
    found = getattr(identity, "tray_icon", None)
    return found if callable(found) else None


def tooltip(state: TrayState, waiting: int = 0) -> str:
    text = _TOOLTIPS[state]
    return f"{text} ({waiting} waiting)" if waiting else text


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

    def __init__(
        self,
        parent: QObject | None = None,
        theme: Theme | None = None,
        available: Callable[[], bool] | None = None,
    ) -> None:
        super().__init__(parent)
        self.state = TrayState.IDLE
        self.waiting = 0
        self.shown = False  # the icon is in a tray (show() found one)
        self._theme = theme
        # Injectable: the offscreen test platform has no tray, so tests say whether there is one.
        self._available = available or QSystemTrayIcon.isSystemTrayAvailable
        self.icon = QSystemTrayIcon(tray_icon_for(self.state, self._palette()), self)
        self.icon.setToolTip(tooltip(self.state))
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
            theme.changed.connect(lambda: self.set_state(self.state, self.waiting))

    def _palette(self) -> Palette:
        return self._theme.palette if self._theme is not None else LIGHT

    def _activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason is QSystemTrayIcon.ActivationReason.Trigger:
            self.open_requested.emit()

    def set_state(self, state: TrayState, waiting: int = 0) -> None:
        app = QGuiApplication.instance()
        if waiting != self.waiting and isinstance(app, QGuiApplication):
            app.setBadgeNumber(waiting)
        self.state = state
        self.waiting = waiting
        self.icon.setIcon(tray_icon_for(state, self._palette()))
        self.icon.setToolTip(tooltip(state, waiting))

    def show(self) -> bool:
        """Show the icon where the desktop has a tray; False (and no icon) where it has none."""
        if not self._available():
            return False
        self.icon.show()
        self.shown = True
        return True

    def hide(self) -> None:
        self.icon.hide()
        self.shown = False
