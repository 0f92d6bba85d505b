"""The Chats page's empty state: words for what to do next and one primary button."""

from __future__ import annotations

from relavium_desktop.ui.chat.empty_state import EmptyChatState
from relavium_desktop.ui.qt import QPushButton, Qt


def test_empty_state_says_what_to_do_and_offers_one_new_chat_button(qtbot) -> None:
    state = EmptyChatState()
    qtbot.addWidget(state)
    state.resize(800, 500)
    state.show()
    qtbot.waitExposed(state)
    assert state.title.text() == "Start a chat"
    assert "pick a project" in state.body.text()
    buttons = [b for b in state.findChildren(QPushButton) if b.isVisible()]
    assert buttons == [state.new_chat_button]
    assert state.new_chat_button.property("variant") == "primary"
    assert state.new_chat_button.text() == "New chat"
    # Centred: the button sits in the middle of the page, not at an edge.
    centre = state.new_chat_button.geometry().center()
    assert abs(centre.x() - state.width() // 2) <= 2
    with qtbot.waitSignal(state.new_chat, timeout=1000):
        qtbot.mouseClick(state.new_chat_button, Qt.MouseButton.LeftButton)
