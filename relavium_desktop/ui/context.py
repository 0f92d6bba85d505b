"""What every view shares: settings, the project, the mode and the lazily built services.

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

from relavium_desktop.ui import app_settings as keys
from relavium_desktop.ui.qt import QFileDialog, QObject, QSettings, QWidget, Signal

if TYPE_CHECKING:
    from relavium_desktop.engine.agent.modes import ConfirmHook
    from relavium_desktop.host.desktop_os import DesktopOs
    from relavium_desktop.store.grants import GrantStore
    from relavium_desktop.ui.approval import ApprovalController

# A native folder dialog cannot be driven by tests; the app takes any
# callable with this shape (tests pass a double that returns a fixed folder).
FolderPicker = Callable[[QWidget, str], "str | None"]


def native_folder_picker(parent: QWidget, start: str) -> str | None:
    folder = QFileDialog.getExistingDirectory(parent, "Choose a project folder", start)
    return folder or None


class AppContext(QObject):
    """The app's shared state and services, handed to each view's constructor."""

    project_changed = Signal(str)  # the canonical project folder
    mode_changed = Signal(str)  # one of app_settings.MODES

    def __init__(
        self,
        window: QWidget,
        *,
        settings: QSettings | None = None,
        folder_picker: FolderPicker | None = None,
    ) -> None:
        super().__init__(window)
        # The top-level widget: dialogs are parented to it, and whether it is
        # focused decides if a notification is worth sending.
        self.window = window
        self.settings = settings or keys.ui_settings()
        self.folder_picker: FolderPicker = folder_picker or native_folder_picker
        self.desktop_os: DesktopOs | None = None
        self.grants: GrantStore | None = None
        self.approvals: ApprovalController | None = None
        self._services_ready = False

        saved = self.settings.value(keys.KEY_PROJECT, "")
        self._project = saved if isinstance(saved, str) and saved and Path(saved).is_dir() else ""
        mode = str(self.settings.value(keys.KEY_MODE, keys.DEFAULT_MODE))
        self._mode = mode if mode in keys.MODES else keys.DEFAULT_MODE

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
        if mode not in keys.MODES:
            raise ValueError(f"unknown chat mode {mode!r}")
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
        from relavium_desktop import services
        from relavium_desktop.host.datadir import data_dir
        from relavium_desktop.host.desktop_os import DesktopOs
        from relavium_desktop.ui.approval import ApprovalController

        self.desktop_os = DesktopOs()
        self.grants = services.grant_store(data_dir())
        self.approvals = ApprovalController(
            self.window, grants=self.grants, project=lambda: self.project, notifier=self.desktop_os,
            notify_enabled=lambda: self.notifications_enabled(keys.KEY_NOTIFY_APPROVALS),
        )
        self._services_ready = True

    def approval_hook(self) -> ConfirmHook | None:
        """The engine's approval question, answered by the permission dialog (once services exist)."""
        return self.approvals.confirm if self.approvals is not None else None

    def close(self) -> None:
        """Release what the services hold open (history.db, the notification bus)."""
        if self.grants is not None:
            self.grants.close()
        if self.desktop_os is not None:
            self.desktop_os.close()
