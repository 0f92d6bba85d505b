"""Settings: Providers, Permissions, Notifications & shortcuts (one tab each)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from relavium_desktop.ui.qt import QLabel, QTabWidget, QVBoxLayout, QWidget
from relavium_desktop.ui.settings_chat_tools import ChatToolsPage
from relavium_desktop.ui.settings_notifications import NotificationsPage
from relavium_desktop.ui.settings_permissions import PermissionsPage
from relavium_desktop.ui.settings_providers import ProvidersPage

if TYPE_CHECKING:
    from relavium_desktop.ui.shell import MainWindow

TABS = ("providers", "permissions", "chat_tools", "notifications")


class SettingsView(QWidget):
    def __init__(self, window: MainWindow) -> None:
        super().__init__()
        self.setObjectName("settingsView")
        self.providers = ProvidersPage(window.settings)
        self.permissions = PermissionsPage(window)
        self.chat_tools = ChatToolsPage(window)
        self.notifications = NotificationsPage(window)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.providers, "Providers")
        self.tabs.addTab(self.permissions, "Permissions")
        self.tabs.addTab(self.chat_tools, "Chat tools")
        self.tabs.addTab(self.notifications, "Notifications && shortcuts")
        self.tabs.currentChanged.connect(self._tab_changed)
        layout = QVBoxLayout(self)
        title = QLabel("Settings")
        font = title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.4)
        title.setFont(font)
        layout.addWidget(title)
        layout.addWidget(self.tabs, 1)

    def show_tab(self, name: str) -> None:
        self.tabs.setCurrentIndex(TABS.index(name))

    def _tab_changed(self, index: int) -> None:
        if TABS[index] == "permissions":
            self.permissions.refresh()
        elif TABS[index] == "providers":
            self.providers.refresh()
        elif TABS[index] == "chat_tools":
            self.chat_tools.load()
