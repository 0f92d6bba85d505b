"""When history.db cannot be used, the window says so -- which file, why -- and offers the way out.

A damaged, locked, full or read-only history.db used to half-start the
window with a log line nobody saw.  Now the shell checks the file before
anything opens it (``store.db.check_history``) and, on a problem, shows
:class:`StorageState` above the pages: the cause in one line, and buttons
for what can fix it -- open the data folder, retry, and for a damaged file
move it aside (kept, under a timestamped name) and start fresh, or try to
recover what is still readable into a new one.  Salvage and the moving run
in a worker thread; the chat keeps the user's typed text while storage is
down.

:class:`SettingsProblems` is the smaller sibling for settings files that do
not parse (desktop-settings.ini, providers.yaml, mcp.yaml, plugins.yaml):
each is named, none is rewritten, and the app runs on defaults or, in
memory, on the ``.bak`` copy (edits refused until the file is fixed).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from relavium_desktop.application.paths import AppPaths
from relavium_desktop.ui.error_text import error_text
from relavium_desktop.ui.qt import QHBoxLayout, QLabel, QPushButton, Qt, QVBoxLayout, QWidget, Signal
from relavium_desktop.ui.theme import set_surface, set_tone

if TYPE_CHECKING:
    from relavium_desktop.application.storage import StorageError

FolderOpener = Callable[[Path], None]
HISTORY_FILE = "history.db"

TITLES = {
    "corrupt": "Relavium cannot read its history: the file is damaged",
    "full": "Relavium cannot save: the disk is full",
    "locked": "Relavium cannot use its history: another program holds the file",
    "readonly": "Relavium cannot save its history: the file or folder is read-only",
    "too_new": "This history was written by a newer Relavium Desktop",
    "io": "Relavium cannot read or write its history",
}
HINTS = {
    "corrupt": "Move it aside to start with an empty history (the file is kept), or try to recover what is "
    "still readable. Chats and runs cannot be saved until then.",
    "full": "Free some space on that disk, then Retry. Chats and runs cannot be saved until then.",
    "locked": "Close the other program using it (a database browser, a sync tool), then Retry.",
    "readonly": "Make the data folder writable for your user, then Retry.",
    "too_new": "Update Relavium Desktop, or start this version with another data folder (RELAVIUM_HOME).",
    "io": "Check the disk and the data folder, then Retry.",
}


def open_in_file_manager(folder: Path) -> None:
    from relavium_desktop.ui.qt import QDesktopServices, QUrl

    QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))


class StorageState(QWidget):
    """history.db's problem, named, with the actions that can fix it; ``resolved`` once it opens again."""

    resolved = Signal()

    def __init__(self, home: Path, *, open_folder: FolderOpener | None = None) -> None:
        super().__init__()
        self.setObjectName("storageState")
        set_surface(self, "banner-danger")
        # Named here (AppPaths is plain data) so the store and sqlite3 load after the first paint.
        self.paths = AppPaths(home)
        self.path = self.paths.history_db
        self.problem: StorageError | None = None
        self.busy = False
        self._open_folder = open_folder or open_in_file_manager
        self.title = QLabel()
        self.title.setObjectName("storageTitle")
        self.title.setWordWrap(True)
        set_tone(self.title, "title")
        self.detail = QLabel()
        self.detail.setObjectName("storageDetail")
        self.detail.setWordWrap(True)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.outcome = QLabel()
        self.outcome.setObjectName("storageOutcome")
        self.outcome.setWordWrap(True)
        self.outcome.hide()
        self.open_button = self._button("Open the data folder", "storageOpenFolder", self.open_folder)
        self.retry_button = self._button("Retry", "storageRetry", self.retry)
        self.aside_button = self._button("Move it aside and start fresh", "storageMoveAside", self.move_aside)
        self.recover_button = self._button("Try to recover", "storageRecover", self.recover)
        row = QHBoxLayout()
        for button in (self.open_button, self.retry_button, self.aside_button, self.recover_button):
            row.addWidget(button)
        row.addStretch(1)
        column = QVBoxLayout(self)
        column.setContentsMargins(12, 10, 12, 10)
        column.addWidget(self.title)
        column.addWidget(self.detail)
        column.addWidget(self.outcome)
        column.addLayout(row)
        self.hide()

    def _button(self, text: str, name: str, slot: Callable[[], object]) -> QPushButton:
        button = QPushButton(text)
        button.setObjectName(name)
        button.setAutoDefault(False)
        button.clicked.connect(lambda _checked=False: slot())
        return button

    @property
    def broken(self) -> bool:
        return self.problem is not None

    def show_problem(self, problem: StorageError) -> None:
        """Show ``problem`` (its one-line description, what to do) and the actions that fit it."""
        self.problem = problem
        self.title.setText(TITLES.get(problem.kind, TITLES["io"]))
        self.detail.setText(f"{error_text(problem.describe())}\n{HINTS.get(problem.kind, HINTS['io'])}")
        corrupt = problem.kind == "corrupt"
        self.aside_button.setVisible(corrupt)
        self.recover_button.setVisible(corrupt)
        self._set_busy(False)
        self.show()

    def check(self) -> bool:
        """Check history.db now; True when it is usable (the state hides and ``resolved`` is emitted once)."""
        from relavium_desktop.application.storage import check_history

        problem = check_history(self.paths)
        if problem is not None:
            self.show_problem(problem)
            return False
        was_broken = self.problem is not None
        self.problem = None
        self.hide()
        if was_broken:
            self.resolved.emit()
        return True

    # -- actions ------------------------------------------------------------------------

    def open_folder(self) -> None:
        self._open_folder(self.path.parent)

    def retry(self) -> bool:
        self.outcome.hide()
        return self.check()

    def move_aside(self) -> None:
        """Rename the damaged file (kept) and start with an empty history."""
        from relavium_desktop.application.storage import move_history_aside

        try:
            kept = move_history_aside(self.paths)
        except OSError as exc:
            self._say(f"Could not move {self.path.name} aside: {exc.strerror or error_text(exc)}.")
            return
        self._say(f"The damaged file is kept as {kept.name} in {kept.parent}. Relavium starts with an empty history.")
        self.check()

    def recover(self) -> None:
        """Move the damaged file aside, then salvage what is readable into a new history.db (in a worker thread)."""
        from relavium_desktop.ui.tasks import spawn

        if self.busy:
            return
        self._set_busy(True)
        self._say("Recovering what is still readable…")
        spawn(self._recover())

    async def _recover(self) -> None:
        import asyncio

        from relavium_desktop.application.storage import RecoveryFailed, move_history_aside, salvage_history

        try:
            kept = await asyncio.to_thread(move_history_aside, self.paths)
        except OSError as exc:
            self._set_busy(False)
            self._say(f"Could not move {self.path.name} aside: {exc.strerror or error_text(exc)}.")
            return
        try:
            done = await asyncio.to_thread(salvage_history, kept, self.paths)
        except (RecoveryFailed, OSError) as exc:
            self._say(f"Nothing could be recovered ({error_text(exc)}). The damaged file is kept as {kept.name}; "
                      "Relavium starts with an empty history.")
        else:
            self._say(f"Recovered {done.sessions} chats and {done.messages} messages ({done.method}). "
                      f"The damaged file is kept as {kept.name}.")
        self._set_busy(False)
        self.check()

    def _say(self, text: str) -> None:
        self.outcome.setText(text)
        self.outcome.show()

    def _set_busy(self, busy: bool) -> None:
        self.busy = busy
        for button in (self.retry_button, self.aside_button, self.recover_button):
            button.setEnabled(not busy)


