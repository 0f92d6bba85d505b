"""The sessions list: new, resume (select), rename (edit in place), delete."""

from __future__ import annotations

from typing import TYPE_CHECKING

from relavium_desktop.ui.qt import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    Qt,
    QVBoxLayout,
    QWidget,
    Signal,
)

if TYPE_CHECKING:
    from relavium_desktop.engine.agent.session import SessionInfo

ID_ROLE = Qt.ItemDataRole.UserRole


class SessionsPanel(QWidget):
    new_requested = Signal()
    selected = Signal(str)  # session id
    rename_requested = Signal(str, str)  # session id, title
    delete_requested = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("sessionsPanel")
        self.setMinimumWidth(130)
        self.setMaximumWidth(220)
        self.list = QListWidget()
        self.list.setObjectName("sessionsList")
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                  | QAbstractItemView.EditTrigger.EditKeyPressed)
        self.new_button = QPushButton("New chat")
        self.rename_button = QPushButton("Rename")
        self.delete_button = QPushButton("Delete")
        for b in (self.new_button, self.rename_button, self.delete_button):
            b.setAutoDefault(False)
        self.new_button.clicked.connect(self.new_requested.emit)
        self.rename_button.clicked.connect(self._edit_current)
        self.delete_button.clicked.connect(self._delete_current)
        self.list.currentItemChanged.connect(self._current_changed)
        self.list.itemChanged.connect(self._item_edited)
        self._filling = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(QLabel("Sessions"))
        layout.addWidget(self.new_button)
        layout.addWidget(self.list, 1)
        row = QHBoxLayout()
        row.addWidget(self.rename_button)
        row.addWidget(self.delete_button)
        layout.addLayout(row)

    def fill(self, sessions: list[SessionInfo], current: str | None) -> None:
        self._filling = True
        try:
            self.list.clear()
            for info in sessions:
                item = QListWidgetItem(info.title)
                item.setData(ID_ROLE, info.id)
                item.setToolTip(f"{info.message_count} messages · mode {info.mode}")
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
                self.list.addItem(item)
                if info.id == current:
                    self.list.setCurrentItem(item)
        finally:
            self._filling = False

    def ids(self) -> list[str]:
        return [str(self.list.item(i).data(ID_ROLE)) for i in range(self.list.count())]

    def titles(self) -> list[str]:
        return [self.list.item(i).text() for i in range(self.list.count())]

    def select(self, session_id: str) -> None:
        for i in range(self.list.count()):
            if self.list.item(i).data(ID_ROLE) == session_id:
                self.list.setCurrentRow(i)
                return

    def _current_changed(self, item: QListWidgetItem | None, _previous: QListWidgetItem | None) -> None:
        if item is not None and not self._filling:
            self.selected.emit(str(item.data(ID_ROLE)))

    def _item_edited(self, item: QListWidgetItem) -> None:
        if not self._filling:
            title = " ".join(item.text().split())
            if title:
                self.rename_requested.emit(str(item.data(ID_ROLE)), title)

    def _edit_current(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            self.list.editItem(item)

    def _delete_current(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            self.delete_requested.emit(str(item.data(ID_ROLE)))
