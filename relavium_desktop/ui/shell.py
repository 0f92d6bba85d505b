"""The main window shell on a qasync loop.

One sidebar on the left (ui/sidebar.py: New chat, the places Chats,
Workflows, Activity, the chat list, Settings at its foot -- each page built
when first shown, Chats too when the welcome flow comes first), a top bar
over the main area (ui/top_bar.py: what is open, the project and mode chips,
always in view), the tray, the single-instance socket and "Process what I
copied".  Startup stays fast: only the widgets of
the first screen are built before the first paint; the grant store, notifier,
tray, provider readiness and the settings-file check come afterwards
(``after_first_paint``) or on first use.  bench/startup.py measures it and
tests/ui/test_first_paint_imports.py lists what must not load before the paint.

The window owns the :class:`~relavium_desktop.ui.context.AppContext` the views
are built with, and is the one place their intent signals (open Settings,
choose a project, show a run) are connected: views never see the window.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relavium_desktop.application.desktop import APP_ID
from relavium_desktop.ui import app_settings as keys
from relavium_desktop.ui import startup_probe
from relavium_desktop.ui.context import AppContext, FolderPicker
from relavium_desktop.ui.qt import (
    QApplication,
    QCloseEvent,
    QEvent,
    QHBoxLayout,
    QKeySequence,
    QLabel,
    QMainWindow,
    QObject,
    QPaintEvent,
    QSettings,
    QShortcut,
    QStackedWidget,
    Qt,
    QTimer,
    QVBoxLayout,
    QWidget,
    Signal,
)
from relavium_desktop.ui.sidebar import Sidebar
from relavium_desktop.ui.storage_state import FolderOpener, SettingsProblems, StorageState
from relavium_desktop.ui.theme import set_tone
from relavium_desktop.ui.theme.tokens import PAD_MAIN, SPACE_2
from relavium_desktop.ui.top_bar import TopBar

if TYPE_CHECKING:
    import threading
    from collections.abc import Callable, Sequence

    from relavium_desktop.application.app import Application
    from relavium_desktop.application.desktop_os import DesktopOs
    from relavium_desktop.application.local_servers import LocalServerKind
    from relavium_desktop.application.paths import AppPaths
    from relavium_desktop.ui.chat.view import ChatView
    from relavium_desktop.ui.clipboard_actions import ClipboardAction
    from relavium_desktop.ui.gate_board import GateBoard
    from relavium_desktop.ui.quick_panel import ClipboardRunner, QuickPanel
    from relavium_desktop.ui.runs.view import RunsView
    from relavium_desktop.ui.settings.view import SettingsView
    from relavium_desktop.ui.tray import Tray
    from relavium_desktop.ui.tray_state import TrayStatus
    from relavium_desktop.ui.welcome import WelcomeView
    from relavium_desktop.ui.workflows.view import WorkflowsView

NAV_CHAT, NAV_WORKFLOWS, NAV_RUNS, NAV_SETTINGS = range(4)
# The longest the work after the first paint waits for the first page's own paint.
FIRST_VIEW_GRACE_MS = 2000
# What the top bar says is open, per page (the Chats page says the open chat's title instead).
PAGE_TITLES = ("Chats", "Workflows", "Activity", "Settings")
WELCOME_TITLE = "Set up Relavium"
TRAY_NOTICE_TITLE = "Relavium is still running in the tray"
TRAY_NOTICE_BODY = "Closing the window keeps it running: quit from the tray icon's menu, or change this in Settings."


class _FirstPaintWatch(QObject):
    """Says once when ``widget`` or one of its children has painted (the first page after the first frame).

    Children too: Qt does not paint a widget its opaque children cover, so the page itself may get no
    paint event while all of it is drawn.
    """

    painted = Signal()

    def __init__(self, widget: QWidget, parent: QObject) -> None:
        super().__init__(parent)
        self._watched = [widget, *widget.findChildren(QWidget)]
        for each in self._watched:
            each.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if self._watched and event.type() == QEvent.Type.Paint:
            for each in self._watched:
                each.removeEventFilter(self)
            self._watched = []
            self.painted.emit()
            self.deleteLater()
        return False


def _placeholder(title: str, text: str) -> QWidget:
    page = QWidget()
    layout = QVBoxLayout(page)
    layout.setContentsMargins(PAD_MAIN, PAD_MAIN, PAD_MAIN, PAD_MAIN)
    heading = QLabel(title)
    heading.setObjectName("pageTitle")
    set_tone(heading, "title")
    body = QLabel(text)
    body.setWordWrap(True)
    body.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
    layout.addWidget(heading)
    layout.addWidget(body, 1)
    return page


class MainWindow(QMainWindow):
    first_painted = Signal()
    # The first page (chat or welcome) painted, when it was built after the first frame (first_view_after_paint).
    first_view_painted = Signal()
    # Set by quit_app: the next close is for real even when the window would go to the tray.
    quitting = False
    tray_status: TrayStatus | None = None  # what the tray shows, built with the tray
    _gate_board: GateBoard | None = None  # the pending gates every view follows, built on first need

    def __init__(
        self,
        *,
        settings: QSettings | None = None,
        folder_picker: FolderPicker | None = None,
        clipboard_runner: ClipboardRunner | None = None,
        local_servers: Sequence[LocalServerKind] | None = None,
        load_chat: bool = True,
        open_folder: FolderOpener | None = None,
        app: Application | None = None,
        first_view_after_paint: bool = False,
    ) -> None:
        """``app`` is the process's Application, built by the entry point from the paths decided at start-up;
        None builds it from the environment (a test's or a bench's window).

        ``first_view_after_paint`` (the real start, ``run_app``): the first frame is the window's chrome --
        sidebar, top bar, the page's empty slot -- and the first page (the chat or the welcome flow) is
        built on the loop turn after it, so the window is on screen without waiting for that page's
        imports and widgets; ``first_view_painted`` says when the page itself has painted."""
        super().__init__()
        # False for --headless-check: paint, check storage, quit -- no chat backend, no MCP discovery.
        self.load_chat = load_chat
        self.local_servers = local_servers  # where "Look for a local model server" looks (default: the usual ports)
        self.context = AppContext(self, settings=settings, folder_picker=folder_picker, app=app)
        self.clipboard_runner = clipboard_runner
        self._painted = False
        self.tray: Tray | None = None
        self.settings_view: SettingsView | None = None
        self.quick_panel: QuickPanel | None = None
        self.workflows_view: WorkflowsView | None = None  # built on first use
        self.runs_view: RunsView | None = None
        self.spill_sweep: threading.Thread | None = None  # started after the first paint
        self.welcome_view: WelcomeView | None = None  # the first-run flow, while it is needed

        self.setWindowTitle("Relavium Desktop")
        self.setObjectName("mainWindow")
        self.resize(1100, 700)

        # -- top bar: what is open, project + mode chips, always visible ------------
        self.top_bar = TopBar(self.context.mode)
        self.project_button = self.top_bar.project_button
        self.project_note = self.top_bar.project_note  # "No project · tools off", shown while there is none
        self.project_button.clicked.connect(self.choose_project)
        self.mode_picker = self.top_bar.mode_picker
        self.mode_picker.picked.connect(self.context.set_mode)
        self.context.mode_changed.connect(self.mode_picker.show_mode)
        self.context.project_changed.connect(lambda _project: self._show_project())
        self._show_project()
        self._chat_title = ""  # the open chat's title ("" for none), for the top bar on Chats
        # Provider readiness reads the keyring (in a child process): only once the window is up.
        self._readiness_due = False
        self.context.providers_changed.connect(self.refresh_readiness)

        # -- sidebar + pages ------------------------------------------------------
        self.sidebar = Sidebar()
        self.sidebar.new_chat.connect(self.new_chat)
        self.nav = self.sidebar.places  # rows NAV_CHAT..NAV_SETTINGS, as the pages' indices
        self.pages = QStackedWidget()
        self.pages.setObjectName("pages")
        startup_probe.mark("window-chrome")
        # The Chat page is built when first shown or asked for (``chat_view``): behind the
        # welcome flow it would only delay the first paint and hold memory.
        self._chat_view: ChatView | None = None
        self.first_painted.connect(lambda: self.after_first_view(self._load_chat))
        # The settings read cleanly at this start become the last good copy (.bak), once painted --
        # on the next turn of the loop: inside the paint event its two fsyncs would hold the frame back.
        self.first_painted.connect(lambda: self.after_first_view(lambda: keys.keep_backup(self.context.settings)))
        # history.db's problems (checked before anything opens it) and broken settings files, shown above the pages.
        self.storage_state = StorageState(self.context.app.paths.home, open_folder=open_folder)
        self.storage_state.resolved.connect(self._storage_resolved)
        self._storage_checked = False
        self.settings_problems = SettingsProblems()
        problem = keys.settings_problem(self.context.settings)
        if problem:
            self.settings_problems.add(problem)
        self.context.mode_changed.connect(lambda _mode: self.check_settings_saved())
        self.context.project_changed.connect(lambda _project: self.check_settings_saved())
        self.pages.addWidget(QWidget())  # the Chat page's slot
        if self.clipboard_runner is None:
            self.clipboard_runner = self._run_clipboard_in_chat
        self.pages.addWidget(_placeholder("Workflows", ""))
        self.pages.addWidget(_placeholder("Activity", "No runs yet."))
        self._settings_slot = QWidget()
        self.pages.addWidget(self._settings_slot)
        self.nav.currentRowChanged.connect(self._navigate)
        self.pages.currentChanged.connect(lambda _index: self._show_title())
        self.context.theme.changed.connect(self._theme_changed)

        main = QWidget()
        main.setObjectName("mainArea")
        column = QVBoxLayout(main)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.top_bar)
        # The storage and settings-file banners, above the pages; off the window's edge.  An empty
        # box (both hidden) takes no room, margins included.
        banners = QVBoxLayout()
        banners.setContentsMargins(PAD_MAIN, SPACE_2, PAD_MAIN, 0)
        banners.setSpacing(SPACE_2)
        banners.addWidget(self.storage_state)
        banners.addWidget(self.settings_problems)
        column.addLayout(banners)
        column.addWidget(self.pages, 1)

        root = QWidget()
        row = QHBoxLayout(root)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)
        row.addWidget(self.sidebar)
        row.addWidget(main, 1)
        self.setCentralWidget(root)
        self.first_view_due = first_view_after_paint
        self.first_view_shown = not first_view_after_paint  # the first page has painted
        self.first_view_painted.connect(self._first_view_was_painted)
        if first_view_after_paint:
            # The skeleton: the place and title the page will have, its slot empty until after the paint.
            self._first_view_welcome = self.first_run_certain()
            self.nav.show_row(-1 if self._first_view_welcome else NAV_CHAT)
            self.top_bar.set_title(WELCOME_TITLE if self._first_view_welcome else PAGE_TITLES[NAV_CHAT])
            self.first_painted.connect(lambda: QTimer.singleShot(0, self.show_first_view))
            startup_probe.mark("page-skeleton")
        elif self.first_run_certain():
            self.show_welcome()
            startup_probe.mark("first-view")
        else:
            self.nav.setCurrentRow(NAV_CHAT)
            startup_probe.mark("first-view")

        shortcut = self.context.settings.value(keys.KEY_SHORTCUT_CLIPBOARD, keys.DEFAULT_CLIPBOARD_SHORTCUT)
        self.clipboard_shortcut = QShortcut(QKeySequence(str(shortcut)), self)
        self.clipboard_shortcut.activated.connect(self.process_clipboard)
        self.new_chat_shortcut = QShortcut(QKeySequence("Ctrl+N"), self)
        self.new_chat_shortcut.activated.connect(self.new_chat)

        geometry = self.context.settings.value(keys.KEY_GEOMETRY)
        if geometry is not None:
            self.restoreGeometry(geometry)

    def _first_view_was_painted(self) -> None:
        self.first_view_shown = True

    def after_first_view(self, slot: Callable[[], None]) -> None:
        """Run ``slot`` on a later loop turn, once the first page has painted (the frame alone is not enough).

        At the latest ``FIRST_VIEW_GRACE_MS`` after this call: a page that never paints (the window
        hidden at once) must not hold back the services, the tray or the chat list.
        """
        if self.first_view_shown:
            QTimer.singleShot(0, slot)
            return
        done: list[bool] = []

        def once() -> None:
            if self.starting:  # run_app is still pumping events before its loop: wait for the loop
                QTimer.singleShot(0, once)
            elif not done:
                done.append(True)
                slot()

        self.first_view_painted.connect(lambda: QTimer.singleShot(0, once))
        QTimer.singleShot(FIRST_VIEW_GRACE_MS, once)

    _first_view_welcome = False  # the page built after the first frame is the welcome flow (else the chat)
    # True while run_app pumps events for the first page's paint, before the app's loop runs: a quit
    # (closing the window) would be lost there, so the work after the first view waits for the loop.
    starting = False

    def show_first_view(self) -> None:
        """Build and show the first page after the first frame (once; not when something already showed a page)."""
        if not self.first_view_due:
            return
        self.first_view_due = False
        if self.welcome_view is None and self.pages.currentIndex() == NAV_CHAT and self._chat_view is None:
            if self._first_view_welcome:
                self.show_welcome()
            else:
                self.nav.show_row(-1)  # so that choosing Chats is a change that builds and shows the page
                self.nav.setCurrentRow(NAV_CHAT)
        startup_probe.mark("first-view")
        page = self.pages.currentWidget()
        if page is not None:
            watch = _FirstPaintWatch(page, self)
            watch.painted.connect(self.first_view_painted)

    # -- the Chat page, built on first use ----------------------------------------

    @property
    def chat_view(self) -> ChatView:
        """The Chat page; built the first time it is shown or asked for."""
        if self._chat_view is None:
            from relavium_desktop.ui.chat.view import ChatView

            view = ChatView(self.context)
            view.open_settings.connect(self.show_settings)
            view.choose_project.connect(self.choose_project)
            view.send_blocked = self.storage_blocked
            view.storage_failed.connect(self.show_storage_problem)
            self._chat_view = view
            # The chat list lives in the sidebar; moving it there takes it out of the view's layout.
            self.sidebar.set_chat_list(view.sessions)
            title_changed = getattr(view, "title_changed", None)
            if title_changed is not None:
                title_changed.connect(self._chat_title_changed)
            else:  # a chat view that does not say its title: the selected row's
                view.sessions.list.currentItemChanged.connect(
                    lambda item, _old: self._chat_title_changed(item.text() if item is not None else ""))
            self.replace_page(NAV_CHAT, view)
            if self.tray_status is not None:
                self.tray_status.watch_chat(view)
            if self._painted:  # built after the first paint (the welcome flow ended): load it now
                self.after_first_view(self._load_chat)
        return self._chat_view

    async def _run_clipboard_in_chat(self, action: ClipboardAction, text: str) -> str:
        return await self.chat_view.run_clipboard_action(action, text)

    # -- first paint and lazily built services --------------------------------

    @property
    def painted(self) -> bool:
        """Whether the window has painted its first frame."""
        return self._painted

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if not self._painted:
            self._painted = True
            self.first_painted.emit()
            # The services, tray and the rest wait for the first page's paint, not the other way round.
            self.after_first_view(self.after_first_paint)

    def after_first_paint(self) -> None:
        """Build what the first screen does not need: stores, notifier, tray; sweep old spills.

        history.db is checked first: when it cannot be used, the storage
        state says so and everything that does not need it still starts.
        """
        self.show_window_icon()
        if self.storage_ok():
            self.ensure_services()
        self.show_settings_file_problems()
        self.start_spill_sweep()
        self.check_first_run()
        self.show_nav_icons()
        self._readiness_due = True
        self.refresh_readiness()
        if self.tray is None:
            from relavium_desktop.ui.tray import Tray

            self.tray = Tray(self, self.context.theme, available=self.tray_available)
            self.tray.open_requested.connect(self.bring_to_front)
            self.tray.process_clipboard_requested.connect(self.process_clipboard)
            self.tray.quit_requested.connect(self.quit_app)
            self.tray.show()
            self.watch_tray_status()

    # -- storage (ui/storage_state.py) --------------------------------------------------

    def storage_ok(self) -> bool:
        """Whether history.db is usable (checked once, before anything opens it; again on Retry)."""
        if not self._storage_checked:
            self._storage_checked = True
            self.storage_state.check()
        return not self.storage_state.broken

    def storage_blocked(self) -> str | None:
        """Why nothing can be saved now (the chat keeps the typed text and says this), or None."""
        problem = self.storage_state.problem
        return f"Not sent: {problem.describe()}. Your message is kept." if problem is not None else None

    def show_storage_problem(self, problem: object) -> bool:
        """A store failed while in use (a full disk mid-chat): show the state with its actions.

        ``problem`` may be SQLite's own error from a store's query; False
        when it is not a storage failure at all (the caller re-raises it).
        """
        from relavium_desktop.application.storage import storage_error

        if not isinstance(problem, BaseException):
            return False
        found = storage_error(problem, self.storage_state.path)
        if found is None:
            return False
        self._storage_checked = True
        self.storage_state.show_problem(found)
        return True

    def ensure_services(self) -> bool:
        """The context's services (grant store, notifier, approvals); False, with the state shown, when storage fails."""
        import sqlite3

        from relavium_desktop.application.storage import SchemaTooNewError

        try:
            self.context.ensure_services()
        except (sqlite3.DatabaseError, SchemaTooNewError) as exc:  # StorageError included
            if not self.show_storage_problem(exc):
                raise
            return False
        return True

    def _load_chat(self) -> None:
        import sqlite3

        from relavium_desktop.application.storage import SchemaTooNewError

        if self.load_chat and self._chat_view is not None and self.storage_ok():
            try:
                self._chat_view.ensure_loaded()
            except (sqlite3.DatabaseError, SchemaTooNewError) as exc:  # a store failing on open: shown
                if not self.show_storage_problem(exc):
                    raise

    def _storage_resolved(self) -> None:
        """history.db opens again (Retry, moved aside, recovered): start what waited for it."""
        if self.ensure_services():
            self._load_chat()
            if self._chat_view is not None:
                self._chat_view.refresh_models()

    def show_settings_file_problems(self) -> None:
        """Name each settings file that does not parse (it is left as it is; the app runs without it)."""
        paths = self.context.app.paths
        home = paths.home
        # No such file (a fresh data folder): nothing can be broken, and the parsers (YAML,
        # pydantic, the MCP host) stay unloaded -- the idle window does not need them.
        names = (paths.providers_file.name, paths.mcp_file.name, paths.plugins_file.name)
        if not any((home / name).exists() or (home / f"{name}.bak").exists() for name in names):
            return
        from relavium_desktop.ui.storage_state import settings_file_problems

        for line in settings_file_problems(home):
            self.settings_problems.add(line)

    def check_settings_saved(self) -> bool:
        """Write the settings now; a change that could not be saved (a full disk) is said, not lost silently."""
        problem = keys.save_problem(self.context.settings)
        if problem is not None:
            self.settings_problems.add(problem)
            return False
        return True

    def _theme_changed(self) -> None:
        if self._painted:  # before it, after_first_paint draws them in the palette then in force
            self.show_nav_icons()

    def show_window_icon(self) -> None:
        """The app's icon on this window and the application (dialogs, task switcher), after the first paint:
        QIcon's class alone (its ~150 theme-icon names) costs ~6 ms, and no frame shows the icon."""
        from relavium_desktop.ui.identity import app_icon

        icon = app_icon()
        QApplication.setWindowIcon(icon)
        self.setWindowIcon(icon)

    def show_nav_icons(self) -> None:
        """The sidebar's and top bar's icons in the current palette (first drawn after the first paint)."""
        palette = self.context.theme.palette
        from relavium_desktop.ui.identity import app_icon

        self.sidebar.show_icons(palette, app_icon())
        self.top_bar.show_icons(palette)

    def refresh_readiness(self) -> None:
        """Say at the sidebar's foot which providers can answer ("Ollama · ready"); after the first paint only.

        Reads providers.yaml and asks the keyring from a child process (the
        welcome flow's check), in a worker thread: never before the paint.
        """
        from relavium_desktop.ui.tasks import spawn

        if self._readiness_due:
            spawn(self._refresh_readiness())

    async def _refresh_readiness(self) -> None:
        from relavium_desktop.ui.welcome import usable_providers

        self.sidebar.set_readiness(await usable_providers(self.context))

    # -- the top bar's title and New chat -----------------------------------------

    def _chat_title_changed(self, title: str) -> None:
        self._chat_title = title
        self._show_title()

    def _show_title(self) -> None:
        """The top bar names what is open: the chat's title on Chats, else the page."""
        current = self.pages.currentWidget()
        if current is not None and current is self.welcome_view:
            self.top_bar.set_title(WELCOME_TITLE)
        elif current is not None and current is self._chat_view:
            self.top_bar.set_title(self._chat_title or PAGE_TITLES[NAV_CHAT])
        else:
            index = self.pages.currentIndex()
            self.top_bar.set_title(PAGE_TITLES[index] if 0 <= index < len(PAGE_TITLES) else "")

    def new_chat(self) -> None:
        """The sidebar's New chat and Ctrl+N: the Chats page with an empty chat, cursor in the composer."""
        if self.nav.currentRow() != NAV_CHAT:
            self.nav.setCurrentRow(NAV_CHAT)
        view = self.chat_view
        self.pages.setCurrentWidget(view)
        view.new_session()
        view.composer.setFocus()

    def start_spill_sweep(self) -> None:
        """Remove spilled tool output older than the retention, in a worker thread, once.

        Called after the first paint: the sweep walks ``runs/`` on disk and
        must never hold up the window (nor run on the UI thread at all).
        """
        if self.spill_sweep is not None:
            return
        days = keys.read_retention_days(self.context.settings)
        if days <= 0:
            return
        from relavium_desktop.application.storage import start_spill_sweep

        self.spill_sweep = start_spill_sweep(self.context.app.paths, days * 86_400)

    # -- project ------------------------------------------------------------------

    # -- first run ------------------------------------------------------------------

    def first_run_certain(self) -> bool:
        """A fresh data folder: no provider file and the flow never finished -- welcome at once.

        Decided from one file check, so the welcome is the first screen
        painted rather than a switch after a chat flashed up.
        """
        return (not self.context.settings.value(keys.KEY_WELCOME_DONE)
                and not self.context.app.paths.providers_file.exists())

    def check_first_run(self) -> None:
        """After the first paint: open the welcome flow if no configured provider has a key."""
        from relavium_desktop.ui.tasks import spawn

        if self.context.settings.value(keys.KEY_WELCOME_DONE) or self.welcome_view is not None:
            return
        spawn(self._check_first_run())

    async def _check_first_run(self) -> None:
        from relavium_desktop.ui.welcome import usable_providers

        if await usable_providers(self.context):
            # A provider is already set up (keys from an earlier version, the CLI, the environment).
            self.context.settings.setValue(keys.KEY_WELCOME_DONE, "done")
        elif self.welcome_view is None and not self.context.settings.value(keys.KEY_WELCOME_DONE):
            self.show_welcome()

    def show_welcome(self) -> WelcomeView:
        """The first-run flow in place of the chat (also "Run the setup guide again" in Settings)."""
        from relavium_desktop.ui.welcome import WelcomeView

        if self.welcome_view is None:
            self.welcome_view = WelcomeView(self.context, self.local_servers)
            self.welcome_view.finished.connect(self._welcome_finished)
            self.welcome_view.choose_project.connect(self.choose_project)
            self.pages.addWidget(self.welcome_view)
        self.nav.show_row(-1)  # none of the places: the flow has the main area
        self.pages.setCurrentWidget(self.welcome_view)
        return self.welcome_view

    def _welcome_finished(self, _how: str) -> None:
        view = self.welcome_view
        self.welcome_view = None
        self.nav.setCurrentRow(NAV_CHAT)
        self.pages.setCurrentWidget(self.chat_view)
        if view is not None:
            self.pages.removeWidget(view)
            view.deleteLater()
        self.chat_view.refresh_models()  # the provider and model picked in the flow
        self.refresh_readiness()
        self.chat_view.composer.setFocus()

    def _show_project(self) -> None:
        self.top_bar.show_project(self.context.project or "")

    def choose_project(self) -> None:
        start = self.context.project or str(Path.home())
        folder = self.context.folder_picker(self, start)
        if folder:
            self.context.set_project(folder)

    # -- navigation -----------------------------------------------------------

    def _navigate(self, row: int) -> None:
        if self._painted and self.settings_view is not None and self.pages.currentWidget() is self.settings_view:
            self.refresh_readiness()  # leaving Settings: a provider may have been added or removed
        if row == NAV_SETTINGS:
            self.show_settings()
            return
        if row == NAV_WORKFLOWS:
            self.show_workflows()
            return
        if row == NAV_RUNS:
            self.show_runs()
            return
        if row == NAV_CHAT:
            self.pages.setCurrentWidget(self.chat_view)
            return
        self.pages.setCurrentIndex(row)

    def show_workflows(self) -> WorkflowsView:
        """Build the page on first use (keeps it off the first paint) and show it."""
        if self.workflows_view is None:
            from relavium_desktop.ui.workflows.view import WorkflowsView

            self.workflows_view = WorkflowsView(self.context)
            self.workflows_view.open_run.connect(self.open_run)
            self.workflows_view.choose_project.connect(self.choose_project)
            self.workflows_view.attach_gate_board(self.gate_board())
            self.replace_page(NAV_WORKFLOWS, self.workflows_view)
            self.workflows_view.refresh()
        if self.nav.currentRow() != NAV_WORKFLOWS:
            self.nav.setCurrentRow(NAV_WORKFLOWS)
            return self.workflows_view  # navigating came back here through _navigate
        self.pages.setCurrentWidget(self.workflows_view)
        return self.workflows_view

    def show_runs(self) -> RunsView:
        """Build the page on first use and show it, re-reading history each time."""
        if self.runs_view is None:
            from relavium_desktop.ui.runs.view import RunsView

            self.runs_view = RunsView(self.context)
            self.runs_view.attach_gate_board(self.gate_board())
            self.runs_view.go_to_workflows.connect(self.show_workflows)
            self.replace_page(NAV_RUNS, self.runs_view)
        if self.nav.currentRow() != NAV_RUNS:
            self.nav.setCurrentRow(NAV_RUNS)
            return self.runs_view  # navigating came back here through _navigate
        self.pages.setCurrentWidget(self.runs_view)
        self.runs_view.refresh()
        return self.runs_view

    def open_run(self, run_id: str) -> None:
        """Bring the window forward on Runs / History with ``run_id``'s event log shown."""
        from relavium_desktop.ui.tasks import spawn

        self.bring_to_front()
        view = self.show_runs()
        spawn(view.show_run(run_id))

    def replace_page(self, index: int, view: QWidget) -> None:
        """Swap the placeholder at ``index`` for a view built on first use (off the first paint)."""
        old = self.pages.widget(index)
        self.pages.insertWidget(index, view)
        if old is not None:
            self.pages.removeWidget(old)
            old.deleteLater()

    def show_settings(self, tab: str | None = None) -> SettingsView:
        if self.settings_view is None:
            from relavium_desktop.ui.settings.view import SettingsView

            self.ensure_services()  # a broken history.db: Settings still opens (grants empty), the state says why
            self.settings_view = SettingsView(self.context)
            self.settings_view.shortcut_changed.connect(self.clipboard_shortcut.setKey)
            self.settings_view.providers.setup_requested.connect(self.show_welcome)
            # A key stored or removed, a provider added: the sidebar's foot says so at once.
            self.settings_view.providers.changed.connect(self.refresh_readiness)
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
        desktop_os = self.context.desktop_os
        assert desktop_os is not None
        text = await desktop_os.read_clipboard()
        actions = await asyncio.to_thread(load_actions)
        if self.quick_panel is not None:
            self.quick_panel.close()
            self.quick_panel.deleteLater()
        # An image is only noticed here (its actions are offered); the run reads it, after the permission dialog.
        from relavium_desktop.ui.clipboard_image_run import chat_image_runner

        panel = QuickPanel(text, actions, self.clipboard_runner, self, notifier=desktop_os,
                           has_image=desktop_os.clipboard_has_image(),
                           image_runner=chat_image_runner(self.chat_view, self.context))
        panel.open_in_chat.connect(self.open_in_chat)
        self.quick_panel = panel
        panel.show()
        panel.raise_()
        panel.activateWindow()
        return panel

    def open_in_chat(self, prompt: str, result: str, title: str = "") -> None:
        self.nav.setCurrentRow(NAV_CHAT)
        self.chat_view.open_from_clipboard(prompt, result, title or None)
        self.bring_to_front()
        self.chat_view.composer.setFocus()  # the user goes on typing where the panel left off

    # -- single instance and tray --------------------------------------------

    def handle_instance_command(self, command: str) -> None:
        """A second launch forwarded ``command`` to this instance."""
        from relavium_desktop.ui.single_instance import OPEN_FILE

        self.bring_to_front()
        if command == "process-clipboard":
            self.process_clipboard()
        elif command.startswith(OPEN_FILE + ":"):
            self.show_workflows().open_workflow_file(command[len(OPEN_FILE) + 1:])

    def bring_to_front(self) -> None:
        if self.isMinimized():
            self.showNormal()
        self.show()
        self.raise_()
        self.activateWindow()
        if self.tray_status is not None:
            self.tray_status.mark_seen()  # shown again: the failures it flagged are in view

    def quit_app(self) -> None:
        """Tray "Quit": close for real (not into the tray) and end run_app's loop."""
        self.quitting = True
        self.close()
        app = QApplication.instance()
        if app is not None:
            app.quit()

    def tray_available(self) -> bool:
        """Whether the desktop has a tray; tests replace this (the offscreen platform never has one)."""
        from relavium_desktop.ui.qt import QSystemTrayIcon

        return QSystemTrayIcon.isSystemTrayAvailable()

    def watch_tray_status(self) -> TrayStatus:
        """Feed the tray from the chat, the permission prompts and (once built) the Workflows view."""
        if self.tray_status is None:
            from relavium_desktop.ui.tray_state import TrayStatus

            status = TrayStatus(self)
            self.tray_status = status
            if self._chat_view is not None:  # else watched when built
                status.watch_chat(self._chat_view)
            if self.context.approvals is not None:
                status.watch_approvals(self.context.approvals)
            # The Workflows view is built on first use; it becomes the current page when it is.
            self.pages.currentChanged.connect(lambda _index: self._tray_watch_workflows())
            self._tray_watch_workflows()
            status.changed.connect(self._show_tray_status)
            status.watch_gate_board(self.gate_board())
        return self.tray_status

    def gate_board(self) -> GateBoard:
        """The window's one list of pending gates (ui/gate_board.py): Workflows, Runs, tray and notices follow it."""
        if self._gate_board is None:
            from relavium_desktop.ui.gate_board import GateBoard

            board = GateBoard(self.context.app.runs, self)
            self._gate_board = board
            board.changed.connect(lambda: self.sidebar.set_waiting(board.pending_count))
            board.start()
            self.sidebar.set_waiting(board.pending_count)
        return self._gate_board

    def _tray_watch_workflows(self) -> None:
        if self.tray_status is not None and self.workflows_view is not None:
            self.tray_status.watch_workflows(self.workflows_view)

    def _show_tray_status(self) -> None:
        if self.tray is not None and self.tray_status is not None:
            self.tray.set_state(self.tray_status.state, self.tray_status.waiting)

    def keeps_running_in_tray(self) -> bool:
        """Closing hides the window instead: a tray is showing, the setting is on, and this is not Quit."""
        return (
            not self.quitting and self.tray is not None and self.tray.shown
            and keys.read_bool(self.context.settings, keys.KEY_CLOSE_TO_TRAY, True)
        )

    def tell_about_tray(self) -> None:
        """Once ever: a notification that closing did not quit (unless notifications are all off)."""
        from relavium_desktop.ui.tasks import spawn

        settings = self.context.settings
        if keys.read_bool(settings, keys.KEY_TOLD_ABOUT_TRAY, False):
            return
        settings.setValue(keys.KEY_TOLD_ABOUT_TRAY, True)
        settings.sync()
        if not (self.context.notifications_enabled(keys.KEY_NOTIFY_RUNS)
                or self.context.notifications_enabled(keys.KEY_NOTIFY_APPROVALS)):
            return
        self.context.ensure_services()
        if self.context.desktop_os is not None:
            spawn(self._send_tray_notice(self.context.desktop_os))

    async def _send_tray_notice(self, notifier: DesktopOs) -> None:
        import logging

        try:
            await notifier.notify(TRAY_NOTICE_TITLE, TRAY_NOTICE_BODY, [])
        except Exception as exc:  # noqa: BLE001 -- the tray still works; a missing notifier is not fatal
            logging.getLogger(__name__).info("tray notice not shown: %s", type(exc).__name__)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.context.settings.setValue(keys.KEY_GEOMETRY, self.saveGeometry())
        self.context.settings.sync()
        if self.keeps_running_in_tray():
            event.ignore()
            self.hide()
            self.tell_about_tray()
            return
        if self._chat_view is not None:
            self._chat_view.close_backend()
        if self.context.desktop_os is not None:  # no one will answer their buttons once this process ends
            self.context.desktop_os.withdraw_asking_now()
        if self.tray is not None:
            self.tray.hide()
        super().closeEvent(event)


