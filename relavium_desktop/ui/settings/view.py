"""Settings: Providers, Permissions, Chat tools, MCP servers, Plugins, Notifications & shortcuts, Appearance."""

from __future__ import annotations

from typing import TYPE_CHECKING

from relavium_desktop.ui.qt import QTabWidget, QVBoxLayout, QWidget, Signal
from relavium_desktop.ui.settings.appearance import AppearancePage
from relavium_desktop.ui.settings.chat_tools import ChatToolsPage
from relavium_desktop.ui.settings.mcp import McpServersPage
from relavium_desktop.ui.settings.notifications import NotificationsPage
from relavium_desktop.ui.settings.permissions import PermissionsPage
from relavium_desktop.ui.settings.plugins import PluginsPage
from relavium_desktop.ui.settings.providers import ProvidersPage
from relavium_desktop.ui.theme.tokens import PAD_MAIN, SPACE_4

if TYPE_CHECKING:
    from relavium_desktop.ui.context import AppContext

TABS = ("providers", "permissions", "chat_tools", "mcp", "plugins", "notifications", "appearance")


class SettingsView(QWidget):
    # The in-app clipboard shortcut was changed; the window owns the QShortcut.
    shortcut_changed = Signal(object)  # QKeySequence

    def __init__(self, context: AppContext) -> None:
        super().__init__()
        self.setObjectName("settingsView")
        self.providers = ProvidersPage(context)
        self.permissions = PermissionsPage(context)
        self.chat_tools = ChatToolsPage(context)
        self.mcp = McpServersPage(context)
        self.plugins = PluginsPage(context.app.paths.home)
        self.notifications = NotificationsPage(context.settings)
        self.notifications.shortcut_changed.connect(self.shortcut_changed)
        self.appearance = AppearancePage(context.theme)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.providers, "Providers")
        self.tabs.addTab(self.permissions, "Permissions")
        self.tabs.addTab(self.chat_tools, "Chat tools")
        self.tabs.addTab(self.mcp, "MCP servers")
        self.tabs.addTab(self.plugins, "Plugins")
        self.tabs.addTab(self.notifications, "Notifications && shortcuts")
        self.tabs.addTab(self.appearance, "Appearance")
        self.tabs.currentChanged.connect(self._tab_changed)
        # The top bar names the page ("Settings"); the view starts with its tabs, inside the main area's padding.
        layout = QVBoxLayout(self)
        layout.setContentsMargins(PAD_MAIN, SPACE_4, PAD_MAIN, 0)
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
        elif TABS[index] == "plugins":
            self.plugins.refresh()
        elif TABS[index] == "mcp":
            self.mcp.check_file()
            self.mcp.refresh_consents()
