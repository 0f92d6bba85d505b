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


LIGHT = Palette("light", {
    "window": "#f6f5f2",
    "surface": "#ffffff",
    "surface_alt": "#edece8",
    "border": "#d9d7d0",
    "text": "#1f1e1c",
    "muted": "#5c5a55",
    "accent": "#3b5bcc",
    "accent_text": "#ffffff",
    "link": "#2f4fb5",
    "selection": "#dce3f8",
    "success": "#1d6b3a",
    "warning": "#7f5200",
    "danger": "#b1261b",
    "info": "#1f5a9e",
    "success_bg": "#e3f2e7",
    "warning_bg": "#fbf0d6",
    "danger_bg": "#fbe7e4",
    "info_bg": "#e5eefa",
    "diff_add_bg": "#e3f2e7",
    "diff_add_text": "#175a30",
    "diff_remove_bg": "#fbe7e4",
    "diff_remove_text": "#9a1f15",
    "code_bg": "#f4f3f0",
    "code_text": "#1f1e1c",
    "terminal_bg": "#1d1d1b",
    "terminal_text": "#e8e7e3",
    "node_idle": "#ffffff",
    "node_running": "#dce3f8",
    "node_done": "#e3f2e7",
    "node_failed": "#fbe7e4",
    "node_waiting": "#fbf0d6",
    "node_skipped": "#edece8",
    "node_text": "#1f1e1c",
    "edge": "#85837c",
    "sidebar": "#f3f2ef",
    "sunken": "#f5f5f4",
    "border_strong": "#d6d3d1",
    "faint": "#6f6a65",
    "accent_soft": "#eef3ff",
    "accent_line": "#c7d7fe",
    "user_bubble": "#efede9",
})

DARK = Palette("dark", {
    "window": "#1b1b1a",
    "surface": "#242423",
    "surface_alt": "#2d2d2b",
    "border": "#3f3e3b",
    "text": "#ecebe7",
    "muted": "#a7a59f",
    "accent": "#8ca6f4",
    "accent_text": "#141821",
    "link": "#9fb5f7",
    "selection": "#2f3a5a",
    "success": "#72cc8e",
    "warning": "#e5b84f",
    "danger": "#f28b80",
    "info": "#8ab6f6",
    "success_bg": "#1e3025",
    "warning_bg": "#372d14",
    "danger_bg": "#3b201d",
    "info_bg": "#1d2a3d",
    "diff_add_bg": "#1e3025",
    "diff_add_text": "#a9e5ba",
    "diff_remove_bg": "#3b201d",
    "diff_remove_text": "#f5b4ac",
    "code_bg": "#161615",
    "code_text": "#e6e5e1",
    "terminal_bg": "#111110",
    "terminal_text": "#e6e5e1",
    "node_idle": "#2d2d2b",
    "node_running": "#2f3a5a",
    "node_done": "#1e3025",
    "node_failed": "#3b201d",
    "node_waiting": "#372d14",
    "node_skipped": "#242423",
    "node_text": "#ecebe7",
    "edge": "#85837c",
    "sidebar": "#161514",
    "sunken": "#1f1e1d",
    "border_strong": "#46433f",
    "faint": "#a39e98",
    "accent_soft": "#1e2a44",
    "accent_line": "#2f4575",
    "user_bubble": "#2c2b29",
})

PALETTES: Mapping[str, Palette] = MappingProxyType({LIGHT.name: LIGHT, DARK.name: DARK})

# Pygments styles whose every token colour reads at 4.5:1 on the palette's code_bg
# (tests/ui/test_contrast.py); views paint code_bg behind them, not the style's own background.
_PYGMENTS = {"light": "xcode", "dark": "one-dark"}


def pygments_style_name(palette: Palette) -> str:
    """The Pygments style to highlight code with on ``palette``'s code background."""
    return _PYGMENTS[palette.name]
