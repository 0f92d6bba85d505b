"""The chat reads in one centred column, however wide the window.

A real window, a real turn against the scripted LLM server: at 1024, 1440
and 1920 px every message block, the composer card and the banners stay
within ``READING_WIDTH`` and sit in the middle of the page (equal gaps left
and right, within 2 px), and nothing comes closer than ``EDGE_MIN`` to the
window's right or bottom edge.
"""

from __future__ import annotations

import pytest

from relavium_desktop.ui.qt import QPoint, QWidget
from relavium_desktop.ui.theme.tokens import EDGE_MIN, READING_WIDTH
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.ui.chat_driver import type_and_enter

LONG_QUESTION = "Please explain how the discount rules interact when a member orders over a hundred euros. " * 6
LONG_ANSWER = "\n\n".join(
    ["The three nested **if** blocks compute the same thing in different orders. " * 8] * 4
    + ["```python\nRULES = [(lambda o: o.total >= 100, 0.10), (lambda o: o.customer.member, 0.05)]  # bulk first\n```"]
)


def _gaps(widget: QWidget, page: QWidget) -> tuple[int, int]:
    """The widget's distance from the page's left and right edges, in page coordinates."""
    left = widget.mapTo(page, QPoint(0, 0)).x()
    return left, page.width() - (left + widget.width())


@pytest.mark.parametrize("width", [1024, 1440, 1920])
def test_messages_and_composer_sit_in_a_centred_column_of_reading_width(
    chat, qtbot, llm_server: ScriptedLLMServer, width: int
) -> None:
    window = chat.window()
    window.resize(width, 900)
    llm_server.script(Reply.say(LONG_ANSWER))
    with qtbot.waitSignal(chat.turn_finished, timeout=20_000):
        type_and_enter(qtbot, chat, LONG_QUESTION)
    qtbot.waitUntil(lambda: window.width() == width and len(chat.transcript.messages()) == 2)
    chat.banner.show_error({"code": "provider_unavailable", "message": "connection refused"})
    qtbot.wait(0)
    page = chat.transcript  # the scroll area spans the page; its column is centred on it
    qtbot.waitUntil(lambda: all(b.width() > 0 for b in chat.transcript.messages()))
    for block in chat.transcript.messages():
        assert block.width() <= READING_WIDTH, (width, block.objectName(), block.width())
    # The column's own edges: the widest extent any block may take (a user bubble is narrower and right-aligned).
    column = chat.transcript.widget()
    margins = column.layout().contentsMargins()
    left = margins.left()
    right = page.width() - (column.width() - margins.right())
    assert abs(left - right) <= 2, (width, left, right)
    assert column.width() - margins.left() - margins.right() <= READING_WIDTH
    if width >= 1024 + 200:
        # Wider than the column: the column stays at its reading width and the page grows around it.
        assert column.width() - margins.left() - margins.right() == READING_WIDTH
    # The composer card and the banner share the column: same width, centred on the same page.
    for widget in (chat.composer_card, chat.banner):
        assert widget.width() <= READING_WIDTH
        gap_left, gap_right = _gaps(widget, chat)
        assert abs(gap_left - (gap_right - EDGE_MIN)) <= 2, (width, widget.objectName(), gap_left, gap_right)
        assert abs(widget.mapTo(chat, QPoint(0, 0)).x() - (page.mapTo(chat, QPoint(0, 0)).x() + left)) <= 2
    # Nothing touches the window's right or bottom edge.
    for widget in (chat.composer_card, chat.hints, chat.transcript.verticalScrollBar()):
        corner = widget.mapTo(window, QPoint(widget.width(), widget.height()))
        assert window.width() - corner.x() >= EDGE_MIN, (widget.objectName(), corner)
        assert window.height() - corner.y() >= EDGE_MIN, (widget.objectName(), corner)


def test_the_composer_is_a_card_with_labelled_controls_and_a_hint_row(chat, qtbot) -> None:
    card = chat.composer_card
    assert card.property("surface") == "composer"
    assert chat.composer.placeholderText() == "Reply, or drop a file or screenshot…"
    # The model is a chip in the card's row ("provider · model"); no separate "Model:" row.
    assert chat.model_combo.parent() is card and chat.model_combo.property("variant") == "chip"
    assert " · " in chat.model_combo.shown_text()
    assert chat.send_button.property("variant") == "send" and chat.send_button.isVisible()
    assert not chat.stop_button.isVisible()
    for control in (chat.attach_files_button, chat.send_button, chat.stop_button, chat.model_combo, chat.composer):
        assert control.accessibleName(), control.objectName()
    # One built-in agent: no agent control; never an unlabelled one.
    assert chat.agent_combo.count() <= 1 and not chat.agent_combo.isVisible()
    chat.agent_combo.addItem("Reviewer", "reviewer")
    chat.agent_combo.addItem("Writer", "writer")
    chat._show_agent_choice()
    assert chat.agent_combo.isVisible() and chat.agent_label.isVisible()
    assert chat.agent_label.text() == "Agent:" and chat.agent_label.buddy() is chat.agent_combo
    hints = chat.hints.text()
    assert "Enter" in hints and "Shift Enter" in hints and "new line" in hints and "tokens" in hints
