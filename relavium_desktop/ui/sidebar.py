"""The window's one sidebar: brand, New chat, the three places, the chat list, Settings at the foot.

The design puts everything a person navigates by in one column on the left,
so the chat page needs no list of its own: the shell moves the chat view's
:class:`~relavium_desktop.ui.chat.sessions_panel.SessionsPanel` into
:meth:`Sidebar.set_chat_list`.  The places (Chats, Workflows, Activity) and
Settings are checkable buttons kept exclusive by :class:`Places`, which
answers the row-based calls the rest of the app already makes
(``setCurrentRow``, ``currentRow``, ``item``).

Nothing here reads storage or the keyring: the live parts -- "1 waiting",
provider readiness in words, icons -- are set by the shell after the first
paint, through :meth:`Sidebar.set_waiting`, :meth:`Sidebar.set_readiness`
and :meth:`Sidebar.show_icons`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from relavium_desktop.ui.qt import (
    QButtonGroup,
    QFrame,
    QHBoxLayout,
    QLabel,
    QObject,
    QPushButton,
    Qt,
    QVBoxLayout,
    QWidget,
    Signal,
)
from relavium_desktop.ui.theme import set_surface, set_tone, set_variant
from relavium_desktop.ui.theme.tokens import PAD_SIDEBAR, SIDEBAR_WIDTH, SPACE_1, SPACE_2, SPACE_3

if TYPE_CHECKING:
    from relavium_desktop.ui.theme.palette import Palette

PLACES = ("Chats", "Workflows", "Activity")
SETTINGS = "Settings"
# ui.theme.icons names, drawn after the first paint (the icon font loads then).
PLACE_ICONS = ("chat", "workflow", "history", "settings")
NEW_CHAT_KEY = "Ctrl N"
# How a provider's name in providers.yaml reads in the sidebar's foot.
PROVIDER_WORDS = {
    "ollama": "Ollama",
    "anthropic": "Anthropic",
    "openai": "OpenAI",
    "gemini": "Gemini",
    "openrouter": "OpenRouter",
    "lmstudio": "LM Studio",
}


def readiness_words(ready: Sequence[str]) -> str:
    """The providers that can answer now, in words: "Ollama · ready", "2 providers ready", "No model yet"."""
    if not ready:
        return "No model yet"
    if len(ready) == 1:
        name = ready[0]
        return f"{PROVIDER_WORDS.get(name.casefold(), name)} · ready"
    return f"{len(ready)} providers ready"


def waiting_words(count: int) -> str:
    """The count beside Workflows: "1 waiting", or "" for none."""
    return f"{count} waiting" if count > 0 else ""


class _Trailing(QHBoxLayout):
    """A button's own row: its text stays the button's, a label (count, key hint) sits at its right end."""

    def __init__(self, button: QPushButton, label: QLabel) -> None:
        super().__init__(button)
        self.setContentsMargins(0, 0, SPACE_2, 0)
        self.addStretch(1)
        label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.addWidget(label, 0, Qt.AlignmentFlag.AlignVCenter)


class Places(QObject):
    """Chats, Workflows, Activity and Settings as one exclusive choice, addressed by row.

    Row -1 is "none of them" (the welcome flow has the main area).
    """

    currentRowChanged = Signal(int)

    def __init__(self, buttons: Sequence[QPushButton], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._buttons = list(buttons)
        self._group = QButtonGroup(self)
        self._group.setExclusive(True)
        for row, button in enumerate(self._buttons):
            button.setCheckable(True)
            self._group.addButton(button, row)
        self._group.idClicked.connect(self._clicked)
        self._row = -1

    def count(self) -> int:
        return len(self._buttons)

    def item(self, row: int) -> QPushButton:
        return self._buttons[row]

    def currentRow(self) -> int:
        return self._row

    def setCurrentRow(self, row: int) -> None:
        """Check ``row``'s button (-1: none) and say so when it changed, as a list's current row does."""
        if row == self._row:
            return
        self._check(row)
        self.currentRowChanged.emit(row)

    def show_row(self, row: int) -> None:
        """Check ``row`` without announcing it (the page is already shown)."""
        self._check(row)

    def _check(self, row: int) -> None:
        self._row = row
        self._group.setExclusive(False)  # an exclusive group cannot have nothing checked
        for i, button in enumerate(self._buttons):
            button.setChecked(i == row)
        self._group.setExclusive(True)

    def _clicked(self, row: int) -> None:
        if row != self._row:
            self._row = row
            self.currentRowChanged.emit(row)
        else:
            self._check(row)  # a click on the current place keeps it checked


class Sidebar(QWidget):
    """The left column of the window (width ``SIDEBAR_WIDTH``, 12 px padding, surface "sidebar")."""

    new_chat = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sidebar")
        set_surface(self, "sidebar")
        self.setFixedWidth(SIDEBAR_WIDTH)
        column = QVBoxLayout(self)
        column.setContentsMargins(PAD_SIDEBAR, PAD_SIDEBAR, PAD_SIDEBAR, PAD_SIDEBAR)
        column.setSpacing(SPACE_2)

        brand = QHBoxLayout()
        brand.setContentsMargins(SPACE_2, SPACE_1, 0, SPACE_1)
        brand.setSpacing(SPACE_2)
        self.mark = QLabel()
        self.mark.setObjectName("brandMark")
        self.mark.setAccessibleName("Relavium")
        self.brand = QLabel("Relavium")
        self.brand.setObjectName("brandName")
        set_variant(self.brand, "title")
        brand.addWidget(self.mark)
        brand.addWidget(self.brand, 1)
        column.addLayout(brand)

        # Icon and words at the left, the key hint at the right (a button's own text is centred):
        # the parts are labels in the button's row, the button keeps the click and the name.
        self.new_chat_button = QPushButton()
        self.new_chat_button.setObjectName("sidebarNewChat")
        self.new_chat_button.setAccessibleName("New chat (Ctrl+N)")
        self.new_chat_button.setToolTip("Start a new chat (Ctrl+N)")
        self.new_chat_button.setAutoDefault(False)
        set_variant(self.new_chat_button, "secondary")
        self.new_chat_icon = QLabel()
        self.new_chat_icon.setObjectName("newChatIcon")
        self.new_chat_label = QLabel("New chat")
        self.new_chat_label.setObjectName("newChatLabel")
        self.new_chat_hint = QLabel(NEW_CHAT_KEY)
        self.new_chat_hint.setObjectName("newChatKey")
        set_variant(self.new_chat_hint, "kbd")
        parts = _Trailing(self.new_chat_button, self.new_chat_hint)
        parts.setContentsMargins(SPACE_3, SPACE_2, SPACE_2, SPACE_2)
        parts.setSpacing(SPACE_2)
        for position, part in enumerate((self.new_chat_icon, self.new_chat_label)):
            part.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
            parts.insertWidget(position, part)
        self.new_chat_button.setMinimumHeight(parts.sizeHint().height())
        self.new_chat_button.clicked.connect(self.new_chat)
        column.addWidget(self.new_chat_button)

        buttons: list[QPushButton] = []
        nav = QVBoxLayout()
        nav.setContentsMargins(0, SPACE_1, 0, 0)
        nav.setSpacing(SPACE_1 // 2)
        for name in PLACES:
            button = QPushButton(name)
            button.setObjectName(f"place{name}")
            button.setAccessibleName(name)
            button.setAutoDefault(False)
            set_variant(button, "nav")
            nav.addWidget(button)
            buttons.append(button)
        column.addLayout(nav)
        self.waiting = QLabel("")
        self.waiting.setObjectName("workflowsWaiting")
        set_variant(self.waiting, "count")
        self.waiting.hide()
        _Trailing(buttons[1], self.waiting)

        # The chat list's slot: the chat view's SessionsPanel is moved in here once built.
        self.chat_slot = QWidget()
        self.chat_slot.setObjectName("chatListSlot")
        self._slot_layout = QVBoxLayout(self.chat_slot)
        self._slot_layout.setContentsMargins(0, SPACE_3, 0, 0)
        self._slot_layout.setSpacing(0)
        column.addWidget(self.chat_slot, 1)

        self.rule = QFrame()
        self.rule.setObjectName("sidebarFootRule")
        self.rule.setFrameShape(QFrame.Shape.HLine)
        self.rule.setFrameShadow(QFrame.Shadow.Plain)  # one hairline, in the palette's border colour
        column.addWidget(self.rule)
        self.settings_button = QPushButton(SETTINGS)
        self.settings_button.setObjectName("sidebarSettings")
        self.settings_button.setAutoDefault(False)
        set_variant(self.settings_button, "nav")
        self.readiness = QLabel("")
        self.readiness.setObjectName("providerReadiness")
        set_variant(self.readiness, "caption")
        _Trailing(self.settings_button, self.readiness)
        self.settings_button.setAccessibleName(SETTINGS)
        column.addWidget(self.settings_button)
        buttons.append(self.settings_button)
        self.places = Places(buttons, self)

    # -- what the shell tells the sidebar ----------------------------------------------

    def set_chat_list(self, widget: QWidget) -> None:
        """Show ``widget`` (the chat view's SessionsPanel) as the sidebar's chat list."""
        if widget.parent() is self.chat_slot:
            return
        self._slot_layout.addWidget(widget, 1)
        widget.show()

    def set_waiting(self, count: int) -> None:
        """How many gates wait for an answer: "1 waiting" beside Workflows (hidden at none)."""
        words = waiting_words(count)
        self.waiting.setText(words)
        self.waiting.setVisible(bool(words))
        workflows = self.places.item(1)
        workflows.setAccessibleName(f"Workflows, {words}" if words else "Workflows")

    def set_readiness(self, ready: Sequence[str]) -> None:
        """The providers that can answer now, in words at Settings' right ("Ollama · ready")."""
        words = readiness_words(ready)
        self.readiness.setText(words)
        self.settings_button.setAccessibleName(f"{SETTINGS}, {words}")
        # None ready is worth noticing: the warning colour (the caption look would grey it out).
        set_variant(self.readiness, "caption" if ready else None)
        set_tone(self.readiness, "warning" if not ready else None)

    def show_icons(self, palette: Palette, mark: object | None = None) -> None:
        """Draw the places' icons and the foot's hairline in ``palette`` (after the first paint, and on a theme change)."""
        from relavium_desktop.ui.qt import QColor, QIcon, QPalette
        from relavium_desktop.ui.theme.icons import icon

        hairline = self.rule.palette()
        hairline.setColor(QPalette.ColorRole.WindowText, QColor(palette["border"]))
        self.rule.setPalette(hairline)

        for row, name in enumerate(PLACE_ICONS):
            self.places.item(row).setIcon(icon(name, palette, "muted"))
        size = self.new_chat_label.sizeHint().height()
        self.new_chat_icon.setPixmap(icon("add", palette).pixmap(size, size))
        if isinstance(mark, QIcon):
            size = self.brand.sizeHint().height() + SPACE_1
            self.mark.setPixmap(mark.pixmap(size, size))
