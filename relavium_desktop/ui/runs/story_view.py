"""The readable timeline of one run, with a filter.

Rows come from :mod:`.run_story`: local clock time, an icon for what
happened, and a sentence.  The filter narrows to nodes, tool calls or
errors, and the search box to rows containing some words -- a long agent run
has hundreds of rows, and the question is usually "what failed?" or "what
did it do to that file?".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from relavium_desktop.ui.qt import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    Qt,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
    Signal,
)
from relavium_desktop.ui.runs.local_time import clock_local, full_local
from relavium_desktop.ui.runs.run_story import NODE, TOOL, StoryRow
from relavium_desktop.ui.theme.icons import icon

if TYPE_CHECKING:
    from relavium_desktop.ui.theme.palette import Palette

FILTERS = ("All", "Nodes", "Tools", "Errors")
# event type -> (icon, palette role); errors are always a red x.
ROW_ICONS = {
    "node:started": ("play", "info"),
    "node:completed": ("check", "success"),
    "node:skipped": ("chevron-right", "muted"),
    "agent:tool_call": ("tool", "accent"),
    "agent:tool_result": ("tool", "success"),
    "cost:updated": ("money", "muted"),
    "human_gate:paused": ("pause", "warning"),
    "human_gate:resumed": ("check", "info"),
    "run:started": ("workflow", "accent"),
    "run:paused": ("pause", "warning"),
    "run:completed": ("check", "success"),
    "run:cancelled": ("stop", "muted"),
}


def keep(row: StoryRow, which: str, words: str) -> bool:
    """Whether ``row`` passes the filter ``which`` (one of FILTERS) and contains ``words``."""
    if which == "Nodes" and row.kind != NODE:
        return False
    if which == "Tools" and row.kind != TOOL:
        return False
    if which == "Errors" and not row.error:
        return False
    needle = words.strip().casefold()
    return not needle or needle in row.text.casefold() or needle in row.detail.casefold()


class StoryView(QWidget):
    filtered = Signal(int)  # rows shown

    def __init__(self, palette: Palette, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("runStory")
        self.palette_now = palette
        self.rows: list[StoryRow] = []
        self.shown: list[StoryRow] = []
        self.which = QComboBox()
        self.which.setObjectName("storyFilter")
        self.which.addItems(list(FILTERS))
        self.which.setToolTip("Show every row, only node steps, only tool calls, or only errors")
        self.which.currentTextChanged.connect(lambda _t: self._fill())
        self.search = QLineEdit()
        self.search.setObjectName("storySearch")
        self.search.setPlaceholderText("Filter rows by text")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(lambda _t: self._fill())
        self.table = QTableWidget(0, 2)
        self.table.setObjectName("storyTable")
        self.table.setHorizontalHeaderLabels(["Time", "What happened"])
        self.table.verticalHeader().setVisible(False)
        self.table.setShowGrid(False)  # rows, not a spreadsheet
        self.table.horizontalHeader().setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setWordWrap(False)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(self.which)
        bar.addWidget(self.search, 1)
        col = QVBoxLayout(self)
        col.setContentsMargins(0, 0, 0, 0)
        col.addLayout(bar)
        col.addWidget(self.table, 1)

    def set_rows(self, rows: list[StoryRow]) -> None:
        self.rows = rows
        self._fill()

    def set_palette(self, palette: Palette) -> None:
        self.palette_now = palette
        self._fill()

    def texts(self) -> list[str]:
        """The sentences shown, top to bottom (what a person reads)."""
        return [row.text for row in self.shown]

    def _fill(self) -> None:
        which, words = self.which.currentText(), self.search.text()
        self.shown = [row for row in self.rows if keep(row, which, words)]
        self.table.setRowCount(len(self.shown))
        for i, row in enumerate(self.shown):
            when = QTableWidgetItem(clock_local(row.at) if row.at is not None else "")
            if row.at is not None:
                when.setToolTip(full_local(row.at))
            what = QTableWidgetItem(row.text)
            name, role = ("x", "danger") if row.error else ROW_ICONS.get(row.event_type, ("info", "muted"))
            what.setIcon(icon(name, self.palette_now, role))
            what.setToolTip("\n".join(x for x in (row.text, row.detail) if x))
            self.table.setItem(i, 0, when)
            self.table.setItem(i, 1, what)
        self.filtered.emit(len(self.shown))
