"""One row of the workflows list: status icon, the name on one line, the path under it.

The design's list reads name first: the workflow's name in semibold on the
first line (cut at the right only when the list is really too narrow, full
name in the tooltip), the file's path on the second in the mono face, small
and muted, cut in the *middle* so the file name always stays readable
("flows/…/release-gate.relavium.yaml", never "flows/rel…").  A run waiting at
a gate adds a third line, "Waiting for you", in the warning colour.  The
last run's status is an icon from the theme (never an emoji), and the
selected row is the soft accent with rounded corners, as in the picture.
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
    QRectF,
    QSize,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    Qt,
)
from relavium_desktop.ui.theme.fonts import mono_font
from relavium_desktop.ui.theme.icons import icon
from relavium_desktop.ui.theme.tokens import RADIUS_CONTROL, SPACE_1, SPACE_2, TYPE_CAPTION_PX

if TYPE_CHECKING:
    from relavium_desktop.ui.theme.palette import Palette
    from relavium_desktop.ui.workflows.catalog import WorkflowEntry

PATH_ROLE = Qt.ItemDataRole.UserRole + 1
STATUS_ROLE = Qt.ItemDataRole.UserRole + 2
TITLE_ROLE = Qt.ItemDataRole.UserRole + 3
ICON_SIZE = 16
GAP = SPACE_2
PAD_X = SPACE_2  # the row's inner padding left and right (the design's 8 px)
PAD_Y = SPACE_2 + 2  # and top and bottom: the design's 10 px
ROW_GAP = SPACE_1  # space between two rows, so the selected row's corners show

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
WAITING_WORDS = "Waiting for you"


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


def path_font(base: QFont) -> QFont:
    """The mono face at the caption size: how a path is set under a name."""
    mono = mono_font()
    mono.setPixelSize(TYPE_CAPTION_PX)
    mono.setStyleStrategy(base.styleStrategy())
    return mono


def name_font(base: QFont) -> QFont:
    semibold = QFont(base)
    semibold.setWeight(QFont.Weight.DemiBold)
    return semibold


def caption_font(base: QFont) -> QFont:
    small = QFont(base)
    small.setPixelSize(TYPE_CAPTION_PX)
    small.setWeight(QFont.Weight.DemiBold)
    return small


class WorkflowRowDelegate(QStyledItemDelegate):
    """Paints a row as [icon] **name** / path (mono, muted) / "Waiting for you" when paused."""

    def __init__(self, palette: Palette, parent: object = None) -> None:
        super().__init__(parent)  # type: ignore[arg-type]
        self.palette_now = palette

    @staticmethod
    def _lines(index: QModelIndex | QPersistentModelIndex) -> int:
        return 3 if index.data(STATUS_ROLE) == "paused" else 2

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        name_h = QFontMetrics(name_font(option.font)).height()
        path_h = QFontMetrics(path_font(option.font)).height()
        extra = QFontMetrics(caption_font(option.font)).height() if self._lines(index) == 3 else 0
        height = 2 * PAD_Y + name_h + SPACE_1 // 2 + path_h + extra + ROW_GAP
        return QSize(0, height)  # width 0: the row never asks for a horizontal scrollbar

    def text_width(self, row_width: int) -> int:
        """The room the name and path get in a row ``row_width`` pixels wide."""
        return max(0, row_width - 2 * PAD_X - ICON_SIZE - GAP)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        p = self.palette_now
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        hovered = bool(opt.state & QStyle.StateFlag.State_MouseOver)
        card = QRectF(opt.rect.adjusted(0, 0, 0, -ROW_GAP))
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        if selected or hovered:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(p["accent_soft"] if selected else p["surface_alt"]))
            painter.drawRoundedRect(card, RADIUS_CONTROL, RADIUS_CONTROL)
        rect = card.toRect().adjusted(PAD_X, PAD_Y, -PAD_X, -PAD_Y)
        name_f, path_f, cap_f = name_font(opt.font), path_font(opt.font), caption_font(opt.font)
        name_h = QFontMetrics(name_f).height()
        icon_rect = QRect(rect.left(), rect.top() + (name_h - ICON_SIZE) // 2, ICON_SIZE, ICON_SIZE)
        opt.icon.paint(painter, icon_rect)
        left = icon_rect.right() + 1 + GAP
        width = max(0, rect.right() - left)
        name_text, path_text = self.shown_texts(index, width, opt.font)
        align = Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft
        painter.setFont(name_f)
        painter.setPen(QColor(p["text"]))
        painter.drawText(QRect(left, rect.top(), width, name_h), align, name_text)
        top = rect.top() + name_h + SPACE_1 // 2
        path_h = QFontMetrics(path_f).height()
        painter.setFont(path_f)
        painter.setPen(QColor(p["muted"]))
        painter.drawText(QRect(left, top, width, path_h), align, path_text)
        if self._lines(index) == 3:
            top += path_h
            painter.setFont(cap_f)
            painter.setPen(QColor(p["warning"]))
            painter.drawText(QRect(left, top, width, QFontMetrics(cap_f).height()), align, WAITING_WORDS)
        painter.restore()

    @staticmethod
    def shown_texts(index: QModelIndex | QPersistentModelIndex, width: int, font: QFont) -> tuple[str, str]:
        """The name and path as painted in ``width`` pixels of text room (what a person sees).

        The name is cut at the right, the path in the middle so its file name stays.
        """
        title = str(index.data(TITLE_ROLE) or "")
        path = str(index.data(PATH_ROLE) or "")
        name_text = QFontMetrics(name_font(font)).elidedText(title, Qt.TextElideMode.ElideRight, width)
        return name_text, elide_path(path, QFontMetrics(path_font(font)), width)


def elide_path(path: str, metrics: QFontMetrics, width: int) -> str:
    """``path`` cut in the middle to ``width`` pixels, keeping the file name whole while it fits.

    "flows/deep/nested/x.yaml" becomes "flows/…/x.yaml", then "…/x.yaml"; only a
    file name wider than the room is itself cut in its middle.
    """
    if metrics.horizontalAdvance(path) <= width:
        return path
    head, _, name = path.rpartition("/")
    if head:
        first = head.split("/", 1)[0]
        for shown in (f"{first}/…/{name}", f"…/{name}"):
            if metrics.horizontalAdvance(shown) <= width:
                return shown
    return metrics.elidedText(path, Qt.TextElideMode.ElideMiddle, width)