class SettingsProblems(QWidget):
    """Which settings files are broken and what the app did instead; never rewritten because of it."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("settingsProblems")
        set_surface(self, "banner-warning")
        self.label = QLabel()
        self.label.setObjectName("settingsProblemsText")
        self.label.setWordWrap(True)
        self.dismiss = QPushButton("Dismiss")
        self.dismiss.setAutoDefault(False)
        self.dismiss.clicked.connect(self.hide)
        row = QHBoxLayout(self)
        row.setContentsMargins(12, 6, 12, 6)
        row.addWidget(self.label, 1)
        row.addWidget(self.dismiss)
        self.lines: list[str] = []
        self.hide()

    def add(self, line: str) -> None:
        """Add one problem (once); the banner shows all of them."""
        if line in self.lines:
            self.show()
            return
        self.lines.append(line)
        self.label.setText("\n".join(self.lines))
        self.show()


def settings_file_problems(home: Path) -> list[str]:
    """One line per settings file under ``home`` that does not parse: providers.yaml, mcp.yaml, plugins.yaml.

    Each loader already refuses its broken file with a message naming it, or
    runs on its last good ``.bak`` (in memory) and says so here; nothing here
    writes.  desktop-settings.ini is checked where it is opened
    (``app_settings.ui_settings``).

    A file that is absent, with no ``.bak`` either, cannot be broken: its
    parser is not even imported (mcp.yaml's would load the whole MCP host).
    """
    from relavium_desktop.application.settings_files import settings_file_states

    consequence = {
        "providers": "the providers in it are not offered until it is fixed",
        "mcp": "no MCP server is started until it is fixed",
        "plugins": "no plugin is loaded until it is fixed",
    }
    lines: list[str] = []
    for state in settings_file_states(AppPaths(home)):
        if state.refused is not None:
            lines.append(f"{error_text(state.refused)} -- {consequence[state.kind]}.")
        elif state.backup is not None:
            lines.append(f"{error_text(state.backup.describe(), limit=600)}.")
    return lines
