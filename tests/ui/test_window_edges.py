"""Nothing a person reads or clicks sits on the window's edge (issue 23: at least ``EDGE_MIN`` px away).

The main views are shown at the design's two sizes in both themes, and every
visible leaf control -- buttons, labels with text, text fields, combo boxes,
item views -- is measured where it is actually seen (its visible region,
clipped by scroll areas and parents).  Layout containers that span the window
and scroll bars are not controls and are not measured.  A failure lists each
offending widget by object name, class and text, and its distance to the
edges, so the page that needs a margin is obvious.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from relavium_desktop.engine.llm.messages import Message, TextPart
from relavium_desktop.store.db import history_db_path, open_db
from relavium_desktop.store.sessions import SqliteSessionStore
from relavium_desktop.ui.qt import (
    QAbstractButton,
    QAbstractItemView,
    QApplication,
    QComboBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QRect,
    QTextEdit,
    QWidget,
)
from relavium_desktop.ui.shell import NAV_CHAT, NAV_RUNS, NAV_SETTINGS, NAV_WORKFLOWS
from relavium_desktop.ui.theme.tokens import EDGE_MIN

SIZES = ((1440, 900), (1024, 700))
THEMES = ("light", "dark")
VIEWS = ("chat-open", "chat-empty", "workflows", "activity", "settings")
LEAVES = (QAbstractButton, QLineEdit, QTextEdit, QPlainTextEdit, QComboBox, QAbstractItemView)


def _is_leaf(widget: QWidget) -> bool:
    if isinstance(widget, QLabel):
        return bool(widget.text().strip())
    return isinstance(widget, LEAVES)


def _describe(widget: QWidget) -> str:
    text = ""
    if isinstance(widget, (QAbstractButton, QLabel, QLineEdit)):
        text = widget.text()
    elif isinstance(widget, QComboBox):
        text = widget.currentText()
    name = widget.objectName() or "(no name)"
    return f"{type(widget).__name__} {name} {text[:40]!r}"


def too_close(window: QWidget) -> list[str]:
    """Every visible leaf control of ``window`` closer than EDGE_MIN to an edge, described."""
    found = []
    width, height = window.width(), window.height()
    for widget in window.findChildren(QWidget):
        if (
            widget.window() is not window
            or not widget.isVisible()
            or widget.width() <= 0
            or widget.height() <= 0
        ):
            continue
        if not _is_leaf(widget):
            continue
        seen = widget.visibleRegion().boundingRect()
        if seen.isEmpty():
            continue
        at = QRect(widget.mapTo(window, seen.topLeft()), seen.size())
        gaps = {
            "left": at.left(),
            "top": at.top(),
            "right": width - 1 - at.right(),
            "bottom": height - 1 - at.bottom(),
        }
        close = {side: gap for side, gap in gaps.items() if gap < EDGE_MIN}
        if close:
            sides = ", ".join(f"{side} {gap}px" for side, gap in close.items())
            found.append(f"{_describe(widget)} at {at.getRect()}: {sides}")
    return found


@pytest.fixture
def one_chat(relavium_home: Path) -> str:
    """A chat in history.db, as an earlier session left it."""
    store = SqliteSessionStore(open_db(history_db_path(relavium_home)))
    sid = store.create(title="Tidy the pricing module", agent_id="chat", mode="confirm").id
    store.append_message(sid, Message.user("The discount logic is hard to follow. Can you simplify it?"))
    store.append_message(
        sid, Message("assistant", (TextPart("One ordered table of rules reads more easily."),))
    )
    return sid


def _show(window, view: str, sid: str, qtbot) -> None:
    if view.startswith("chat"):
        window.nav.setCurrentRow(NAV_CHAT)
        chat = window.chat_view
        qtbot.waitUntil(lambda: chat.backend is not None, timeout=15_000)
        qtbot.waitUntil(lambda: sid in chat.sessions.ids(), timeout=15_000)
        if view == "chat-open":
            chat.sessions.select(sid)
            qtbot.waitUntil(lambda: chat.session_id == sid, timeout=15_000)
        else:
            chat.new_session()
    elif view == "workflows":
        window.nav.setCurrentRow(NAV_WORKFLOWS)
    elif view == "activity":
        window.nav.setCurrentRow(NAV_RUNS)
    else:
        window.nav.setCurrentRow(NAV_SETTINGS)


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_no_control_lies_on_the_windows_edge(
    make_window, qtbot, one_chat: str, providers: None, size: tuple[int, int], theme: str, view: str
) -> None:
    window = make_window()
    window.context.theme.set_choice(theme)
    try:
        window.resize(*size)
        window.show()
        qtbot.waitExposed(window)
        qtbot.waitUntil(lambda: window.size().width() == size[0] and window.size().height() == size[1])
        _show(window, view, one_chat, qtbot)
        QApplication.processEvents()  # pending layout requests after the page switch
        offending = too_close(window)
        assert not offending, (
            f"{view} at {size[0]}x{size[1]} ({theme}): within {EDGE_MIN}px of the edge:\n"
            + "\n".join(offending)
        )
    finally:
        window.context.theme.set_choice("light")  # the theme is applied to the whole QApplication


def test_the_edge_check_names_a_control_on_the_edge(qtbot) -> None:
    """The check itself: a button at x=2 is reported, one at x=EDGE_MIN is not."""
    from relavium_desktop.ui.qt import QPushButton

    window = QWidget()
    qtbot.addWidget(window)
    window.resize(400, 300)
    near = QPushButton("Near", window)
    near.setObjectName("near")
    near.setGeometry(2, 100, 80, 30)
    fine = QPushButton("Fine", window)
    fine.setGeometry(EDGE_MIN, 150, 80, 30)
    window.show()
    qtbot.waitExposed(window)
    found = too_close(window)
    assert len(found) == 1 and "near 'Near'" in found[0] and "left 2px" in found[0]
