"""Settings → Permissions: the "always allow in this project" grants, and revoking them.

When a grant was made reads as a person says it ("Today 14:02", "3 Dec 09:10") in local time;
the full local timestamp is the cell's tooltip.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from relavium_desktop.ui.qt import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    Qt,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)
from relavium_desktop.ui.readable import tool_name
from relavium_desktop.ui.runs.local_time import full_local, parse_wire_time, short_local
from relavium_desktop.ui.theme import set_tone, set_variant
from relavium_desktop.ui.theme.tokens import PAD_MAIN, SPACE_3

if TYPE_CHECKING:
    from relavium_desktop.application.stores import FolderGrant, Grant
    from relavium_desktop.ui.context import AppContext

COLUMNS = ("Project", "Tool", "Allows", "Granted")


class PermissionsPage(QWidget):
    def __init__(self, context: AppContext) -> None:
        super().__init__()
        self._context = context
        self.grants: list[Grant] = []
        self.folder_grants: list[FolderGrant] = []
        intro = QLabel(
            "Actions you chose to “Always allow in this project”, and folders outside a project "
            "you allowed it to use. Revoking one makes the action ask again (or the folder refused). "
            "Protected paths always ask and never appear here."
        )
        intro.setWordWrap(True)
        set_tone(intro, "muted")
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("grantsTable")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        # Tool and Granted are short, fixed-shape texts: shown whole, never clipped.
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setSectionResizeMode(3, QHeaderView.ResizeMode.ResizeToContents)
        self.table.verticalHeader().setVisible(False)
        self.revoke_button = QPushButton("Revoke")
        self.revoke_button.setAutoDefault(False)
        set_variant(self.revoke_button, "danger")
        self.revoke_button.clicked.connect(self.revoke_selected)
        self.empty = QLabel("No permanent permissions yet.")
        set_tone(self.empty, "muted")
        heading = QLabel("Always allowed")
        set_variant(heading, "group-label")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(PAD_MAIN, PAD_MAIN, PAD_MAIN, PAD_MAIN)
        layout.setSpacing(SPACE_3)
        layout.addWidget(heading)
        layout.addWidget(intro)
        layout.addWidget(self.table, 1)
        row = QHBoxLayout()
        row.addWidget(self.empty)
        row.addStretch(1)
        row.addWidget(self.revoke_button)
        layout.addLayout(row)
        self.refresh()

    def refresh(self) -> None:
        store = self._context.grants
        self.grants = store.list() if store is not None else []
        self.folder_grants = store.folders.list() if store is not None else []
        rows: list[tuple[str, str, str, str, int]] = [
            (g.project, g.tool, g.target.describe(), g.created_at, g.id) for g in self.grants
        ] + [(f.project, "file tools", f.describe(), f.created_at, f.id) for f in self.folder_grants]
        self.table.setRowCount(len(rows))
        for row, (project, tool, allows, created, ident) in enumerate(rows):
            epoch = parse_wire_time(created)
            when = short_local(epoch) if epoch is not None else created.replace("T", " ")
            shown_tool = "File tools" if tool == "file tools" else tool_name(tool)
            for col, text in enumerate((project, shown_tool, allows, when)):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, ident)
                if col == 3 and epoch is not None:
                    item.setToolTip(full_local(epoch))
                if col == 1:
                    item.setToolTip(tool)  # the tool's id, for whoever needs it
                self.table.setItem(row, col, item)
        self.empty.setVisible(not rows)
        self.revoke_button.setEnabled(bool(rows))

    def revoke_selected(self) -> None:
        store = self._context.grants
        row = self.table.currentRow()
        if store is None or row < 0:
            return
        if row < len(self.grants):
            store.revoke(self.grants[row].id)
        elif row - len(self.grants) < len(self.folder_grants):
            store.folders.revoke(self.folder_grants[row - len(self.grants)].id)
        self.refresh()
