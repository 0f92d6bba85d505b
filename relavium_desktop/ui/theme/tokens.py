"""The design's layout numbers: the 4 px spacing grid, radii, the reading width and the type scale.

Views lay themselves out with these names instead of literals, so the rhythm of
the whole window (and a later change of it) lives in one place.  Pure Python:
the layout tests read the same numbers the views use.
"""

from __future__ import annotations

from typing import Final

# The 4 px grid.
SPACE_1: Final = 4
SPACE_2: Final = 8
SPACE_3: Final = 12
SPACE_4: Final = 16
SPACE_5: Final = 24
SPACE_6: Final = 32

# Outer padding: the main area and the sidebar.  Nothing is closer than this to a window edge.
PAD_MAIN: Final = SPACE_5
PAD_SIDEBAR: Final = SPACE_3
EDGE_MIN: Final = SPACE_2  # the least distance any visible control keeps from the window's edge

# Corner radii.
RADIUS_CONTROL: Final = 8
RADIUS_CARD: Final = 12
RADIUS_COMPOSER: Final = 16

# Widths.
READING_WIDTH: Final = 760  # the chat's reading column, whatever the window size
SIDEBAR_WIDTH: Final = 264
TOP_BAR_HEIGHT: Final = 56

# Type scale in CSS pixels (the design's units); the theme turns them into points for the body size.
TYPE_BODY_PX: Final = 14
TYPE_SECONDARY_PX: Final = 13
TYPE_CAPTION_PX: Final = 12
TYPE_TITLE_PX: Final = 15
TYPE_SHEET_TITLE_PX: Final = 17
TYPE_MONO_PX: Final = 13
