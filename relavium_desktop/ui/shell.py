"""The main window shell on a qasync loop.

Left navigation (Chat, Workflows, Runs / History -- those two built on first
use --, Settings), a header that always shows the active project and
chat mode, the tray, the single-instance socket and "Process what I copied".
Startup stays fast: only the widgets of the first screen are built before the
first paint; the grant store, notifier, tray and the Settings view are created
afterwards (``after_first_paint``) or on first use.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relavium_desktop.ui import app_settings as keys
from relavium_desktop.ui.qt import (
    QApplication,
    QCloseEvent,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QKeySequence,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QPaintEvent,
    QPushButton,
    QSettings,
    QShortcut,
    QStackedWidget,
    Qt,
    QTimer,
    QVBoxLayout,
    QWidget,
    Signal,
)

if TYPE_CHECKING:
    import threading

    from relavium_desktop.host.desktop_os import DesktopOs
    from relavium_desktop.store.grants import GrantStore
    from relavium_desktop.ui.approval import ApprovalController
    from relavium_desktop.ui.quick_panel import ClipboardRunner, QuickPanel
    from relavium_desktop.ui.runs.view import RunsView
    from relavium_desktop.ui.settings_view import SettingsView
    from relavium_desktop.ui.tray import Tray
    from relavium_desktop.ui.workflows.view import WorkflowsView

# A native folder dialog cannot be driven by tests; MainWindow takes any
# callable with this shape (tests pass a double that returns a fixed folder).
FolderPicker = Callable[[QWidget, str], "str | None"]

NAV_CHAT, NAV_WORKFLOWS, NAV_RUNS, NAV_SETTINGS = range(4)
MODE_LABELS = {"ask": "Ask", "plan": "Plan", "accept-edits": "Accept edits", "auto": "Auto"}


def native_folder_picker(parent: QWidget, start: str) -> str | None:
    folder = QFileDialog.getExistingDirectory(parent, "Choose a project folder", start)
    return folder or None


def _placeholder(title: str, text: str) -> QWidget:
    page = QWidget()
    layout = QVBoxLayout(page)
    heading = QLabel(title)
    heading.setObjectName("pageTitle")
    font = heading.font()
    font.setPointSizeF(font.pointSizeF() * 1.4)
    font.setBold(True)
    heading.setFont(font)
    body = QLabel(text)
    body.setWordWrap(True)
    body.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
    layout.addWidget(heading)
    layout.addWidget(body, 1)
    return page


class MainWindow(QMainWindow):
    project_changed = Signal(str)
    mode_changed = Signal(str)
    first_painted = Signal()

    def __init__(
        self,
        *,
        settings: QSettings | None = None,
        folder_picker: FolderPicker | None = None,
        clipboard_runner: ClipboardRunner | None = None,
    ) -> None:
        super().__init__()
        self.settings = settings or keys.ui_settings()
        self.folder_picker: FolderPicker = folder_picker or native_folder_picker
        self.clipboard_runner = clipboard_runner
        self._painted = False
        self._services_ready = False
        self.tray: Tray | None = None
        self.desktop_os: DesktopOs | None = None
        self.grants: GrantStore | None = None
        self.approvals: ApprovalController | None = None
        self.settings_view: SettingsView | None = None
        self.quick_panel: QuickPanel | None = None
        self.workflows_view: WorkflowsView | None = None  # built on first use
        self.runs_view: RunsView | None = None
        self.spill_sweep: threading.Thread | None = None  # started after the first paint

        self.setWindowTitle("Relavium Desktop")
        self.setObjectName("mainWindow")
        self.resize(1100, 700)

        self.project = ""
        saved = self.settings.value(keys.KEY_PROJECT, "")
        if isinstance(saved, str) and saved and Path(saved).is_dir():
            self.project = saved

        # -- header: project + mode, always visible ---------------------------
        header = QWidget()
        header.setObjectName("header")
        row = QHBoxLayout(header)
        row.setContentsMargins(8, 6, 8, 6)
        row.addWidget(QLabel("Project:"))
        self.project_button = QPushButton()
        self.project_button.setObjectName("projectButton")
        self.project_button.setAutoDefault(False)
        self.project_button.clicked.connect(self.choose_project)
        row.addWidget(self.project_button)
        row.addStretch(1)
        row.addWidget(QLabel("Mode:"))
        self.mode_combo = QComboBox()
        self.mode_combo.setObjectName("modeCombo")
        for mode in keys.MODES:
            self.mode_combo.addItem(MODE_LABELS[mode], mode)
        mode = str(self.settings.value(keys.KEY_MODE, keys.DEFAULT_MODE))
        index = keys.MODES.index(mode) if mode in keys.MODES else keys.MODES.index(keys.DEFAULT_MODE)
        self.mode_combo.setCurrentIndex(index)
        self.mode_combo.currentIndexChanged.connect(self._mode_picked)
        row.addWidget(self.mode_combo)
        self._show_project()

        # -- navigation + pages ----------------------------------------------
        self.nav = QListWidget()
        self.nav.setObjectName("nav")
        self.nav.setFixedWidth(170)
        for label in ("Chat", "Workflows", "Runs / History", "Settings"):
            self.nav.addItem(QListWidgetItem(label))
        self.pages = QStackedWidget()
        from relavium_desktop.ui.chat.view import ChatView

        self.chat_view = ChatView(self)
        self.pages.addWidget(self.chat_view)
        if self.clipboard_runner is None:
            self.clipboard_runner = self.chat_view.run_clipboard_action
        self.pages.addWidget(_placeholder("Workflows", ""))
        self.pages.addWidget(_placeholder("Runs / History", "No runs yet."))
        self._settings_slot = QWidget()
        self.pages.addWidget(self._settings_slot)
        self.nav.currentRowChanged.connect(self._navigate)

        body = QWidget()
        body_row = QHBoxLayout(body)
        body_row.setContentsMargins(0, 0, 0, 0)
        body_row.addWidget(self.nav)
        body_row.addWidget(self.pages, 1)

        root = QWidget()
        column = QVBoxLayout(root)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(header)
        column.addWidget(body, 1)
        self.setCentralWidget(root)
        self.nav.setCurrentRow(NAV_CHAT)

        shortcut = self.settings.value(keys.KEY_SHORTCUT_CLIPBOARD, keys.DEFAULT_CLIPBOARD_SHORTCUT)
        self.clipboard_shortcut = QShortcut(QKeySequence(str(shortcut)), self)
        self.clipboard_shortcut.activated.connect(self.process_clipboard)

        geometry = self.settings.value(keys.KEY_GEOMETRY)
        if geometry is not None:
            self.restoreGeometry(geometry)

    # -- first paint and lazily built services --------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if not self._painted:
            self._painted = True
            self.first_painted.emit()
            QTimer.singleShot(0, self.after_first_paint)

    def after_first_paint(self) -> None:
        """Build what the first screen does not need: stores, notifier, tray; sweep old spills."""
        self.ensure_services()
        self.start_spill_sweep()
        if self.tray is None:
            from relavium_desktop.ui.tray import Tray

            self.tray = Tray(self)
            self.tray.open_requested.connect(self.bring_to_front)
            self.tray.process_clipboard_requested.connect(self.process_clipboard)
            self.tray.quit_requested.connect(self.quit_app)
            self.tray.show()

    def start_spill_sweep(self) -> None:
        """Remove spilled tool output older than the retention, in a worker thread, once.

        Called after the first paint: the sweep walks ``runs/`` on disk and
        must never hold up the window (nor run on the UI thread at all).
        """
        if self.spill_sweep is not None:
            return
        days = keys.read_retention_days(self.settings)
        if days <= 0:
            return
        from relavium_desktop.host.datadir import data_dir
        from relavium_desktop.host.output_store import start_sweep

        self.spill_sweep = start_sweep(data_dir(), days * 86_400)

    def ensure_services(self) -> None:
        if self._services_ready:
            return
        from relavium_desktop.host.datadir import data_dir
        from relavium_desktop.host.desktop_os import DesktopOs
        from relavium_desktop.store.grants import GrantStore
        from relavium_desktop.ui.approval import ApprovalController

        self.desktop_os = DesktopOs()
        self.grants = GrantStore.open(data_dir())
        self.approvals = ApprovalController(
            self, grants=self.grants, project=lambda: self.project, notifier=self.desktop_os,
            notify_enabled=lambda: keys.read_bool(self.settings, keys.KEY_NOTIFY_APPROVALS, True),
        )
        self._services_ready = True

    # -- project and mode -----------------------------------------------------

    def _show_project(self) -> None:
        if self.project:
            self.project_button.setText(Path(self.project).name or self.project)
            self.project_button.setToolTip(self.project)
        else:
            self.project_button.setText("Choose a project folder…")
            self.project_button.setToolTip("The folder agents work in")

    def choose_project(self) -> None:
        start = self.project or str(Path.home())
        folder = self.folder_picker(self, start)
        if folder:
            self.set_project(folder)

    def set_project(self, folder: str) -> None:
        self.project = os.path.realpath(folder)
        self.settings.setValue(keys.KEY_PROJECT, self.project)
        self._show_project()
        self.project_changed.emit(self.project)

    @property
    def mode(self) -> str:
        return str(self.mode_combo.currentData())

    def set_mode(self, mode: str) -> None:
        self.mode_combo.setCurrentIndex(keys.MODES.index(mode))

    def _mode_picked(self, index: int) -> None:
        mode = keys.MODES[index]
        self.settings.setValue(keys.KEY_MODE, mode)
        self.mode_changed.emit(mode)

    # -- navigation -----------------------------------------------------------

    def _navigate(self, row: int) -> None:
        if row == NAV_SETTINGS:
            self.show_settings()
            return
        if row == NAV_WORKFLOWS:
            from relavium_desktop.ui.workflows.view import show_workflows

            show_workflows(self, NAV_WORKFLOWS)
            return
        if row == NAV_RUNS:
            from relavium_desktop.ui.runs.view import show_runs

            show_runs(self, NAV_RUNS)
            return
        self.pages.setCurrentIndex(row)

    def replace_page(self, index: int, view: QWidget) -> None:
        """Swap the placeholder at ``index`` for a view built on first use (off the first paint)."""
        old = self.pages.widget(index)
        self.pages.insertWidget(index, view)
        if old is not None:
            self.pages.removeWidget(old)
            old.deleteLater()

    def show_settings(self, tab: str | None = None) -> SettingsView:
        if self.settings_view is None:
            from relavium_desktop.ui.settings_view import SettingsView

            self.ensure_services()
            self.settings_view = SettingsView(self)
            self.replace_page(NAV_SETTINGS, self.settings_view)
        if self.nav.currentRow() != NAV_SETTINGS:
            self.nav.setCurrentRow(NAV_SETTINGS)
        self.pages.setCurrentWidget(self.settings_view)
        if tab is not None:
            self.settings_view.show_tab(tab)
        if self.settings_view.tabs.currentWidget() is self.settings_view.providers:
            self.settings_view.providers.refresh()
        return self.settings_view

    # -- clipboard ------------------------------------------------------------

    def process_clipboard(self) -> None:
        from relavium_desktop.ui.tasks import spawn

        spawn(self.open_quick_panel())

    async def open_quick_panel(self) -> QuickPanel:
        import asyncio

        from relavium_desktop.ui.clipboard_actions import load_actions
        from relavium_desktop.ui.quick_panel import QuickPanel

        self.ensure_services()
        assert self.desktop_os is not None
        text = await self.desktop_os.read_clipboard()
        actions = await asyncio.to_thread(load_actions)
        if self.quick_panel is not None:
            self.quick_panel.close()
            self.quick_panel.deleteLater()
        panel = QuickPanel(text, actions, self.clipboard_runner, self, notifier=self.desktop_os)
        panel.open_in_chat.connect(self.open_in_chat)
        self.quick_panel = panel
        panel.show()
        panel.raise_()
        panel.activateWindow()
        return panel

    def open_in_chat(self, prompt: str, result: str) -> None:
        self.nav.setCurrentRow(NAV_CHAT)
        self.chat_view.open_from_clipboard(prompt, result)
        self.bring_to_front()

    # -- single instance and tray --------------------------------------------

    def handle_instance_command(self, command: str) -> None:
        """A second launch forwarded ``command`` to this instance."""
        self.bring_to_front()
        if command == "process-clipboard":
            self.process_clipboard()

    def bring_to_front(self) -> None:
        if self.isMinimized():
            self.showNormal()
        self.show()
        self.raise_()
        self.activateWindow()

    def quit_app(self) -> None:
        self.close()
        app = QApplication.instance()
        if app is not None:
            app.quit()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.settings.setValue(keys.KEY_GEOMETRY, self.saveGeometry())
        self.settings.sync()
        self.chat_view.close_backend()
        if self.tray is not None:
            self.tray.icon.hide()
        super().closeEvent(event)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="relavium-desktop", description="Relavium Desktop")
    parser.add_argument(
        "--process-clipboard", action="store_true",
        help="open the quick panel for the clipboard text (in the running app, if there is one)",
    )
    parser.add_argument("--project", help="open this project folder")
    return parser.parse_args(argv)


def run_app(argv: list[str]) -> int:
    """Run the app; a second launch forwards its request to the first and returns 0."""
    args = parse_args(argv[1:])
    from relavium_desktop.ui.single_instance import InstanceServer, forward_to_running, server_name

    app: Any = QApplication.instance() or QApplication(argv)
    app.setApplicationName("Relavium")
    app.setApplicationDisplayName("Relavium Desktop")
    name = server_name()
    if forward_to_running(name, "process-clipboard" if args.process_clipboard else "show"):
        return 0
    server = InstanceServer(name)
    server.listen()

    window = MainWindow()
    if args.project:
        window.set_project(args.project)
    server.command_received.connect(window.handle_instance_command)
    probe = os.environ.get("RELAVIUM_STARTUP_PROBE")
    if probe:
        # bench/startup.py: report the first paint on the shared monotonic clock, then quit.
        def report() -> None:
            print(f"relavium-first-paint {time.monotonic():.6f}", flush=True)
            QTimer.singleShot(0, app.quit)

        window.first_painted.connect(report)
    window.show()
    # Paint first; asyncio + qasync (~0.1-0.2 s of imports) load after the window is on screen.
    app.processEvents()
    import asyncio

    import qasync

    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    if args.process_clipboard:
        QTimer.singleShot(0, window.process_clipboard)
    closed = asyncio.Event()
    app.aboutToQuit.connect(closed.set)
    with loop:
        loop.run_until_complete(closed.wait())
    server.close()
    if window.grants is not None:
        window.grants.close()
    return 0


if __name__ == "__main__":
    sys.exit(run_app(sys.argv))
