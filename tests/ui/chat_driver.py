"""Driving the chat view like a person: the scripted provider's key and route, typing, waiting.

The ``providers`` and ``chat`` fixtures built on these live in tests/ui/conftest.py.
"""

from __future__ import annotations

from relavium_desktop.ui.qt import Qt

KEY = "sk-test-CHATVIEW0123456789abcdefghijkl"
ROUTE = "scripted-openai/gpt-4o-mini"


def type_and_enter(qtbot, view, text: str) -> None:
    view.composer.setFocus()
    qtbot.keyClicks(view.composer, text)
    qtbot.keyClick(view.composer, Qt.Key.Key_Return)


def finish(qtbot, view, timeout: int = 15_000) -> str:
    with qtbot.waitSignal(view.turn_finished, timeout=timeout) as blocker:
        pass
    return str(blocker.args[0])
