"""The two designed palettes: the only place in the app that spells a colour.

Pure Python (no Qt), so the contrast test, HTML builders and the graph
painter can all read the same values, and a palette can be checked without a
display.  Every view asks for a *role* ("muted", "danger_bg", "node_running")
rather than a colour, which is what lets the whole window switch between
light and dark without a view knowing which one it is in.

The look follows the calm desktop chat apps (neutral greys, one accent): the
accent is kept for the one thing a screen wants the user to do next; state
colours (success, warning, danger, info) are used for text and their ``_bg``
partners for banners, so a state is never told by colour alone.  Each
text/background pair meets WCAG 2.x: 4.5:1 for body text, 3:1 for large text
and icons (tests/ui/test_contrast.py checks every pair of both palettes).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

ROLES: tuple[str, ...] = (
    "window",  # the window behind everything
    "surface",  # cards, inputs, list backgrounds
    "surface_alt",  # the navigation column, headers, hovered rows
    "border",  # hairlines between areas (decorative: not a contrast pair)
    "text",
    "muted",  # secondary text: hints, timestamps, captions
    "accent",  # the primary button, focus rings, the selected tab's underline
    "accent_text",  # text on an accent background
    "link",
    "selection",  # selected rows and text selection, with ``text`` on it
    "success",
    "warning",
    "danger",
    "info",
    "success_bg",
    "warning_bg",
    "danger_bg",
    "info_bg",
    "diff_add_bg",
    "diff_add_text",
    "diff_remove_bg",
    "diff_remove_text",
    "code_bg",
    "code_text",
    "terminal_bg",
    "terminal_text",
    "node_idle",  # workflow graph node fills, with ``node_text`` on each
    "node_running",
    "node_done",
    "node_failed",
    "node_waiting",
    "node_skipped",
    "node_text",
    "edge",  # graph edges and arrows (a graphical object: 3:1 on window)
    # The design's roles (../design tokens): the sidebar column, sunken wells (diff headers,
    # the quick panel's clipboard strip), the stronger border of controls, the faintest text
    # that still reads (captions, group labels), the soft accent behind a selected row and its
    # hairline, and the user's message bubble.
    "sidebar",
    "sunken",
    "border_strong",
    "faint",
    "accent_soft",
    "accent_line",
    "user_bubble",
    # The edge of a check box or radio button: 3:1 on what it sits on (--border-strong is not).
    "indicator",
    # Syntax colours for code blocks drawn by the app itself (each 4.5:1 on code_bg).
    "code_keyword",
    "code_string",
    "code_function",
    "code_comment",
    # The colour of drop shadows and the sheet's scrim, always drawn with a low alpha.
    "shadow",
)


@dataclass(frozen=True, eq=False)  # compared and hashed by identity: LIGHT and DARK are the only ones
class Palette:
    """A named, complete set of role colours as ``#rrggbb`` strings."""

    name: str
    colours: Mapping[str, str] = field(repr=False)

    def __post_init__(self) -> None:
        missing = [role for role in ROLES if role not in self.colours]
        extra = [role for role in self.colours if role not in ROLES]
        if missing or extra:
            raise ValueError(f"palette {self.name!r}: missing {missing}, unknown {extra}")
        # Frozen in spirit too: a view holding the palette cannot repaint the app by mistake.
        object.__setattr__(self, "colours", MappingProxyType(dict(self.colours)))

    def __getitem__(self, role: str) -> str:
        return self.colours[role]

    def __iter__(self) -> Iterator[str]:
        return iter(ROLES)

    @property
    def is_dark(self) -> bool:
        return self.name == "dark"


