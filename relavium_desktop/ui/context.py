"""What every view shares: settings, the theme, the project, the mode and the lazily built services.

Views get this object instead of the main window, so a view can read the
state it shows and react to its changes without knowing how the window is
laid out -- and the window can change without touching the views.  Anything
a view wants *done* elsewhere (open Settings, choose a project, show a run)
it asks for with its own intent signal, which the window connects in one
place.

The services (desktop notifier, grant store, approval regime) are built on
first use by :meth:`AppContext.ensure_services`, never before the first
paint: opening history.db and the D-Bus connection must not hold up the
window.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from relavium_desktop.application.app import Application
from relavium_desktop.ui import app_settings as keys
from relavium_desktop.ui.defaults_migration import migrate_chat_defaults
from relavium_desktop.ui.qt import QObject, QSettings, QWidget, Signal
from relavium_desktop.ui.theme import Theme

if TYPE_CHECKING:
    from relavium_desktop.application.desktop_os import DesktopOs
    from relavium_desktop.application.providers import ProviderEntry, ProviderStore
    from relavium_desktop.application.stores import GrantStore
    from relavium_desktop.engine.agent.modes import ConfirmHook
    from relavium_desktop.ui.approval import ApprovalController
    from relavium_desktop.ui.mcp.hooks import AppMcpHooks
    from relavium_desktop.ui.qt import QFileSystemWatcher

# A native folder dialog cannot be driven by tests; the app takes any
# callable with this shape (tests pass a double that returns a fixed folder).
FolderPicker = Callable[[QWidget, str], "str | None"]


def native_folder_picker(parent: QWidget, start: str) -> str | None:
    from relavium_desktop.ui.qt import QFileDialog  # its class and enums are built on first use, not at start

    folder = QFileDialog.getExistingDirectory(parent, "Choose a project folder", start)
    return folder or None


class AppContext(QObject):
    """The app's shared state and services, handed to each view's constructor."""

    project_changed = Signal(str)  # the canonical project folder
    mode_changed = Signal(str)  # one of app_settings.MODES
    # providers.yaml changed: saved here, by `relavium providers`, or by hand in an editor.
    providers_changed = Signal()

    def __init__(
        self,
        window: QWidget,
        *,
        settings: QSettings | None = None,
        folder_picker: FolderPicker | None = None,
        app: Application | None = None,
    ) -> None:
        super().__init__(window)
        # The process's one Application: the paths decided at start-up and the shared stores.  The window's
        # entry point (app.py -> shell.run_app) hands it in; without one this is the entry point and reads
        # the environment, once.
        self.app = app if app is not None else Application.from_environment()
        # The top-level widget: dialogs are parented to it, and whether it is
        # focused decides if a notification is worth sending.
        self.window = window
        self.settings = settings or keys.ui_settings(self.app.paths.home)
        migrate_chat_defaults(self.settings, self.app.paths)  # old chat/model, chat/agent -> defaults.json, once
        self.folder_picker: FolderPicker = folder_picker or native_folder_picker
        self.desktop_os: DesktopOs | None = None
        self.grants: GrantStore | None = None
        self.approvals: ApprovalController | None = None
        # The window's one MCP hooks object (consent, form and sampling dialogs), made on first use
        # by ui.mcp.hooks.app_mcp_hooks so every host the window builds asks one question at a time.
        self.mcp_hooks: AppMcpHooks | None = None
        self._services_ready = False
        self._providers: ProviderStore | None = None
        self._providers_stamp: object = None
        self._watcher: QFileSystemWatcher | None = None

        saved = self.settings.value(keys.KEY_PROJECT, "")
        self._project = saved if isinstance(saved, str) and saved and Path(saved).is_dir() else ""
        self._mode = keys.read_mode(self.settings)
        # Applied now, before the window builds its widgets: each is polished once, already themed.
        self.theme = Theme(self.settings, self)
        self.theme.apply()

    # -- project and mode -------------------------------------------------------

    @property
    def project(self) -> str:
        return self._project

    def set_project(self, folder: str) -> None:
        """Switch project; stored canonical so grants and roots match however it was typed."""
        self._project = os.path.realpath(folder)
        self.settings.setValue(keys.KEY_PROJECT, self._project)
        self.project_changed.emit(self._project)

    @property
    def mode(self) -> str:
        return self._mode

    def set_mode(self, mode: str) -> None:
        """Switch mode; upstream ids (``ask``, ``plan``) are accepted as the mode they name."""
        from relavium_desktop.engine.agent.mode_ids import parse_mode

        mode = str(parse_mode(mode))
        if mode == self._mode:
            return
        self._mode = mode
        self.settings.setValue(keys.KEY_MODE, mode)
        self.mode_changed.emit(mode)

    def notifications_enabled(self, key: str) -> bool:
        """Read per call: the user can switch a notification off while a run is going."""
        return keys.read_bool(self.settings, key, True)

    # -- services, built on first use ---------------------------------------------

    def ensure_services(self) -> None:
        if self._services_ready:
            return
        from relavium_desktop.application.desktop_os import DesktopOs
        from relavium_desktop.ui.approval import ApprovalController
        from relavium_desktop.ui.clipboard_access import QtClipboard

        self.desktop_os = DesktopOs(clipboard=QtClipboard(), media_root=self.app.paths.media,
                                    open_asks_file=self.app.paths.home / "open-notifications.json")
        self.desktop_os.withdraw_left_over()  # asks a crashed earlier run left: their buttons reach nobody
        self.grants = self.app.grants()  # the Application's store over its one history.db connection
        self.approvals = ApprovalController(
            self.window, grants=self.grants, project=lambda: self.project, notifier=self.desktop_os,
            notify_enabled=lambda: self.notifications_enabled(keys.KEY_NOTIFY_APPROVALS), theme=self.theme,
        )
        self._services_ready = True

    # -- providers.yaml -------------------------------------------------------------

    def provider_store(self) -> ProviderStore:
        """The one provider file every surface reads; watched for outside edits once asked for."""
        if self._providers is None:
            from relavium_desktop.application.providers import provider_store
            from relavium_desktop.ui.settings.provider_migration import migrate_ini_providers

            self._providers = provider_store(self.app.paths.home)
            migrate_ini_providers(self.settings, self._providers)
            self._providers_stamp = self._providers.stamp()
            self._watch_providers()
        return self._providers

    def provider_entry(self, name: str) -> ProviderEntry | None:
        """Provider ``name`` as providers.yaml has it; None when absent or the file is unusable.

        An unusable file is reported where the providers are listed (Settings,
        the picker); the places that only look one entry up treat it as absent.
        """
        from relavium_desktop.application.providers import ProviderConfigError

        try:
            return self.provider_store().entries().get(name)
        except ProviderConfigError:
            return None

    def _watch_providers(self) -> None:
        assert self._providers is not None
        path = self._providers.path
        from relavium_desktop.ui.qt import QFileSystemWatcher

        watcher = QFileSystemWatcher(self)
        # The folder too: a save replaces the file (atomic rename), which ends a file watch,
        # and a file that does not exist yet cannot be watched at all.
        path.parent.mkdir(parents=True, exist_ok=True)
        watcher.addPath(str(path.parent))
        if path.exists():
            watcher.addPath(str(path))
        watcher.fileChanged.connect(lambda _p: self.check_providers())
        watcher.directoryChanged.connect(lambda _p: self.check_providers())
        self._watcher = watcher

    def check_providers(self) -> None:
        """Emit ``providers_changed`` if providers.yaml differs from what was last seen."""
        store = self.provider_store()
        stamp = store.stamp()
        watcher = self._watcher
        if watcher is not None and stamp is not None and str(store.path) not in watcher.files():
            watcher.addPath(str(store.path))
        if stamp != self._providers_stamp:
            self._providers_stamp = stamp
            self.providers_changed.emit()

    def approval_hook(self) -> ConfirmHook | None:
        """The engine's approval question, answered by the permission dialog (once services exist)."""
        return self.approvals.confirm if self.approvals is not None else None

    def close(self) -> None:
        """Release what the services hold open (history.db, the notification bus).

        The grant store is the Application's: closing the Application closes it.
        """
        self.app.close()
        if self.desktop_os is not None:
            self.desktop_os.close()
