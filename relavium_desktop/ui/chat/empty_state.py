"""What the Chats page shows when no chat is open: what to do next, and one button for it.

A blank transcript with a composer left people unsure whether anything was
loaded; the design's empty state says in words what the page is for and
offers the one next step ("New chat").  The chat view shows this widget
while no session is open and connects ``new_chat`` to starting one.
"""

from __future__ import annotations

from relavium_desktop.ui.qt import QLabel, QPushButton, Qt, QVBoxLayout, QWidget, Signal
from relavium_desktop.ui.theme import set_tone, set_variant
from relavium_desktop.ui.theme.tokens import PAD_MAIN, READING_WIDTH, SPACE_2, SPACE_4

EMPTY_TITLE = "Start a chat"
EMPTY_BODY = "Ask anything, or pick a project to let the agent work on files."
NEW_CHAT_LABEL = "New chat"


class EmptyChatState(QWidget):
    """A centred title, one line of guidance and the page's one primary button."""

    new_chat = Signal()  # the user asked for a new chat

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("emptyChatState")
        column = QVBoxLayout(self)
        column.setContentsMargins(PAD_MAIN, PAD_MAIN, PAD_MAIN, PAD_MAIN)
        column.setSpacing(SPACE_2)
        column.addStretch(1)

        self.title = QLabel(EMPTY_TITLE)
        self.title.setObjectName("emptyChatTitle")
        set_tone(self.title, "heading")
        self.title.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        column.addWidget(self.title)

        self.body = QLabel(EMPTY_BODY)
        self.body.setObjectName("emptyChatBody")
        set_tone(self.body, "muted")
        self.body.setWordWrap(True)
        self.body.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        self.body.setMaximumWidth(READING_WIDTH)
        column.addWidget(self.body, 0, Qt.AlignmentFlag.AlignHCenter)
        column.addSpacing(SPACE_4)

        self.new_chat_button = QPushButton(NEW_CHAT_LABEL)
        self.new_chat_button.setObjectName("emptyChatNewChat")
        self.new_chat_button.setAccessibleName("Start a new chat")
        self.new_chat_button.setAutoDefault(False)
        set_variant(self.new_chat_button, "primary")
        self.new_chat_button.clicked.connect(self.new_chat)
        column.addWidget(self.new_chat_button, 0, Qt.AlignmentFlag.AlignHCenter)
        column.addStretch(1)
