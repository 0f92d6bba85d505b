"""The top of every sheet that asks a question: a soft badge beside the question and the line under it.

The permission sheet and the undo sheet (and any sheet after them) open the
same way in the design: the question as the title, who asks and what it
covers in muted words under it, a badge at its left.  Built here once so the
sheets keep one rhythm.
"""

from __future__ import annotations

from relavium_desktop.ui.qt import QHBoxLayout, QLabel, Qt, QVBoxLayout
from relavium_desktop.ui.theme import set_surface, set_tone, set_variant
from relavium_desktop.ui.theme.tokens import SPACE_1, SPACE_3, SPACE_6

BADGE_PX = SPACE_6 + SPACE_1


def sheet_badge(object_name: str, accessible_name: str, surface: str) -> QLabel:
    """The square badge at a sheet's top left; the caller puts its icon in it."""
    badge = QLabel()
    badge.setObjectName(object_name)
    badge.setFixedSize(BADGE_PX, BADGE_PX)
    badge.setAlignment(Qt.AlignmentFlag.AlignCenter)
    badge.setAccessibleName(accessible_name)
    set_surface(badge, surface)
    return badge


def question_row(badge: QLabel, headline: QLabel, sub: QLabel) -> QHBoxLayout:
    """Style ``headline`` as the sheet's title and ``sub`` as its muted line, beside ``badge``."""
    headline.setWordWrap(True)
    set_variant(headline, "title")
    set_tone(headline, "heading")
    sub.setWordWrap(True)
    sub.setTextFormat(Qt.TextFormat.PlainText)
    set_tone(sub, "muted")
    words = QVBoxLayout()
    words.setSpacing(SPACE_1)
    words.addWidget(headline)
    words.addWidget(sub)
    top = QHBoxLayout()
    top.setSpacing(SPACE_3)
    top.addWidget(badge, 0, Qt.AlignmentFlag.AlignTop)
    top.addLayout(words, 1)
    return top
