"""Settings → Permissions: the "always allow in this project" grants, and revoking them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from relavium_desktop.store.grants import Grant
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

if TYPE_CHECKING:
    from relavium_desktop.ui.shell import MainWindow

COLUMNS = ("Project", "Tool", "Allows", "Granted")


class PermissionsPage(QWidget):
    def __init__(self, window: MainWindow) -> None:
        super().__init__()
        self._window = window
        self.grants: list[Grant] = []
        intro = QLabel(
            "Actions you chose to “Always allow in this project”. Revoking one makes the "
            "action ask again. Protected paths always ask and never appear here."
        )
        intro.setWordWrap(True)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("grantsTable")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setVisible(False)
        self.revoke_button = QPushButton("Revoke")
        self.revoke_button.setAutoDefault(False)
        self.revoke_button.clicked.connect(self.revoke_selected)
        self.empty = QLabel("No permanent permissions yet.")
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.table, 1)
        row = QHBoxLayout()
        row.addWidget(self.empty)
        row.addStretch(1)
        row.addWidget(self.revoke_button)
        layout.addLayout(row)
        self.refresh()

    def refresh(self) -> None:
        store = self._window.grants
        self.grants = store.list() if store is not None else []
        self.table.setRowCount(len(self.grants))
        for row, grant in enumerate(self.grants):
            cells = (grant.project, grant.tool, grant.target.describe(), grant.created_at.replace("T", " "))
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, grant.id)
                self.table.setItem(row, col, item)
        self.empty.setVisible(not self.grants)
        self.revoke_button.setEnabled(bool(self.grants))

    def revoke_selected(self) -> None:
        store = self._window.grants
        row = self.table.currentRow()
        if store is None or not 0 <= row < len(self.grants):
            return
        store.revoke(self.grants[row].id)
        self.refresh()
