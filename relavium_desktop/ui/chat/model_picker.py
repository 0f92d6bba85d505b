"""The chat's model picker: models grouped under their provider, with each provider's readiness.

A flat list of ``provider/model`` strings hid which providers can answer at
all; here each provider is a heading that says whether it is ready (key
present, list fetched live), has no key yet, or is offline -- with the reason
in its tooltip -- and its models sit underneath.  The headings cannot be
picked.  Closed, the picker is the composer's chip and shows the chosen route
as "provider · model", elided in the middle (``anthropic · claude-…-20250514``) so both the provider and the model's
distinguishing tail stay readable however narrow the header is; the full
route is the tooltip.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from relavium_desktop.ui.qt import (
    QComboBox,
    QFont,
    QPaintEvent,
    QSize,
    QStandardItem,
    QStandardItemModel,
    QStyle,
    QStyleOptionComboBox,
    QStylePainter,
    Qt,
    Signal,
)
from relavium_desktop.ui.theme import set_variant
from relavium_desktop.ui.theme.tokens import READING_WIDTH

ROUTE_ROLE = int(Qt.ItemDataRole.UserRole) + 1
ACTION_ROLE = int(Qt.ItemDataRole.UserRole) + 2
REFRESH_LABEL = "Refresh the model lists"
OTHER_GROUP = "other"


def chip_text(route: str) -> str:
    """``ollama · qwen2.5-coder:14b`` for ``ollama/qwen2.5-coder:14b``: how the closed picker names a route."""
    provider, slash, model = route.partition("/")
    return f"{provider} · {model}" if slash else route


@dataclass(frozen=True, slots=True)
class ProviderGroup:
    """One heading of the picker and the models listed under it."""

    name: str
    state: str  # "ready", "no key", "offline", "checking…" -- what the heading says
    models: Sequence[str] = field(default_factory=tuple)
    note: str = ""  # why (the heading's tooltip): the fetch or key problem in words
    ready: bool = False


class ModelPicker(QComboBox):
    route_changed = Signal(str)  # "provider/model", whenever the user (or set_route) picks one
    refresh_requested = Signal()  # the last entry: ask every provider for its list again

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("modelCombo")
        set_variant(self, "chip")
        self.setAccessibleName("Model")
        self._model = QStandardItemModel(self)
        self.setModel(self._model)
        self.setMinimumContentsLength(14)  # narrow windows still fit: the route elides in the middle
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        # A list that drops below the picker (not one centred on the current row, which can open
        # above the window and hide the first provider's heading), scrolling past 24 rows.
        self.setStyleSheet("QComboBox { combobox-popup: 0; }")
        self.setMaxVisibleItems(24)
        self.groups: list[ProviderGroup] = []
        self._last_index = -1
        self.currentIndexChanged.connect(self._picked)

    # -- filling --------------------------------------------------------------------

    def set_groups(self, groups: Sequence[ProviderGroup], current: str) -> None:
        """Replace the list; ``current`` stays picked (listed under "Other" if no provider has it)."""
        self.blockSignals(True)
        self._model.clear()
        self.groups = list(groups)
        for group in self.groups:
            self._heading(group)
            for model in group.models:
                self._entry(f"{group.name}/{model}", model, group)
        refresh = QStandardItem(REFRESH_LABEL)
        refresh.setData("refresh", ACTION_ROLE)
        refresh.setToolTip("Ask each provider for its current list of models")
        self._model.appendRow(refresh)
        self.blockSignals(False)
        self.set_route(current, notify=False)

    def _add(self, item: QStandardItem) -> None:
        """Append ``item``, keeping the refresh entry last."""
        last = self._model.rowCount() - 1
        if last >= 0 and self._model.item(last).data(ACTION_ROLE) == "refresh":
            self._model.insertRow(last, item)
        else:
            self._model.appendRow(item)

    def _heading(self, group: ProviderGroup) -> QStandardItem:
        item = QStandardItem(f"{group.name} — {group.state}")
        item.setFlags(Qt.ItemFlag.ItemIsEnabled)  # shown, never picked
        font = QFont(self.font())
        font.setBold(True)
        item.setFont(font)
        if group.note:
            item.setToolTip(group.note)
        self._add(item)
        return item

    def _entry(self, route: str, label: str, group: ProviderGroup | None) -> QStandardItem:
        item = QStandardItem(f"    {label}")
        item.setData(route, ROUTE_ROLE)
        item.setToolTip(route if group is None or not group.note else f"{route}\n{group.note}")
        self._add(item)
        return item

    # -- picking ----------------------------------------------------------------------

    def route(self) -> str:
        value = self.currentData(ROUTE_ROLE)
        return value if isinstance(value, str) else ""

    def routes(self) -> list[str]:
        found = (self._model.item(i).data(ROUTE_ROLE) for i in range(self._model.rowCount()))
        return [r for r in found if isinstance(r, str)]

    def set_route(self, route: str, *, notify: bool = True) -> None:
        """Pick ``provider/model``; a route no provider lists is added under "Other"."""
        route = route.strip()
        if not route:
            return
        index = self._index_of(route)
        if index < 0:
            self.blockSignals(True)
            if OTHER_GROUP not in (g.name for g in self.groups):
                other = ProviderGroup(OTHER_GROUP, "not in any provider's list")
                self.groups.append(other)
                self._heading(other)
            self._entry(route, route, None)
            self.blockSignals(False)
            index = self._index_of(route)
        if not notify:
            self.blockSignals(True)
        self.setCurrentIndex(index)
        self.blockSignals(False)
        self._last_index = index
        self.setToolTip(route)
        self.updateGeometry()

    def _index_of(self, route: str) -> int:
        for i in range(self._model.rowCount()):
            if self._model.item(i).data(ROUTE_ROLE) == route:
                return i
        return -1

    def _picked(self, index: int) -> None:
        item = self._model.item(index) if index >= 0 else None
        if item is not None and item.data(ACTION_ROLE) == "refresh":
            # An action, not a choice: the route stays what it was.
            self.blockSignals(True)
            self.setCurrentIndex(self._last_index)
            self.blockSignals(False)
            self.refresh_requested.emit()
            return
        route = item.data(ROUTE_ROLE) if item is not None else None
        if isinstance(route, str):
            self._last_index = index
            self.setToolTip(route)
            self.updateGeometry()
            self.route_changed.emit(route)

    # -- painting: the closed picker elides in the middle ------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QStylePainter(self)
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        field_rect = self.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                                 QStyle.SubControl.SC_ComboBoxEditField, self)
        option.currentText = self.fontMetrics().elidedText(
            chip_text(self.route()) or option.currentText.strip(), Qt.TextElideMode.ElideMiddle, field_rect.width())
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)

    def sizeHint(self) -> QSize:
        """As wide as the chip's text (within half the reading column), not as the longest entry."""
        hint = super().sizeHint()
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        text = QSize(self.fontMetrics().horizontalAdvance(chip_text(self.route())), hint.height())
        wanted = self.style().sizeFromContents(QStyle.ContentsType.CT_ComboBox, option, text, self)
        return QSize(max(self.minimumSizeHint().width(), min(wanted.width(), READING_WIDTH // 2)), hint.height())

    def showPopup(self) -> None:
        """The open list as wide as its longest entry: the chip is narrow, the headings say more."""
        view = self.view()
        wanted = view.sizeHintForColumn(0) + view.verticalScrollBar().sizeHint().width() + 2 * view.frameWidth()
        view.setMinimumWidth(max(self.width(), min(wanted, READING_WIDTH)))
        super().showPopup()

    def shown_text(self) -> str:
        """What the closed picker displays at its current width (tests and screenshots read it)."""
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        field_rect = self.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                                 QStyle.SubControl.SC_ComboBoxEditField, self)
        return self.fontMetrics().elidedText(chip_text(self.route()), Qt.TextElideMode.ElideMiddle, field_rect.width())
