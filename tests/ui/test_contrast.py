"""Every text/background pair of both palettes is readable (WCAG 2.x contrast).

The ratio is computed here from the WCAG definition, not imported from the
code under test: relative luminance of sRGB channels, (L1 + 0.05) / (L2 + 0.05).
Body text needs 4.5:1; large text, icons and graphical objects (graph edges,
the accent as a focus ring) need 3:1.
"""

from __future__ import annotations

import re

import pytest

from relavium_desktop.ui.theme.palette import DARK, LIGHT, ROLES, Palette, pygments_style_name
from relavium_desktop.ui.theme.stylesheet import INDICATOR_ROLES, build_stylesheet, indicator_svgs

STATES = ("success", "warning", "danger", "info")
# The design's backgrounds that carry body text: the window, cards, the sidebar, wells, hovered rows.
GROUNDS = ("window", "surface", "surface_alt", "sidebar", "sunken")

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
    ("accent", "sidebar"),
    ("edge", "sidebar"),
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


# -- check boxes and radio buttons ------------------------------------------------------------

INDICATOR_GROUNDS = ("surface", "window", "sidebar", "sunken", "surface_alt")


@pytest.mark.parametrize("palette", [LIGHT, DARK], ids=lambda p: p.name)
def test_check_box_and_radio_indicators_are_visible(palette: Palette) -> None:
    """WCAG 1.4.11: a control's edge and its checked state must read at 3:1."""
    border, fill, mark = (palette[INDICATOR_ROLES[key]] for key in ("border", "fill", "mark"))
    low = [(ground, round(ratio(border, palette[ground]), 2)) for ground in INDICATOR_GROUNDS
           if ratio(border, palette[ground]) < 3]
    low += [(f"fill on {ground}", round(ratio(fill, palette[ground]), 2)) for ground in INDICATOR_GROUNDS
            if ratio(fill, palette[ground]) < 3]
    assert low == []
    assert ratio(mark, fill) >= 3, "the check or dot on the accent fill"


def _probe_palette() -> Palette:
    """Every role a different colour, so a colour in the sheet names the one role it came from."""
    return Palette("probe", {role: f"#{index + 1:06x}" for index, role in enumerate(ROLES)})


def _role_of(colour: str) -> str:
    return ROLES[int(colour[1:], 16) - 1]


def _rule(sheet: str, selector: str) -> str:
    """The body of the first rule whose selector list names ``selector`` exactly."""
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", sheet):
        if selector in (part.strip() for part in selectors.split(",")):
            return body
    raise AssertionError(f"no rule for {selector}")


def _colours(body: str, prop: str) -> list[str]:
    return [_role_of(c) for c in re.findall(rf"(?:^|;|\s){prop}\s*:[^;]*?(#[0-9a-f]{{6}})", body)]


def test_the_sheet_draws_the_indicators_with_the_roles_checked_above() -> None:
    """Changing the sheet to other roles (e.g. the faint --border-strong) must fail here."""
    probe = _probe_palette()
    images = {"check": "/x/check.svg", "dash": "/x/dash.svg"}
    sheet = build_stylesheet(probe, 10, images)
    for widget in ("QCheckBox", "QRadioButton"):
        assert _colours(_rule(sheet, f"{widget}::indicator"), "border") == [INDICATOR_ROLES["border"]], widget
    assert _colours(_rule(sheet, "QCheckBox::indicator:checked"), "background") == [INDICATOR_ROLES["fill"]]
    radio_on = _rule(sheet, "QRadioButton::indicator:checked")
    assert _colours(radio_on, "border") == [INDICATOR_ROLES["fill"]]
    assert _colours(radio_on, "background") == [INDICATOR_ROLES["mark"]]  # the dot
    assert "/x/check.svg" in sheet and "/x/dash.svg" in sheet
    marks = indicator_svgs(probe)
    for name in ("check", "dash"):
        assert [_role_of(c) for c in re.findall(r'stroke="(#[0-9a-f]{6})"', marks[name])] == [INDICATOR_ROLES["mark"]]


def test_the_sheet_uses_the_checked_roles_for_text_it_colours() -> None:
    """The sheet's text colours for the design's variants are roles this file checks."""
    probe = _probe_palette()
    sheet = build_stylesheet(probe, 10)
    assert _colours(_rule(sheet, 'QPushButton[variant="primary"]'), "color") == ["accent_text"]
    assert _colours(_rule(sheet, 'QPushButton[variant="primary"]'), "background") == ["accent"]
    assert _colours(_rule(sheet, '*[variant="group-label"]'), "color") == ["faint"]
    assert _colours(_rule(sheet, '*[variant="count"]'), "color") == ["warning"]
    assert _colours(_rule(sheet, '*[variant="count"]'), "background") == ["warning_bg"]
    assert _colours(_rule(sheet, 'QPushButton[variant="segment"]:checked'), "color") == ["link"]
    assert _colours(_rule(sheet, 'QPushButton[variant="segment"]:checked'), "background") == ["accent_soft"]
    assert _colours(_rule(sheet, "QHeaderView::section"), "color") == ["muted"]
    assert _colours(_rule(sheet, '*[surface="bubble"]'), "background") == ["user_bubble"]
