"""The sessions list over a real history.db: dates in local time, search, empty states, renaming.

Sessions are created through :class:`SqliteSessionStore` with a settable
clock, and the panel is given the same clock as "now", so every date is
fixed.  The process time zone is set to Asia/Tokyo (UTC+9, no daylight
saving) for the date tests: a chat used at 08:30 on 1 Dec in Tokyo was used
on 30 Nov in UTC, so a list that formatted UTC would say "Yesterday" where
the person sees "Today 08:30".
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from relavium_desktop.engine.llm.messages import Message, TextPart
from relavium_desktop.store.db import history_db_path, open_db
from relavium_desktop.store.sessions import SqliteSessionStore
from relavium_desktop.ui.chat.sessions_panel import NO_CHATS, SessionsPanel
from relavium_desktop.ui.qt import QApplication, QLabel, QLineEdit, Qt
from tests.ui.chat_driver import type_and_enter

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4"
TOKYO = timezone(timedelta(hours=9))


def tokyo(*args: int) -> float:
    return datetime(*args, tzinfo=TOKYO).timestamp()  # type: ignore[misc]


class Clock:
    def __init__(self, at: float) -> None:
        self.at = at

    def __call__(self) -> float:
        return self.at


@pytest.fixture
def in_tokyo(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def clock() -> Clock:
    return Clock(tokyo(2026, 12, 1, 15, 0))


@pytest.fixture
def store(relavium_home: Path, clock: Clock) -> SqliteSessionStore:
    return SqliteSessionStore(open_db(history_db_path(relavium_home)), clock=clock)


@pytest.fixture
def panel(qtbot, store: SqliteSessionStore, clock: Clock) -> SessionsPanel:
    widget = SessionsPanel(store.search, clock=clock)
    qtbot.addWidget(widget)
    widget.resize(240, 500)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def chat_at(store: SqliteSessionStore, clock: Clock, at: float, title: str, *said: str) -> str:
    clock.at = at
    sid = store.create(title=title, agent_id="chat", mode="auto").id
    for i, text in enumerate(said):
        store.append_message(sid, Message.user(text) if i % 2 == 0 else Message("assistant", (TextPart(text),)))
    return sid


def search(qtbot, panel: SessionsPanel, text: str) -> None:
    panel.search_box.clear()
    qtbot.keyClicks(panel.search_box, text)


def test_each_chat_shows_when_it_was_last_used_in_local_time(
    in_tokyo: None, panel: SessionsPanel, store: SqliteSessionStore, clock: Clock,
) -> None:
    chat_at(store, clock, tokyo(2025, 11, 12, 9, 0), "last year")
    chat_at(store, clock, tokyo(2026, 11, 12, 9, 0), "this year")
    chat_at(store, clock, tokyo(2026, 11, 27, 20, 0), "this week")  # a Friday
    chat_at(store, clock, tokyo(2026, 11, 30, 22, 15), "yesterday")
    chat_at(store, clock, tokyo(2026, 12, 1, 8, 30), "this morning")  # 30 Nov 23:30 in UTC
    clock.at = tokyo(2026, 12, 1, 15, 0)
    panel.fill(store.list_sessions(), None)
    assert panel.titles() == ["this morning", "yesterday", "this week", "this year", "last year"]
    assert panel.dates() == ["Today 08:30", "Yesterday", "Fri", "12 Nov", "12 Nov 2025"]
    tip = panel.list.item(0).toolTip()
    assert "Last used Today 08:30 (Tue 1 Dec 2026, 08:30:00 JST)" in tip, tip
    description = panel.list.item(0).data(Qt.ItemDataRole.AccessibleDescriptionRole)
    assert description == "Last used Today 08:30"
    assert "Last used 12 Nov 2025" in panel.list.item(4).toolTip()


def test_a_list_left_open_overnight_moves_today_to_yesterday(
    qtbot, in_tokyo: None, panel: SessionsPanel, store: SqliteSessionStore, clock: Clock,
) -> None:
    chat_at(store, clock, tokyo(2026, 12, 1, 23, 50), "late")
    panel.fill(store.list_sessions(), None)
    assert panel.dates() == ["Today 23:50"]
    clock.at = tokyo(2026, 12, 2, 0, 5)
    panel._tick.setInterval(20)  # the minute tick, sped up
    qtbot.waitUntil(lambda: panel.dates() == ["Yesterday"])
    assert "Last used Yesterday (" in panel.list.item(0).toolTip()


def test_search_finds_a_chat_by_what_was_said_in_it_as_you_type(
    qtbot, panel: SessionsPanel, store: SqliteSessionStore, clock: Clock,
) -> None:
    pricing = chat_at(store, clock, tokyo(2026, 12, 1, 9, 0), "Pricing bug", "why is the total wrong?",
                      "The Discount is applied twice.")
    holiday = chat_at(store, clock, tokyo(2026, 12, 1, 10, 0), "Holiday plans", "Where should we go in May?")
    panel.fill(store.list_sessions(), None)
    assert panel.titles() == ["Holiday plans", "Pricing bug"]

    search(qtbot, panel, "discount")  # only in the assistant's answer, in another case
    qtbot.waitUntil(lambda: panel.ids() == [pricing])
    search(qtbot, panel, "HOLIDAY")
    qtbot.waitUntil(lambda: panel.ids() == [holiday])
    search(qtbot, panel, "lighthouse")
    qtbot.waitUntil(lambda: panel.empty_text() == "No chats match “lighthouse”")
    assert panel.list.isHidden()

    panel.search_box.clear()
    qtbot.waitUntil(lambda: panel.ids() == [holiday, pricing])
    assert panel.empty_text() is None and panel.list.isVisible()


def test_a_secret_said_in_a_chat_cannot_be_found_by_its_value(
    qtbot, panel: SessionsPanel, store: SqliteSessionStore, clock: Clock,
) -> None:
    chat_at(store, clock, tokyo(2026, 12, 1, 9, 0), "deploy", f"the deploy token is {TOKEN} ok?")
    panel.fill(store.list_sessions(), None)
    search(qtbot, panel, TOKEN)
    qtbot.waitUntil(lambda: panel.empty_text() == f"No chats match “{TOKEN}”")
    search(qtbot, panel, "deploy token")
    qtbot.waitUntil(lambda: panel.titles() == ["deploy"])


def test_the_open_chat_stays_selected_while_it_matches_and_searching_opens_nothing(
    qtbot, panel: SessionsPanel, store: SqliteSessionStore, clock: Clock,
) -> None:
    a = chat_at(store, clock, tokyo(2026, 12, 1, 9, 0), "alpha", "shared word apple")
    b = chat_at(store, clock, tokyo(2026, 12, 1, 10, 0), "beta", "shared word apple and banana")
    chat_at(store, clock, tokyo(2026, 12, 1, 11, 0), "gamma", "cherry")
    panel.fill(store.list_sessions(), a)
    opened: list[str] = []
    panel.selected.connect(opened.append)

    search(qtbot, panel, "apple")
    qtbot.waitUntil(lambda: panel.titles() == ["beta", "alpha"])
    assert panel.list.currentItem().text() == "alpha"
    search(qtbot, panel, "banana")
    qtbot.waitUntil(lambda: panel.titles() == ["beta"])
    assert panel.list.currentItem() is None
    panel.search_box.clear()
    qtbot.waitUntil(lambda: panel.titles() == ["gamma", "beta", "alpha"])
    assert panel.list.currentItem().text() == "alpha"
    assert opened == []  # filtering never switched chats

    # A refill while searching (a message was sent) keeps the filter.
    search(qtbot, panel, "apple")
    qtbot.waitUntil(lambda: panel.titles() == ["beta", "alpha"])
    store.append_message(a, Message.user("more about apple"))
    panel.fill(store.list_sessions(), a)
    assert panel.titles() == ["alpha", "beta"]
    # Enter opens the first chat found.
    qtbot.keyClick(panel.search_box, Qt.Key.Key_Return)
    assert opened == [] and panel.list.currentItem().text() == "alpha"
    search(qtbot, panel, "banana")
    qtbot.keyClick(panel.search_box, Qt.Key.Key_Return)
    assert opened == [b]

    # "New chat": nothing is open, so nothing comes back selected when the search is cleared.
    panel.clear_current()
    assert panel.list.currentItem() is None and not panel.delete_button.isEnabled()
    panel.search_box.clear()
    qtbot.waitUntil(lambda: len(panel.titles()) == 3)
    assert panel.list.currentItem() is None and opened == [b]


def test_with_no_chats_the_list_says_how_to_start_one(
    qtbot, panel: SessionsPanel, store: SqliteSessionStore, clock: Clock,
) -> None:
    panel.fill([], None)
    assert panel.empty_text() == NO_CHATS == "No chats yet — type a message to start one"
    assert not panel.search_box.isEnabled()
    chat_at(store, clock, tokyo(2026, 12, 1, 9, 0), "first", "hello")
    panel.fill(store.list_sessions(), None)
    assert panel.empty_text() is None and panel.titles() == ["first"] and panel.search_box.isEnabled()


def test_a_chat_is_renamed_in_place_and_keeps_its_date(
    qtbot, panel: SessionsPanel, store: SqliteSessionStore, clock: Clock,
) -> None:
    sid = chat_at(store, clock, tokyo(2026, 12, 1, 9, 0), "old name", "hello")
    panel.fill(store.list_sessions(), sid)
    date = panel.dates()
    with qtbot.waitSignal(panel.rename_requested) as renamed:
        panel.rename_button.click()
        editor = QApplication.focusWidget()
        assert isinstance(editor, QLineEdit) and editor.text() == "old name"
        editor.selectAll()
        qtbot.keyClicks(editor, "Project   tour")
        qtbot.keyClick(editor, Qt.Key.Key_Return)
    assert renamed.args == [sid, "Project tour"]
    qtbot.waitUntil(lambda: panel.list.itemWidget(panel.list.item(0)) is not None)
    assert panel.dates() == date


def test_in_the_window_a_row_shows_its_whole_title_and_the_time_is_in_its_tooltip(
    chat, qtbot, llm_server
) -> None:
    from tests.fixtures.llm_server import Reply

    panel = chat.sessions
    assert panel.empty_text() == NO_CHATS
    llm_server.script(Reply.say("Hi."))
    title = "Summarise the TODOs"  # whole beside nothing; cut short beside "Today 14:02"
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000) as done:
        type_and_enter(qtbot, chat, title)
    assert done.args == ["completed"]
    assert panel.titles() == [title] and panel.dates()[0].startswith("Today ")
    row = panel.list.itemWidget(panel.list.item(0))
    # Under TODAY the row says only its title, whole: no "Today 14:02" on every row eating its width.
    shown = [label.text() for label in row.findChildren(QLabel) if label.isVisible()]
    assert shown == ["TODAY", title]
    item = panel.list.item(0)
    assert f"Last used {panel.dates()[0]} (" in item.toolTip()
    assert item.data(Qt.ItemDataRole.AccessibleDescriptionRole) == f"Last used {panel.dates()[0]}"


def test_the_buttons_and_search_box_get_icons_in_the_theme_colours(qtbot, tmp_path: Path, qloop) -> None:
    from relavium_desktop.ui.qt import QSettings
    from relavium_desktop.ui.theme import Theme

    theme = Theme(QSettings(str(tmp_path / "look.ini"), QSettings.Format.IniFormat))
    theme.set_choice("light")
    widget = SessionsPanel(theme=theme)
    qtbot.addWidget(widget)
    assert widget.new_button.icon().isNull()  # nothing loaded before the panel is shown
    widget.show()
    qtbot.waitUntil(lambda: not widget.new_button.icon().isNull())
    assert len(widget.search_box.actions()) == 1
    light_key = widget.new_button.icon().cacheKey()
    try:
        theme.set_choice("dark")
        qtbot.waitUntil(lambda: widget.new_button.icon().cacheKey() != light_key)
    finally:
        theme.set_choice("light")  # the theme is applied to the whole QApplication


def test_chats_are_grouped_by_day_and_a_new_day_regroups_them(
    in_tokyo: None, qtbot, panel: SessionsPanel, store: SqliteSessionStore, clock: Clock,
) -> None:
    chat_at(store, clock, tokyo(2026, 11, 12, 9, 0), "older one")
    chat_at(store, clock, tokyo(2026, 11, 27, 20, 0), "this week")
    chat_at(store, clock, tokyo(2026, 11, 30, 22, 15), "yesterday")
    chat_at(store, clock, tokyo(2026, 12, 1, 8, 30), "this morning")  # 30 Nov 23:30 in UTC: still today here
    chat_at(store, clock, tokyo(2026, 12, 1, 9, 30), "later this morning")
    clock.at = tokyo(2026, 12, 1, 15, 0)
    windows_before = {w for w in QApplication.topLevelWidgets() if w.isVisible()}
    renamed: list[object] = []
    panel.rename_requested.connect(lambda *args: renamed.append(args))
    panel.fill(store.list_sessions(), None)
    assert panel.groups() == ["TODAY", "YESTERDAY", "PREVIOUS 7 DAYS", "OLDER"]
    # Filling opens no window of its own (which would take the focus from the app's window).
    assert {w for w in QApplication.topLevelWidgets() if w.isVisible()} == windows_before
    # One list row per chat: the labels ride on the first row of each group.
    assert panel.titles() == ["later this morning", "this morning", "yesterday", "this week", "older one"]
    first, second = (panel.list.itemWidget(panel.list.item(i)) for i in (0, 1))
    assert first.group.isVisible() and not second.group.isVisible()
    assert first.group.property("variant") == "group-label"
    # The label sits above the title, and both are seen: the row fills its whole list row.
    assert first.geometry() == panel.list.visualItemRect(panel.list.item(0))
    assert first.title.height() > 0 and first.title.y() >= first.group.geometry().bottom()
    # Left open past midnight: today's chats become yesterday's.
    clock.at = tokyo(2026, 12, 2, 0, 5)
    panel._tick.setInterval(10)
    qtbot.waitUntil(lambda: panel.groups() == ["YESTERDAY", "PREVIOUS 7 DAYS", "OLDER"])
    assert renamed == []  # regrouping renames nothing


def test_rename_and_delete_are_on_the_right_click_menu_and_keys_and_ctrl_k_finds(
    qtbot, panel: SessionsPanel, store: SqliteSessionStore, clock: Clock,
) -> None:
    from relavium_desktop.ui.qt import QMenu

    sid = chat_at(store, clock, tokyo(2026, 12, 1, 9, 0), "one chat", "hello")
    panel.fill(store.list_sessions(), None)
    assert not panel.rename_button.isVisible() and not panel.delete_button.isVisible()
    rect = panel.list.visualItemRect(panel.list.item(0))
    panel.list.customContextMenuRequested.emit(rect.center())  # what a right-click raises
    menu = panel.menu_
    assert isinstance(menu, QMenu)
    qtbot.waitUntil(menu.isVisible)
    assert [a.text() for a in menu.actions()] == ["Rename", "Delete…"]
    with qtbot.waitSignal(panel.delete_requested) as deleted:
        menu.actions()[1].trigger()
    assert deleted.args == [sid]
    menu.close()
    panel.activateWindow()
    panel.list.setFocus()
    qtbot.waitUntil(panel.list.hasFocus)
    panel.list.setCurrentRow(0)
    with qtbot.waitSignal(panel.delete_requested) as deleted:
        qtbot.keyClick(panel.list, Qt.Key.Key_Delete)
    assert deleted.args == [sid]
    qtbot.keyClick(panel.list, Qt.Key.Key_F2)
    editor = QApplication.focusWidget()
    assert isinstance(editor, QLineEdit) and editor.text() == "one chat"
    qtbot.keyClick(editor, Qt.Key.Key_Escape)
    qtbot.keyClick(panel.list, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(panel.search_box.hasFocus)


def test_the_open_chat_is_marked_with_the_soft_accent(
    qtbot, store: SqliteSessionStore, clock: Clock, tmp_path: Path, qloop,
) -> None:
    from relavium_desktop.ui.qt import QSettings
    from relavium_desktop.ui.theme import Theme

    theme = Theme(QSettings(str(tmp_path / "look.ini"), QSettings.Format.IniFormat))
    theme.set_choice("light")
    first = chat_at(store, clock, tokyo(2026, 12, 1, 9, 0), "first", "hello")
    chat_at(store, clock, tokyo(2026, 12, 1, 10, 0), "second", "hello")
    widget = SessionsPanel(store.search, theme=theme, clock=clock)
    qtbot.addWidget(widget)
    widget.resize(240, 400)
    widget.show()
    qtbot.waitExposed(widget)
    widget.fill(store.list_sessions(), first)
    assert widget.list.currentItem().text() == "first"

    def colour_under(row: int):
        rect = widget.list.visualItemRect(widget.list.item(row))
        image = widget.list.viewport().grab().toImage()
        return image.pixelColor(rect.center().x(), rect.bottom() - 2)

    try:
        assert colour_under(1) == theme.qcolor("accent_soft")  # "first" is the older, second row
        assert colour_under(0) != theme.qcolor("accent_soft")
        theme.set_choice("dark")
        assert colour_under(1) == theme.qcolor("accent_soft")
    finally:
        theme.set_choice("light")
