"""The real start paints the window's chrome first and builds its first page right after.

``MainWindow(first_view_after_paint=True)`` is how ``run_app`` builds the
window: the first frame is the sidebar, the top bar (with the place and the
title the page will have) and the page's empty slot; the chat (or the welcome
flow on a fresh data folder) is built on the loop turn after that frame and
painted, and only then does the chat list load.  The subprocess side (the
real entry point, its imports at the first frame, the page's paint after it)
is tests/ui/test_first_paint_imports.py.
"""

from __future__ import annotations

from pathlib import Path

from relavium_desktop.ui.shell import NAV_CHAT, WELCOME_TITLE


def _store_a_chat(home: Path) -> None:
    from relavium_desktop.application.stores import session_store
    from relavium_desktop.engine.llm.messages import Message

    store = session_store(home)
    store.append_message(store.create(title="Earlier chat", agent_id="chat", mode="auto").id,
                         Message.user("What does total() do?"))


def test_the_first_frame_is_the_chrome_and_the_chat_page_follows_it(
    make_window, qtbot, relavium_home: Path
) -> None:
    from relavium_desktop.ui.chat.view import ChatView

    _store_a_chat(relavium_home)
    window = make_window(first_view_after_paint=True)
    # The skeleton says where the user is before the page exists.
    assert window.nav.currentRow() == NAV_CHAT
    assert window.top_bar.title.full_text() == "Chats"
    assert not isinstance(window.pages.currentWidget(), ChatView)
    at_first_frame: list[object] = []
    window.first_painted.connect(lambda: at_first_frame.append(window.pages.currentWidget()))
    with qtbot.waitSignal(window.first_view_painted, timeout=15_000):
        window.show()
    assert len(at_first_frame) == 1 and not isinstance(at_first_frame[0], ChatView)  # the frame came first
    assert isinstance(window.pages.currentWidget(), ChatView)
    assert window.pages.currentWidget() is window.chat_view and window.nav.currentRow() == NAV_CHAT
    # The stored chat is listed once the page is up; the window gets the app's icon then too.
    qtbot.waitUntil(lambda: window.chat_view.sessions.list.count() == 1, timeout=15_000)
    qtbot.waitUntil(lambda: not window.windowIcon().isNull(), timeout=15_000)
    assert "Earlier chat" in window.chat_view.sessions.list.item(0).text()


def test_on_a_fresh_data_folder_the_welcome_flow_follows_the_first_frame(make_window, qtbot) -> None:
    window = make_window(welcome=True, first_view_after_paint=True)
    assert window.top_bar.title.full_text() == WELCOME_TITLE
    assert window.nav.currentRow() == -1  # none of the places: the flow will have the main area
    assert window.welcome_view is None
    with qtbot.waitSignal(window.first_view_painted, timeout=15_000):
        window.show()
    assert window.welcome_view is not None and window.pages.currentWidget() is window.welcome_view
    assert window.top_bar.title.full_text() == WELCOME_TITLE


def test_a_window_built_for_tests_shows_its_page_at_once(make_window) -> None:
    from relavium_desktop.ui.chat.view import ChatView

    window = make_window()
    assert isinstance(window.pages.currentWidget(), ChatView) and window.first_view_shown


def test_work_waiting_for_a_page_that_never_paints_still_runs(make_window, qtbot, qapp) -> None:
    from relavium_desktop.ui.shell import FIRST_VIEW_GRACE_MS

    window = make_window(first_view_after_paint=True)  # never shown: its page never paints
    ran: list[bool] = []
    window.after_first_view(lambda: ran.append(True))
    qapp.processEvents()
    assert ran == []  # it waits for the page...
    qtbot.waitUntil(lambda: ran == [True], timeout=FIRST_VIEW_GRACE_MS + 5_000)  # ...but not for ever, and once