# Values from the design's tokens (shared/design/mockups/tokens.css).  Where a design value
# failed WCAG AA for the text it carries, it was moved the least that passes, noted beside it.
LIGHT = Palette(
    "light",
    {
        "window": "#fafaf9",  # --bg
        "surface": "#ffffff",
        "surface_alt": "#f3f2ef",  # hovered rows, table headers: the sidebar's tone
        "sidebar": "#f3f2ef",
        "sunken": "#f5f5f4",
        "border": "#e7e5e4",
        "border_strong": "#d6d3d1",
        "indicator": "#8a847e",  # not in the design: --border-strong is 1.5:1, too faint for a check box's edge (3:1)
        "text": "#1c1917",
        "muted": "#6b6661",
        "faint": "#726e6b",  # design #a8a29e is 2.5:1 on white; darkened to 4.5:1 on the sidebar
        "accent": "#2563eb",
        "accent_text": "#ffffff",
        "accent_soft": "#eef3ff",
        "accent_line": "#c7d7fe",
        "link": "#2563eb",
        "selection": "#dce6fd",
        "user_bubble": "#efede9",
        "success": "#147c3b",  # design --ok #15803d is 4.48:1 on the sidebar; a shade darker
        "warning": "#ae5009",  # design --warn #b45309 is 4.49:1 on the sidebar; a shade darker
        "danger": "#b91c1c",
        "info": "#1d4ed8",  # not in the design: the code-function blue
        "success_bg": "#e8f5ec",
        "warning_bg": "#fdf3e3",
        "danger_bg": "#fdecec",
        "info_bg": "#eef3ff",
        "diff_add_bg": "#e8f5ec",
        "diff_add_text": "#166534",
        "diff_remove_bg": "#fdecec",
        "diff_remove_text": "#991b1b",
        "code_bg": "#f6f5f3",
        "code_text": "#1c1917",
        "code_keyword": "#7c3aed",
        "code_string": "#0f766e",
        "code_function": "#1d4ed8",
        "code_comment": "#75706a",  # design --com #8a847e is 3.4:1 on the code background; darkened to 4.5:1
        "terminal_bg": "#1c1917",
        "terminal_text": "#e7e5e4",
        "node_idle": "#ffffff",
        "node_running": "#eef3ff",
        "node_done": "#e8f5ec",
        "node_failed": "#fdecec",
        "node_waiting": "#fdf3e3",
        "node_skipped": "#f5f5f4",
        "node_text": "#1c1917",
        "edge": "#8a847e",
        "shadow": "#1c1917",  # drawn at low alpha under floating surfaces (theme.elevate) and as the scrim
    },
)

# Dark is warm charcoal, not black.
DARK = Palette(
    "dark",
    {
        "window": "#1b1a19",
        "surface": "#232221",
        "surface_alt": "#2c2b29",
        "sidebar": "#161514",
        "sunken": "#1f1e1d",
        "border": "#33312e",
        "border_strong": "#46433f",
        "indicator": "#8a847e",  # not in the design: --border-strong is 1.6:1 on the surface, too faint (3:1)
        "text": "#eceae7",
        "muted": "#a39e98",
        "faint": "#94918d",  # design #6f6a65 is 3.2:1 on the surface; lightened to 4.5:1 on the user bubble
        "accent": "#6b9bfa",
        "accent_text": "#0b1220",
        "accent_soft": "#1e2a44",
        "accent_line": "#2f4575",
        "link": "#6b9bfa",
        "selection": "#26324d",  # the design's --accent-line carries muted text at 3.5:1; a darker blue
        "user_bubble": "#2c2b29",
        "success": "#4ade80",
        "warning": "#f5b454",
        "danger": "#f87171",
        "info": "#93c5fd",
        "success_bg": "#16301f",
        "warning_bg": "#35291a",
        "danger_bg": "#3a1f1f",
        "info_bg": "#1e2a44",
        "diff_add_bg": "#16301f",
        "diff_add_text": "#86efac",
        "diff_remove_bg": "#3a1f1f",
        "diff_remove_text": "#fca5a5",
        "code_bg": "#1a1918",
        "code_text": "#e7e5e4",
        "code_keyword": "#c4a7ff",
        "code_string": "#6ee7b7",
        "code_function": "#93c5fd",
        "code_comment": "#8f8982",  # design --com #7e7871 is 4.0:1 on the code background; lightened to 4.5:1
        "terminal_bg": "#121110",
        "terminal_text": "#e7e5e4",
        "node_idle": "#2c2b29",
        "node_running": "#1e2a44",
        "node_done": "#16301f",
        "node_failed": "#3a1f1f",
        "node_waiting": "#35291a",
        "node_skipped": "#232221",
        "node_text": "#eceae7",
        "edge": "#7e7871",
        "shadow": "#000000",
    },
)

PALETTES: Mapping[str, Palette] = MappingProxyType({LIGHT.name: LIGHT, DARK.name: DARK})

# Pygments styles whose every token colour reads at 4.5:1 on the palette's code_bg
# (tests/ui/test_contrast.py); views paint code_bg behind them, not the style's own background.
_PYGMENTS = {"light": "xcode", "dark": "one-dark"}


def pygments_style_name(palette: Palette) -> str:
    """The Pygments style to highlight code with on ``palette``'s code background."""
    return _PYGMENTS[palette.name]
