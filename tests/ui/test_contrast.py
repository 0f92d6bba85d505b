"""Every text/background pair of both palettes is readable (WCAG 2.x contrast).

The ratio is computed here from the WCAG definition, not imported from the
code under test: relative luminance of sRGB channels, (L1 + 0.05) / (L2 + 0.05).
Body text needs 4.5:1; large text, icons and graphical objects (graph edges,
the accent as a focus ring) need 3:1.
"""

from __future__ import annotations

import pytest

from relavium_desktop.ui.theme.palette import DARK, LIGHT, ROLES, Palette, pygments_style_name

STATES = ("success", "warning", "danger", "info")

# (text role, background role) pairs views put together, body-size.
BODY_PAIRS = [
    *[("text", bg) for bg in ("window", "surface", "surface_alt", "selection", "code_bg")],
    *[(fg, bg) for bg in ("window", "surface", "surface_alt")
      for fg in ("muted", "link", *STATES)],
    *[(fg, f"{state}_bg") for state in STATES for fg in (state, "text", "muted")],
    ("muted", "selection"),
    ("link", "code_bg"),
    ("muted", "code_bg"),  # diff file headers
    ("info", "code_bg"),  # diff hunk headers
    ("accent_text", "accent"),
    ("diff_add_text", "diff_add_bg"),
    ("diff_remove_text", "diff_remove_bg"),
    ("code_text", "code_bg"),
    ("terminal_text", "terminal_bg"),
    *[("node_text", f"node_{state}") for state in ("idle", "running", "done", "failed", "waiting", "skipped")],
]
# Large text, icons and graphical objects.
LARGE_PAIRS = [
    ("accent", "window"),
    ("accent", "surface"),
    ("accent", "surface_alt"),
    ("edge", "window"),
    ("edge", "surface"),
    # The tray badges: a letter on a badge.
    ("surface", "edge"),
    ("window", "warning"),
]


def _channel(value: int) -> float:
    c = value / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def luminance(colour: str) -> float:
    assert len(colour) == 7 and colour.startswith("#"), colour
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * _channel(r) + 0.7152 * _channel(g) + 0.0722 * _channel(b)


def ratio(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_formula_matches_known_values() -> None:
    assert ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert ratio("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)  # the classic just-failing grey
    assert ratio("#ffffff", "#ffffff") == pytest.approx(1.0)


@pytest.mark.parametrize("palette", [LIGHT, DARK], ids=lambda p: p.name)
def test_body_text_pairs_reach_4_5(palette: Palette) -> None:
    low = [(fg, bg, round(ratio(palette[fg], palette[bg]), 2)) for fg, bg in BODY_PAIRS
           if ratio(palette[fg], palette[bg]) < 4.5]
    assert low == []


@pytest.mark.parametrize("palette", [LIGHT, DARK], ids=lambda p: p.name)
def test_large_text_and_icon_pairs_reach_3(palette: Palette) -> None:
    low = [(fg, bg, round(ratio(palette[fg], palette[bg]), 2)) for fg, bg in LARGE_PAIRS
           if ratio(palette[fg], palette[bg]) < 3]
    assert low == []


@pytest.mark.parametrize("palette", [LIGHT, DARK], ids=lambda p: p.name)
def test_highlighted_code_reads_on_the_code_background(palette: Palette) -> None:
    from pygments.styles import get_style_by_name

    style = get_style_by_name(pygments_style_name(palette))
    colours = {f"#{spec['color']}" for _token, spec in style if spec["color"]}
    assert colours
    low = sorted((c, round(ratio(c, palette["code_bg"]), 2)) for c in colours if ratio(c, palette["code_bg"]) < 4.5)
    assert low == []


def test_every_role_is_set_in_both_palettes_and_they_differ() -> None:
    for palette in (LIGHT, DARK):
        assert [palette[role] for role in ROLES]  # KeyError for a missing role
    assert luminance(LIGHT["window"]) > 0.8 > 0.05 > luminance(DARK["window"])
