"""Code in the chat reads as code: one line under the next, not a blank line apart, in the shipped mono face.

The design sets code at 1.6 em (about 1.2 times the mono face's own line
spacing).  A streamed fence used to get each new line as a block that copied
the ``<pre>``'s 12 px margins, so its lines stood ~24 px apart; a history
fence was drawn whole and did not.  Both are checked here, in both themes,
on a real Transcript with the real application stylesheet.
"""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pytest

from relavium_desktop.ui.chat.code_block import CodeBlock
from relavium_desktop.ui.chat.transcript import Transcript
from relavium_desktop.ui.qt import QFontInfo, QFontMetricsF, QSettings
from relavium_desktop.ui.theme import Theme
from relavium_desktop.ui.theme.fonts import MONO_FAMILY

LINES = 10
CODE = "".join(f"total_{n} = price({n}) * {n}  # line {n}\n" for n in range(LINES))
FENCE = f"```python\n{CODE}```\n"


def pitches(block: CodeBlock) -> list[float]:
    """The distance from each code line's top to the next one's, as laid out."""
    document = block.view.document()
    layout = document.documentLayout()
    tops, line = [], document.begin()
    while line.isValid():
        tops.append(layout.blockBoundingRect(line).top())
        line = line.next()
    return [b - a for a, b in pairwise(tops)]


@pytest.mark.parametrize("choice", ["light", "dark"])
def test_a_ten_line_fence_is_about_one_and_a_half_lines_per_line_streamed_or_from_history(
    qtbot, tmp_path: Path, choice: str
) -> None:
    theme = Theme(QSettings(str(tmp_path / "look.ini"), QSettings.Format.IniFormat))
    theme.set_choice(choice)
    theme.apply()  # the stylesheet and shipped fonts, even when the choice was already the palette
    try:
        transcript = Transcript(theme=theme)
        qtbot.addWidget(transcript)
        transcript.resize(900, 900)
        transcript.show()
        history = transcript.add_message("assistant", f"Here it is:\n\n{FENCE}\nDone.")
        transcript.add_message("user", "Again, please.")
        transcript.stream("Here it is:\n\n")
        for line in FENCE.splitlines(keepends=True):
            transcript.stream(line)
            transcript.flush()
        transcript.stream("\nDone.")
        transcript.end_stream()
        streamed = transcript.messages()[-1]
        (drawn,) = history.code_blocks()
        (grown,) = streamed.code_blocks()
        qtbot.waitUntil(lambda: grown.settled)
        for block in (drawn, grown):
            assert block.view.toPlainText() == CODE.removesuffix("\n")
            spacing = QFontMetricsF(block.view.font()).lineSpacing()
            padding = 2 * block.view.document().documentMargin()
            height = block.view.document().size().height()
            assert height <= LINES * spacing * 1.7 + padding, (choice, height, spacing)
            # Tighter than the bound above: no line stands a blank line from the next, and none is cramped.
            found = pitches(block)
            assert all(spacing <= pitch <= spacing * 1.35 for pitch in found), (choice, found)
            # The shipped face, not whatever the desktop calls "monospace".
            cursor = block.view.textCursor()
            cursor.setPosition(3)
            assert QFontInfo(cursor.charFormat().font()).family() == MONO_FAMILY
        assert pitches(drawn) == pitches(grown)  # history and streaming look the same
    finally:
        theme.set_choice("light")