def parse_args(argv: list[str]) -> argparse.Namespace:
    if not argv:  # the usual start: the defaults, without building the parser (~4 ms of gettext and regexes)
        return argparse.Namespace(process_clipboard=False, project=None, files=[], hidden=False,
                                  headless_check=False, install_desktop_entry=False, uninstall_desktop_entry=False)
    return argument_parser().parse_args(argv)


def argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="relavium-desktop", description="Relavium Desktop")
    parser.add_argument(
        "--process-clipboard", action="store_true",
        help="open the quick panel for the clipboard text (in the running app, if there is one)",
    )
    parser.add_argument("--project", help="open this project folder")
    parser.add_argument("files", nargs="*", metavar="FILE",
                        help="a workflow (*.relavium.yaml) to open (in the running app, if there is one)")
    parser.add_argument("--hidden", action="store_true",
                        help="start in the tray without showing the window (how Start at login starts it); "
                             "the window shows anyway when the desktop has no tray")
    parser.add_argument("--headless-check", action="store_true",
                        help="start, paint the window once, print the time to first paint and exit")
    # Handled by relavium_desktop.app before any display is needed; listed here for --help.
    parser.add_argument("--install-desktop-entry", action="store_true",
                        help="add Relavium to this user's application menu and file types, then exit")
    parser.add_argument("--uninstall-desktop-entry", action="store_true",
                        help="remove what --install-desktop-entry added, then exit")
    return parser


