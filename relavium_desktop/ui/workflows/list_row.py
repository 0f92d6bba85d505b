"""One row of the workflows list: status icon, bold name, muted path -- one elided line.

Two-line items with a horizontal scrollbar made the list hard to scan; here
each workflow takes one line, the name keeps up to most of the width and the
path gets the rest, both cut with an ellipsis, and the full name, path and
last run are in the tooltip.  The last run's status is an icon from the
theme (never an emoji), so it reads at a glance.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from relavium_desktop.ui.qt import (
    QColor,
    QFont,
    QFontMetrics,
    QListWidgetItem,
    QModelIndex,
    QPainter,
    QPersistentModelIndex,
    QRect,
    QSize,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    Qt,
)
from relavium_desktop.ui.theme.icons import icon

if TYPE_CHECKING:
    from relavium_desktop.ui.theme.palette import Palette
    from relavium_desktop.ui.workflows.catalog import WorkflowEntry

PATH_ROLE = Qt.ItemDataRole.UserRole + 1
STATUS_ROLE = Qt.ItemDataRole.UserRole + 2
TITLE_ROLE = Qt.ItemDataRole.UserRole + 3
ICON_SIZE = 16
GAP = 8
NAME_SHARE = 0.6  # the name may take this much of the text width when the path needs room

# The last run's status -> (icon name, palette role tinting it).
STATUS_ICONS = {
    "completed": ("check", "success"),
    "failed": ("x", "danger"),
    "interrupted": ("x", "danger"),
    "cancelled": ("stop", "muted"),
    "paused": ("pause", "warning"),
    "running": ("play", "info"),
    "invalid": ("warning", "danger"),
    None: ("play", "muted"),
}


def status_of(entry: WorkflowEntry) -> str | None:
    return "invalid" if entry.error is not None else entry.last_status


def status_words(status: str | None) -> str:
    if status == "invalid":
        return "invalid: open it to see why"
    return f"last run: {status}" if status else "never run"


def fill_item(item: QListWidgetItem, entry: WorkflowEntry, palette: Palette) -> None:
    """Put ``entry``'s name, path, status and icon on ``item`` (display text: "name · path")."""
    status = status_of(entry)
    name, role = STATUS_ICONS.get(status, STATUS_ICONS[None])
    item.setText(f"{entry.title} · {entry.rel}")
    item.setData(TITLE_ROLE, entry.title)
    item.setData(PATH_ROLE, entry.rel)
    item.setData(STATUS_ROLE, status)
    item.setData(Qt.ItemDataRole.AccessibleTextRole, f"{entry.title}, {entry.rel}, {status_words(status)}")
    item.setIcon(icon(name, palette, role))
    item.setToolTip(f"{entry.title}\n{entry.rel}\n{status_words(status)}")


class WorkflowRowDelegate(QStyledItemDelegate):
    """Paints a row as [icon] **name**  path, eliding each part to fit."""

    def __init__(self, palette: Palette, parent: object = None) -> None:
        super().__init__(parent)  # type: ignore[arg-type]
        self.palette_now = palette

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        height = max(ICON_SIZE, QFontMetrics(option.font).height()) + 10
        return QSize(0, height)  # width 0: the row never asks for a horizontal scrollbar

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        widget = opt.widget
        style = widget.style() if widget is not None else None
        if style is not None:
            style.drawPrimitive(QStyle.PrimitiveElement.PE_PanelItemViewItem, opt, painter, widget)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        rect = opt.rect.adjusted(GAP, 0, -GAP, 0)
        painter.save()
        icon_rect = QRect(rect.left(), rect.center().y() - ICON_SIZE // 2, ICON_SIZE, ICON_SIZE)
        opt.icon.paint(painter, icon_rect)
        left = icon_rect.right() + GAP
        width = max(0, rect.right() - left)
        bold = QFont(opt.font)
        bold.setBold(True)
        name_text, path_text = self.shown_texts(index, width, opt.font)
        name_w = QFontMetrics(bold).horizontalAdvance(name_text)
        text_colour = opt.palette.highlightedText().color() if selected else opt.palette.text().color()
        muted = text_colour if selected else QColor(self.palette_now["muted"])
        painter.setFont(bold)
        painter.setPen(text_colour)
        align = Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft
        painter.drawText(QRect(left, rect.top(), name_w, rect.height()), align, name_text)
        path_left = left + name_w + GAP
        path_room = max(0, rect.right() - path_left)
        painter.setFont(opt.font)
        painter.setPen(muted)
        painter.drawText(QRect(path_left, rect.top(), path_room, rect.height()), align, path_text)
        painter.restore()

    @staticmethod
    def shown_texts(index: QModelIndex | QPersistentModelIndex, width: int, font: QFont) -> tuple[str, str]:
        """The name and path as painted in ``width`` pixels of text room (what a person sees)."""
        bold = QFont(font)
        bold.setBold(True)
        bold_metrics, metrics = QFontMetrics(bold), QFontMetrics(font)
        title = str(index.data(TITLE_ROLE) or "")
        path = str(index.data(PATH_ROLE) or "")
        name_room = max(int(width * NAME_SHARE), width - metrics.horizontalAdvance(path) - GAP)
        name_text = bold_metrics.elidedText(title, Qt.TextElideMode.ElideRight, name_room)
        path_room = max(0, width - bold_metrics.horizontalAdvance(name_text) - GAP)
        return name_text, metrics.elidedText(path, Qt.TextElideMode.ElideMiddle, path_room)
