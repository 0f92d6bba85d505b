"""The sessions list, as the sidebar shows it: resume (select), rename (edit in place), delete, search.

Chats are grouped by when they were last used -- TODAY, YESTERDAY, PREVIOUS 7
DAYS, OLDER -- the way a person looks for "the one from this morning".  Each
row shows only the chat's title, whole as far as the sidebar allows: a date
on every row said "Today" under TODAY again and again and cut the titles
short.  When it was last used, in local time and in words ("Today 14:03",
"Yesterday", "Mon", "12 Nov"), and the full timestamp are in the row's
tooltip and accessible description.  The group label rides on the first row of its group (one
list item per chat, so a row's index is the chat's index).  Rename and delete
are on the right-click menu and the keyboard (F2, Delete); Ctrl+K jumps to the
search box, which asks the store (titles and what was said, on the masked
stored text) a moment after typing stops.  "New chat" lives at the top of the
sidebar; the panel keeps its ``new_button`` (hidden) as the one place the
request is raised.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from relavium_desktop.engine.display_text import show_line
from relavium_desktop.ui.elided_label import ElidedLabel
from relavium_desktop.ui.qt import (
    QAbstractItemView,
    QColor,
    QHBoxLayout,
    QKeySequence,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPainter,
    QPushButton,
    QShortcut,
    QSize,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    Qt,
    QTimer,
    QVBoxLayout,
    QWidget,
    Signal,
)
from relavium_desktop.ui.theme import set_tone, set_variant
from relavium_desktop.ui.theme.tokens import RADIUS_CONTROL, SPACE_1, SPACE_2, SPACE_3

if TYPE_CHECKING:
    from relavium_desktop.engine.agent.session import SessionInfo
    from relavium_desktop.ui.qt import (
        QAction,
        QModelIndex,
        QPaintEvent,
        QPersistentModelIndex,
        QPoint,
    )
    from relavium_desktop.ui.theme import Theme

ID_ROLE = Qt.ItemDataRole.UserRole
USED_ROLE = Qt.ItemDataRole.UserRole + 1  # updated_at, what the date says
HEADER_ROLE = Qt.ItemDataRole.UserRole + 2  # px above the title taken by the row's group label (0: none)
WHEN_ROLE = Qt.ItemDataRole.UserRole + 3  # when it was last used, in words ("Today 14:03")
DETAIL_ROLE = Qt.ItemDataRole.UserRole + 4  # the tooltip's lines after "Last used"
TIP_TITLE_ROLE = Qt.ItemDataRole.UserRole + 5  # the tooltip's first line: the stored title, as shown
GROUPS = ("Today", "Yesterday", "Previous 7 days", "Older")
SEARCH_DELAY_MS = 200  # long enough to skip the keystrokes of a word, short enough to feel live
NO_CHATS = "No chats yet — type a message to start one"
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")

Search = Callable[[str], "list[SessionInfo]"]


def when(timestamp: float, now: float) -> str:
    """``timestamp`` as the list shows it, relative to ``now``, in the local time zone.

    Today gets the time; yesterday and the past week a word; older dates
    the day and month, and the year only when it is not this year.
    """
    at, today = datetime.fromtimestamp(timestamp), datetime.fromtimestamp(now).date()
    if at.date() == today:
        return f"Today {at:%H:%M}"
    if at.date() == today - timedelta(days=1):
        return "Yesterday"
    if today - timedelta(days=6) <= at.date() < today:
        return DAYS[at.weekday()]
    day_month = f"{at.day} {MONTHS[at.month - 1]}"
    return day_month if at.year == today.year else f"{day_month} {at.year}"


def group_of(timestamp: float, now: float) -> str:
    """Which of :data:`GROUPS` a chat last used at ``timestamp`` falls in, by local calendar day."""
    at, today = datetime.fromtimestamp(timestamp).date(), datetime.fromtimestamp(now).date()
    if at >= today:
        return GROUPS[0]
    if at == today - timedelta(days=1):
        return GROUPS[1]
    if at >= today - timedelta(days=7):
        return GROUPS[2]
    return GROUPS[3]


def full_time(timestamp: float) -> str:
    """The exact local time, with its zone, for the tooltip: "Tue 1 Dec 2026, 14:03:05 CET"."""
    at = datetime.fromtimestamp(timestamp).astimezone()
    return f"{DAYS[at.weekday()]} {at.day} {MONTHS[at.month - 1]} {at.year}, {at:%H:%M:%S} {at.tzname() or ''}".strip()


class SessionRow(QWidget):
    """What one list row shows: its group's label when it opens a group, then the title.

    Clicks pass through to the list, which does the selecting and editing.
    """

    def __init__(self, title: str, group: str | None = None) -> None:
        super().__init__()
        self.setObjectName("sessionRow")
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        # A child from the start: a parentless label made visible would open as a window of its own.
        self.group = QLabel((group or "").upper(), self)
        self.group.setObjectName("sessionGroup")
        set_variant(self.group, "group-label")
        if group is None:
            self.group.hide()
        # A title is the user's or the model's words: shown by the display rule, never as markup.
        self.title = ElidedLabel(show_line(title))
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setObjectName("sessionTitle")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        if group is not None:
            layout.addSpacing(SPACE_3)
            layout.addWidget(self.group)
            layout.addSpacing(SPACE_1)
            self.group.setContentsMargins(SPACE_2, 0, SPACE_2, 0)
        line = QHBoxLayout()
        line.setContentsMargins(SPACE_2, SPACE_2 - 2, SPACE_2, SPACE_2 - 2)
        line.setSpacing(SPACE_2)
        line.addWidget(self.title, 1)
        layout.addLayout(line)

    def header_height(self) -> int:
        """The px the group label takes above the title (what the selection must not cover)."""
        if self.group.isHidden():
            return 0
        return SPACE_3 + self.group.sizeHint().height() + SPACE_1


class RowBackground(QStyledItemDelegate):
    """Paints a row's background and selection but not its text: the :class:`SessionRow` shows that.

    The item keeps its title as text, which is what the in-place editor edits.
    """

    def __init__(self, parent: QWidget, theme: Theme | None = None) -> None:
        super().__init__(parent)
        self._theme = theme

    def initStyleOption(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:
        super().initStyleOption(option, index)
        option.text = ""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        """The selection sits under the title only, never under a group label above it.

        With a theme, the open chat is marked the design's way: a rounded
        soft-accent fill (``accent_soft``), hand-painted from the palette.
        """
        below = QStyleOptionViewItem(option)
        below.rect = option.rect.adjusted(0, int(index.data(HEADER_ROLE) or 0), 0, 0)
        selected = QStyle.StateFlag.State_Selected
        if self._theme is not None and below.state & selected:
            below.state = below.state & ~selected
            painter.save()
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(self._theme.palette["accent_soft"]))
            painter.drawRoundedRect(below.rect, RADIUS_CONTROL, RADIUS_CONTROL)
            painter.restore()
        super().paint(painter, below, index)

    def updateEditorGeometry(self, editor: QWidget, option: QStyleOptionViewItem,
                             index: QModelIndex | QPersistentModelIndex) -> None:
        """The rename editor opens over the title, leaving the group label in place.

        Row widgets are placed through here too (the list keeps them as index
        widgets): they take the whole row, group label included -- not the
        text rect the style would give them, which an item padding shrinks.
        """
        super().updateEditorGeometry(editor, option, index)
        top = 0 if isinstance(editor, SessionRow) else int(index.data(HEADER_ROLE) or 0)
        editor.setGeometry(option.rect.adjusted(0, top, 0, 0))


class SessionsPanel(QWidget):
    new_requested = Signal()
    selected = Signal(str)  # session id
    rename_requested = Signal(str, str)  # session id, title
    delete_requested = Signal(str)

    def __init__(self, search: Search | None = None, *, theme: Theme | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        """``search`` asks the store (titles and content); without it the box filters titles only."""
        super().__init__()
        self.setObjectName("sessionsPanel")
        self.setMinimumWidth(160)
        self._search = search
        self._clock = clock
        self._all: list[SessionInfo] = []
        self._current: str | None = None
        self._filling = False
        self._editing: QListWidgetItem | None = None

        self.new_button = QPushButton("New chat")  # the sidebar's "New chat" is the one shown
        self.new_button.setObjectName("sessionsNewChat")
        self.search_box = QLineEdit()
        self.search_box.setObjectName("sessionSearch")
        self.search_box.setPlaceholderText("Search chats  (Ctrl K)")
        self.search_box.setAccessibleName("Search chats")
        self.search_box.setClearButtonEnabled(True)
        self.search_box.setToolTip("Finds chats by title or by anything said in them")
        self.list = QListWidget()
        self.list.setObjectName("sessionsList")
        # A row is a widget; the list's own editor opens only once it is lifted (see _edit).
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setItemDelegate(RowBackground(self.list, theme))
        self.list.setAccessibleName("Chats")
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self._menu)
        self.empty = QLabel(NO_CHATS)
        self.empty.setObjectName("sessionsEmpty")
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        set_tone(self.empty, "muted")
        # Rename and delete are on the right-click menu and keys (F2, Delete); the buttons stay as
        # their one implementation (and what the view's tests press), but are not shown.
        self.rename_button = QPushButton("Rename")
        self.delete_button = QPushButton("Delete")
        for b in (self.new_button, self.rename_button, self.delete_button):
            b.setAutoDefault(False)
            b.setVisible(False)
        self.menu_: QMenu | None = None
        self._theme = theme
        self._search_icon: QAction | None = None
        self._tint_queued = False  # the icons are tinted once, after the first paint

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(SEARCH_DELAY_MS)
        self._debounce.timeout.connect(self._show)
        self._tick = QTimer(self)  # "Today 23:58" becomes "Yesterday" with the app left open
        self._tick.setInterval(60_000)
        self._tick.timeout.connect(self._refresh_dates)
        self._tick.start()
        self.search_box.textChanged.connect(self._debounce.start)
        self.search_box.returnPressed.connect(self._open_first)
        self.new_button.clicked.connect(self.new_requested.emit)
        self.rename_button.clicked.connect(self._edit_current)
        self.delete_button.clicked.connect(self._delete_current)
        self.list.currentItemChanged.connect(self._current_changed)
        self.list.itemChanged.connect(self._item_edited)
        self.list.itemDoubleClicked.connect(self._edit)
        self.list.itemDelegate().closeEditor.connect(self._edit_closed)
        rename_key = QShortcut(QKeySequence(Qt.Key.Key_F2), self.list)
        rename_key.setContext(Qt.ShortcutContext.WidgetShortcut)
        rename_key.activated.connect(self._edit_current)
        delete_key = QShortcut(QKeySequence(Qt.Key.Key_Delete), self.list)
        delete_key.setContext(Qt.ShortcutContext.WidgetShortcut)
        delete_key.activated.connect(self._delete_current)
        # Ctrl+K anywhere in the window: the search box.
        find_key = QShortcut(QKeySequence("Ctrl+K"), self)
        find_key.setContext(Qt.ShortcutContext.WindowShortcut)
        find_key.activated.connect(self.focus_search)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(SPACE_2)
        layout.addWidget(self.search_box)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.empty, 1)
        for b in (self.new_button, self.rename_button, self.delete_button):
            layout.addWidget(b)
        self._show_empty(NO_CHATS)

    def focus_search(self) -> None:
        """Ctrl+K: put the cursor in the search box, its text selected to type over."""
        self.search_box.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search_box.selectAll()

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if self._theme is not None and self._search_icon is None and not self._tint_queued:
            # On the loop turn after the panel's first paint (a timer from showEvent could run before
            # that paint): the icon font loads on the first icon asked for (~10 ms).
            self._tint_queued = True
            QTimer.singleShot(0, self, self._tint)

    def _tint(self) -> None:
        from relavium_desktop.ui.theme.icons import icon

        if self._theme is None:
            return
        palette = self._theme.palette
        if self._search_icon is None:
            self._search_icon = self.search_box.addAction(icon("search", palette, "muted"),
                                                          QLineEdit.ActionPosition.LeadingPosition)
            self._theme.changed.connect(self._tint)
        self._search_icon.setIcon(icon("search", palette, "muted"))
        self.new_button.setIcon(icon("add", palette))
        self.rename_button.setIcon(icon("edit", palette))
        self.delete_button.setIcon(icon("trash", palette))

    # -- what the view tells the panel ----------------------------------------------

    def fill(self, sessions: list[SessionInfo], current: str | None) -> None:
        """Show ``sessions`` (all of them; a search in progress is applied again) with ``current`` selected."""
        self._all = list(sessions)
        self._current = current
        self._show()

    def select(self, session_id: str) -> None:
        for i in range(self.list.count()):
            if self.list.item(i).data(ID_ROLE) == session_id:
                self.list.setCurrentRow(i)
                return

    def clear_current(self) -> None:
        """No chat is open (a new one is being typed): nothing selected, and a search keeps nothing selected."""
        self._current = None
        self._filling = True
        try:
            self.list.setCurrentRow(-1)
        finally:
            self._filling = False
        self._enable_actions()

    def ids(self) -> list[str]:
        return [str(self.list.item(i).data(ID_ROLE)) for i in range(self.list.count())]

    def titles(self) -> list[str]:
        return [self.list.item(i).text() for i in range(self.list.count())]

    def dates(self) -> list[str]:
        """When each chat was last used, in the words its tooltip and accessible description give."""
        return [str(self.list.item(i).data(WHEN_ROLE)) for i in range(self.list.count())]

    def empty_text(self) -> str | None:
        """The empty state's sentence when it is up, else None."""
        return self.empty.text() if self.empty.isVisibleTo(self) else None

    # -- showing ---------------------------------------------------------------------

    def _matches(self, query: str) -> list[SessionInfo]:
        if self._search is not None:
            return self._search(query)
        needle = " ".join(query.casefold().split())
        return [s for s in self._all if needle in " ".join(s.title.casefold().split())]

    def _show(self) -> None:
        self._debounce.stop()
        query = self.search_box.text().strip()
        shown = self._matches(query) if query and self._all else self._all
        self.search_box.setEnabled(bool(self._all) or bool(query))
        self._filling = True
        try:
            self._editing = None
            self.list.clear()
            now = self._clock()
            for info in shown:
                self._add(info, now)
            self._regroup(now)
            if self._current is not None and self._current in self.ids():
                self.select(self._current)
            else:
                self.list.setCurrentRow(-1)
        finally:
            self._filling = False
        self._enable_actions()
        if not self._all:
            self._show_empty(NO_CHATS)
        elif not shown:
            self._show_empty(f"No chats match “{query}”")
        else:
            self.empty.hide()
            self.list.show()

    def _show_empty(self, text: str) -> None:
        self.empty.setText(text)
        self.list.hide()
        self.empty.show()

    def _add(self, info: SessionInfo, now: float) -> None:
        item = QListWidgetItem(info.title)
        item.setData(ID_ROLE, info.id)
        item.setData(USED_ROLE, info.updated_at)
        messages = "1 message" if info.message_count == 1 else f"{info.message_count} messages"
        item.setData(TIP_TITLE_ROLE, show_line(info.title))
        item.setData(DETAIL_ROLE, f"Started {full_time(info.created_at)}\n{messages} · mode {info.mode}")
        self._describe(item, now)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
        self.list.addItem(item)
        self._attach(item, now)

    def _attach(self, item: QListWidgetItem, now: float) -> None:
        # The stored title, not the item's: Qt drops a leading BOM from every string it is handed,
        # and the display rule must see it to show its marker.
        sid = item.data(ID_ROLE)
        text = item.text()
        title = next((s.title for s in self._all if s.id == sid and s.title.removeprefix("\ufeff") == text), text)
        used = float(item.data(USED_ROLE))
        index = self.list.row(item)
        group = group_of(used, now)
        above = self.list.item(index - 1) if index > 0 else None
        opens_group = above is None or group_of(float(above.data(USED_ROLE)), now) != group
        row = SessionRow(title, group if opens_group else None)
        filling, self._filling = self._filling, True  # each change signals itemChanged: not a rename
        try:
            item.setData(HEADER_ROLE, row.header_height())
            # Width 0: the row takes the list's width, so a long title is elided, never scrolled.
            item.setSizeHint(QSize(0, row.sizeHint().height()))
            self.list.setItemWidget(item, row)
        finally:
            self._filling = filling

    def _regroup(self, now: float) -> None:
        """Re-attach every row whose group label is now wrong (after a fill, or at midnight)."""
        previous: str | None = None
        for i in range(self.list.count()):
            item = self.list.item(i)
            group = group_of(float(item.data(USED_ROLE)), now)
            row = self.list.itemWidget(item)
            wanted = group.upper() if group != previous else ""
            if isinstance(row, SessionRow) and (row.group.text() if not row.group.isHidden() else "") != wanted:
                self._attach(item, now)
            previous = group

    def groups(self) -> list[str]:
        """The group labels shown, top to bottom (TODAY, YESTERDAY, ...)."""
        labels = []
        for i in range(self.list.count()):
            row = self.list.itemWidget(self.list.item(i))
            if isinstance(row, SessionRow) and not row.group.isHidden():
                labels.append(row.group.text())
        return labels

    def _describe(self, item: QListWidgetItem, now: float) -> None:
        """Put when the chat was last used, in words and in full, in the row's tooltip and description."""
        used = float(item.data(USED_ROLE))
        words = when(used, now)
        if item.data(WHEN_ROLE) == words:
            return
        filling, self._filling = self._filling, True  # each change signals itemChanged: not a rename
        try:
            item.setData(WHEN_ROLE, words)
            title = item.data(TIP_TITLE_ROLE)
            item.setToolTip(f"{title}\nLast used {words} ({full_time(used)})\n{item.data(DETAIL_ROLE)}")
            item.setData(Qt.ItemDataRole.AccessibleDescriptionRole, f"Last used {words}")
        finally:
            self._filling = filling

    def _refresh_dates(self) -> None:
        now = self._clock()
        for i in range(self.list.count()):
            self._describe(self.list.item(i), now)
        self._regroup(now)

    def _row(self, item: QListWidgetItem) -> SessionRow:
        row = self.list.itemWidget(item)
        assert isinstance(row, SessionRow)
        return row

    # -- what the user does ----------------------------------------------------------

    def _enable_actions(self) -> None:
        has_current = self.list.currentItem() is not None
        self.rename_button.setEnabled(has_current)
        self.delete_button.setEnabled(has_current)

    def _current_changed(self, item: QListWidgetItem | None, _previous: QListWidgetItem | None) -> None:
        self._enable_actions()
        if item is not None and not self._filling:
            self._current = str(item.data(ID_ROLE))
            self.selected.emit(self._current)

    def _open_first(self) -> None:
        """Enter in the search box opens the first chat found."""
        self._show()
        if self.list.count():
            self.list.setCurrentRow(0)

    def _edit(self, item: QListWidgetItem) -> None:
        """Rename in place: the row widget is lifted so the list's line editor can open over the title."""
        if self._editing is not None:
            return
        self._editing = item
        self.list.removeItemWidget(item)
        self.list.editItem(item)

    def _edit_closed(self) -> None:
        item, self._editing = self._editing, None
        if item is not None and self.list.row(item) >= 0:
            self._attach(item, self._clock())

    def _item_edited(self, item: QListWidgetItem) -> None:
        if self._filling:
            return
        title = " ".join(item.text().split())
        row = self.list.itemWidget(item)
        if isinstance(row, SessionRow):
            row.title.set_full_text(show_line(item.text()))
        if title:
            self.rename_requested.emit(str(item.data(ID_ROLE)), title)

    def _edit_current(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            self._edit(item)

    def _menu(self, at: QPoint) -> None:
        """Right-click on a chat: Rename and Delete for that chat."""
        item = self.list.itemAt(at)
        if item is None:
            return
        self.list.setCurrentItem(item)
        menu = QMenu(self.list)
        menu.setObjectName("sessionMenu")
        rename = menu.addAction("Rename")
        rename.setShortcut(QKeySequence(Qt.Key.Key_F2))
        rename.triggered.connect(self._edit_current)
        delete = menu.addAction("Delete…")
        delete.setShortcut(QKeySequence(Qt.Key.Key_Delete))
        delete.triggered.connect(self._delete_current)
        self.menu_ = menu
        menu.popup(self.list.viewport().mapToGlobal(at))

    def _delete_current(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            self.delete_requested.emit(str(item.data(ID_ROLE)))