def run_app(argv: list[str], paths: AppPaths) -> int:
    """Run the app over ``paths`` (decided once by the entry point); a second launch forwards to the first."""
    started = time.monotonic()
    args = parse_args(argv[1:])
    from relavium_desktop.ui.single_instance import OPEN_FILE, InstanceServer, forward_to_running, server_name

    # The desktop matches a window to its launcher by StartupWMClass (X11 WM_CLASS, whose
    # instance part Qt takes from ``-name``, else argv[0]'s name) or by the desktop file
    # name (Wayland app id, KDE): both are set to APP_ID, while the class part stays the
    # application name.
    from relavium_desktop.ui.theme import FUSION_ARGUMENTS, FUSION_PROPERTY

    app: Any = QApplication.instance()
    if app is None:
        app = QApplication([argv[0], "-name", APP_ID, *FUSION_ARGUMENTS, *argv[1:]])
        app.setProperty(FUSION_PROPERTY, True)
    app.setApplicationName("Relavium")
    app.setApplicationDisplayName("Relavium Desktop")
    app.setDesktopFileName(APP_ID)
    startup_probe.mark("qt-init")
    files = [os.path.abspath(f) for f in args.files]
    name = server_name(paths.home)
    # A check paints its own window even beside a running app.  A running app listens on a socket
    # file (outside Windows): with no such file there is nobody to forward to, and no socket to try.
    if not args.headless_check and (os.name == "nt" or os.path.exists(name)):
        if files:
            if forward_to_running(name, OPEN_FILE, path=files[0]):
                return 0
        elif forward_to_running(name, "process-clipboard" if args.process_clipboard else "show"):
            return 0
    startup_probe.mark("single-instance")

    # A check paints and checks storage; it starts no chat backend (nor MCP servers) it would stop at once.
    from relavium_desktop.application.app import Application as ProcessApplication

    # A check paints and quits at once, and a start in the tray paints nothing: both build the first page
    # as before; a shown window paints its chrome first and the page on the next turn.
    deferred = not args.headless_check and not args.hidden
    window = MainWindow(load_chat=not args.headless_check, app=ProcessApplication(paths),
                        first_view_after_paint=deferred)
    startup_probe.mark("window")
    if args.project:
        window.context.set_project(args.project)
    server: InstanceServer | None = None

    def serve() -> None:
        """Listen for later launches once the window is up: QtNetwork loads after the first paint."""
        nonlocal server
        if server is None and not args.headless_check:
            server = InstanceServer(name)
            server.listen()
            server.command_received.connect(window.handle_instance_command)

    # Once the first page has painted (on a later loop turn), not inside the paint.
    window.first_painted.connect(lambda: window.after_first_view(serve))
    status = 0
    if args.headless_check:
        def checked() -> None:
            nonlocal status
            elapsed_ms = (time.monotonic() - started) * 1000
            status = headless_verdict(window, elapsed_ms)
            window.quitting = True  # a real quit, not a hide into the tray
            QTimer.singleShot(0, app.quit)

        window.first_painted.connect(checked)
    probe = startup_probe.enabled()
    if probe:
        # bench/startup.py: report the first paint on the shared monotonic clock, then the first page's
        # paint when it comes after it, then quit (or stay idle).
        painted = {"window": False, "page": not deferred}  # the page paints with the window unless deferred

        def finish(what: str) -> None:
            painted[what] = True
            if what == "window":
                startup_probe.first_paint()
            if not all(painted.values()):
                return
            startup_probe.mark("first-view-paint")
            if not startup_probe.stays():
                os._exit(0)  # the probe times the start; a full teardown would only slow the bench's next run

        window.first_painted.connect(lambda: finish("window"))
        window.first_view_painted.connect(lambda: finish("page"))
    # Start at login starts the app in the tray; with no tray it would be unreachable, so it shows.
    hidden = args.hidden and not args.headless_check and not probe and window.tray_available()
    if not hidden:
        window.show()
    startup_probe.mark("show")
    # Paint first; asyncio + qasync (~0.1-0.2 s of imports) load after the window is on screen.
    app.processEvents()
    if window.painted and not window.first_view_shown:  # the frame is up: the first page next, before asyncio
        window.show_first_view()
        # Its paint waits for the platform's next frame: wait for it here (bounded), ahead of the imports.
        from relavium_desktop.ui.qt import QEventLoop

        deadline = time.monotonic() + 1.0
        window.starting = True
        while not window.first_view_shown and time.monotonic() < deadline:
            app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents, 50)
        window.starting = False
    import asyncio

    import qasync

    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    if hidden:
        QTimer.singleShot(0, window.after_first_paint)  # the tray and services, with no paint to wait for
        QTimer.singleShot(0, serve)
    if args.process_clipboard:
        QTimer.singleShot(0, window.process_clipboard)
    if files and not args.headless_check:
        QTimer.singleShot(0, lambda: window.handle_instance_command(f"{OPEN_FILE}:{files[0]}"))
    closed = asyncio.Event()
    app.aboutToQuit.connect(closed.set)
    with loop:
        loop.run_until_complete(closed.wait())
    if server is not None:
        server.close()
    if window.context.grants is not None:
        window.context.grants.close()
    return status


def headless_verdict(window: MainWindow, elapsed_ms: float) -> int:
    """``--headless-check``'s answer: 1 with the reason when history.db cannot be used; settings problems warned."""
    from relavium_desktop.ui.storage_state import settings_file_problems

    warnings = list(window.settings_problems.lines) + settings_file_problems(window.context.app.paths.home)
    for line in warnings:
        print(f"relavium-desktop: warning: {line}", file=sys.stderr, flush=True)
    if not window.storage_ok():
        problem = window.storage_state.problem
        assert problem is not None
        print(f"relavium-desktop: history.db cannot be used: {problem.describe()}", file=sys.stderr, flush=True)
        return 1
    print(f"relavium-desktop: ok, first paint in {elapsed_ms:.0f} ms", flush=True)
    return 0


if __name__ == "__main__":
    from relavium_desktop.app import main

    sys.exit(main())
