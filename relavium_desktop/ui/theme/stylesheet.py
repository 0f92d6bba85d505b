"""The application stylesheet, built from a palette (pure string work, no Qt).

One sheet on the QApplication styles every widget, so views never carry a
colour: they mark a widget with a dynamic property (``tone`` for its text,
``surface`` for its background and border -- see
:func:`relavium_desktop.ui.theme.set_tone`) and the selectors below give it
the current palette's colours.  Rebuilding the sheet on a theme switch is
therefore enough to recolour every open view.
"""

from __future__ import annotations

from collections.abc import Mapping

from relavium_desktop.ui.theme import tokens
from relavium_desktop.ui.theme.palette import Palette

# tone -> palette role of the text colour
TONES: dict[str, str] = {
    "muted": "muted",
    "success": "success",
    "warning": "warning",
    "danger": "danger",
    "info": "info",
    "accent": "link",  # accent-coloured *text* uses the link role: it is the one tuned for body-size contrast
}
# Heading tones: sizes relative to the body text, in the text colour.
HEADING_SCALE = {"heading": 1.3, "title": 1.6}
# surface -> (background role, border role, text role)
SURFACES: dict[str, tuple[str, str, str]] = {
    "card": ("surface", "border", "text"),
    "code": ("code_bg", "border", "code_text"),
    "terminal": ("terminal_bg", "terminal_bg", "terminal_text"),
    "banner-danger": ("danger_bg", "danger", "text"),
    "banner-warning": ("warning_bg", "warning", "text"),
    "banner-info": ("info_bg", "info", "text"),
    "banner-success": ("success_bg", "success", "text"),
    "sidebar": ("sidebar", "border", "text"),
    "sunken": ("sunken", "border", "text"),
    "bubble": ("user_bubble", "user_bubble", "text"),
    "composer": ("surface", "border_strong", "text"),
    "sheet": ("surface", "border", "text"),
    "accent-soft": ("accent_soft", "accent_line", "text"),
}


# variant -> what it is for.  Views mark a control with ``set_variant(widget, name)`` and the
# sheet gives it the design's look; a view never spells a colour, radius or padding of its own.
VARIANTS: dict[str, str] = {
    "primary": "the one primary button of a surface (accent fill)",
    "secondary": "an outlined button (the default look of a button, said explicitly)",
    "ghost": "a borderless button (toolbar actions, 'Skip', chevrons)",
    "danger": "a refusing or destructive button: danger text, outlined",
    "chip": "a pill: the top bar's project and mode, the composer's model",
    "nav": "a sidebar place (Chats, Workflows, Activity): checkable, 'on' when checked",
    "count": "a small pill beside a nav place ('1 waiting')",
    "group-label": "an uppercase caption over a group (TODAY, YESTERDAY)",
    "caption": "12 px secondary text",
    "title": "a surface's title: 15-17 px semibold",
    "mono": "a path, command or id in the mono font",
    "kbd": "a keyboard hint box (Ctrl N, Enter, 1-9)",
    "segment": "one button of a segmented choice (checkable, in an exclusive group)",
    "tile": "a numbered action tile of the quick panel (checkable)",
    "send": "the composer's round send button",
    "list-row": "a selectable row of a list built from widgets (workflow list, chat list)",
}


# surface -> corner radius in px (Qt CSS cannot round corners one by one in a useful way,
# so the bubble's 18/18/4/18 is a plain 16).
_SURFACE_RADIUS: dict[str, int] = {
    "card": tokens.RADIUS_CARD,
    "code": 10,
    "terminal": 10,
    "banner-danger": 10,
    "banner-warning": 10,
    "banner-info": 10,
    "banner-success": 10,
    "sidebar": 0,
    "sunken": tokens.RADIUS_CONTROL,
    "bubble": tokens.RADIUS_COMPOSER,
    "composer": tokens.RADIUS_COMPOSER,
    "sheet": 14,
    "accent-soft": tokens.RADIUS_CONTROL,
}
# The palette roles the check box and radio indicators are drawn with; tests/ui/test_contrast.py
# holds each pair to 3:1 and checks the sheet really uses these roles.
INDICATOR_ROLES: dict[str, str] = {
    "border": "indicator",  # the box or circle's edge, against the surface it sits on
    "fill": "accent",  # the box or circle when checked
    "mark": "accent_text",  # the check, dash or dot on the fill
}
MONO_FAMILY = "JetBrains Mono"  # the shipped mono face (theme/fonts.py registers it)


def _pt(font_pt: int, px: float) -> str:
    """A size of the design's type scale (in px at a 14 px body) relative to the body's ``font_pt``."""
    return f"{font_pt * px / tokens.TYPE_BODY_PX:.1f}pt"


def _widgets(p: Palette, font_pt: int) -> str:
    r = tokens.RADIUS_CONTROL
    return f"""
QMainWindow, QDialog {{ background: {p["window"]}; color: {p["text"]}; }}
QToolTip {{
    background: {p["surface"]}; color: {p["text"]}; border: 1px solid {p["border_strong"]};
    border-radius: 6px; padding: 4px 8px;
}}

QWidget#header {{ background: {p["surface"]}; border-bottom: 1px solid {p["border"]}; }}
QListWidget#nav {{
    background: {p["sidebar"]}; border: none; border-right: 1px solid {p["border"]};
    padding-top: 6px; outline: 0;
}}
QListWidget#nav::item {{ color: {p["text"]}; padding: 7px 10px; margin: 1px 6px; border-radius: {r}px; }}
QListWidget#nav::item:hover {{ background: {p["surface"]}; }}
QListWidget#nav::item:selected {{ background: {p["surface"]}; color: {p["text"]}; border: 1px solid {p["border"]}; }}

QPushButton, QToolButton {{
    background: {p["surface"]}; color: {p["text"]};
    border: 1px solid {p["border_strong"]}; border-radius: {r}px; padding: 7px 12px; font-weight: 500;
}}
QToolButton {{ padding: 5px 8px; }}
QPushButton:hover, QToolButton:hover {{ background: {p["surface_alt"]}; }}
QPushButton:pressed, QToolButton:pressed, QToolButton:checked {{ background: {p["sunken"]}; border-color: {p["indicator"]}; }}
QPushButton:focus, QToolButton:focus {{ border-color: {p["accent"]}; }}
QPushButton:disabled, QToolButton:disabled {{ color: {p["faint"]}; background: {p["surface_alt"]}; border-color: {p["border"]}; }}
QPushButton:default {{ background: {p["accent"]}; color: {p["accent_text"]}; border-color: {p["accent"]}; }}
QPushButton:default:hover {{ border-color: {p["accent_line"]}; }}
QPushButton:default:disabled {{ background: {p["surface_alt"]}; color: {p["faint"]}; border-color: {p["border"]}; }}
QToolButton::menu-indicator {{ image: none; width: 0; }}

QLineEdit, QPlainTextEdit, QTextEdit, QTextBrowser, QComboBox, QSpinBox, QDoubleSpinBox {{
    background: {p["surface"]}; color: {p["text"]};
    border: 1px solid {p["border_strong"]}; border-radius: {r}px; padding: 6px 10px;
    selection-background-color: {p["selection"]}; selection-color: {p["text"]};
}}
QTextBrowser {{ border-color: {p["border"]}; }}
/* The focus ring: a 2 px accent edge, the padding one less so the text does not move. */
QLineEdit:focus, QPlainTextEdit:focus, QTextEdit:focus, QComboBox:focus, QSpinBox:focus, QDoubleSpinBox:focus {{
    border: 2px solid {p["accent"]}; padding: 5px 9px;
}}
QLineEdit:disabled, QPlainTextEdit:disabled, QComboBox:disabled, QSpinBox:disabled {{
    color: {p["faint"]}; background: {p["surface_alt"]}; border-color: {p["border"]};
}}
QComboBox QAbstractItemView {{
    background: {p["surface"]}; color: {p["text"]}; border: 1px solid {p["border"]};
    selection-background-color: {p["selection"]}; selection-color: {p["text"]}; outline: 0; padding: 4px;
}}

QListWidget, QListView, QTreeView, QTableView, QTableWidget {{
    background: {p["surface"]}; color: {p["text"]}; border: 1px solid {p["border"]}; border-radius: {r}px;
    alternate-background-color: {p["surface_alt"]}; gridline-color: transparent;
    selection-background-color: {p["selection"]}; selection-color: {p["text"]}; outline: 0;
}}
QListView::item, QTreeView::item {{ padding: 4px 6px; border-radius: 6px; }}
QListView::item:hover, QTreeView::item:hover {{ background: {p["surface_alt"]}; }}
QListView::item:selected, QTreeView::item:selected {{ background: {p["selection"]}; color: {p["text"]}; }}
/* Tables: no grid, a hairline under each row. */
QTableView::item {{ padding: 6px 12px; border: none; border-bottom: 1px solid {p["border"]}; }}
QTableView::item:selected {{ background: {p["selection"]}; color: {p["text"]}; }}
QHeaderView {{ background: {p["surface"]}; border: none; }}
QHeaderView::section {{
    background: {p["surface"]}; color: {p["muted"]}; border: none;
    border-bottom: 1px solid {p["border_strong"]}; padding: 6px 12px;
    font-size: {_pt(font_pt, 12.5)}; font-weight: 600;
}}
QTableCornerButton::section {{ background: {p["surface"]}; border: none; }}

QTabWidget::pane {{ border: none; border-top: 1px solid {p["border"]}; background: {p["window"]}; top: -1px; }}
QTabBar::tab {{
    background: transparent; color: {p["muted"]}; padding: 8px 12px; margin-right: 4px;
    border: none; border-bottom: 2px solid transparent; font-weight: 500;
}}
QTabBar::tab:hover {{ color: {p["text"]}; }}
QTabBar::tab:selected {{ color: {p["text"]}; border-bottom: 2px solid {p["accent"]}; }}

QMenu {{
    background: {p["surface"]}; color: {p["text"]}; border: 1px solid {p["border"]};
    border-radius: {r}px; padding: 4px;
}}
QMenu::item {{ padding: 6px 24px 6px 12px; border-radius: 6px; }}
QMenu::item:selected {{ background: {p["accent_soft"]}; }}
QMenu::item:disabled {{ color: {p["faint"]}; }}
QMenu::separator {{ height: 1px; background: {p["border"]}; margin: 4px 8px; }}

QGroupBox {{ border: none; margin-top: 24px; padding-top: 4px; font-weight: 600; }}
QGroupBox::title {{ subcontrol-origin: margin; left: 0; padding: 0; color: {p["text"]}; }}
QSplitter::handle {{ background: {p["border"]}; }}
QSplitter::handle:horizontal {{ width: 1px; }}
QSplitter::handle:vertical {{ height: 1px; }}
QScrollArea {{ border: none; background: transparent; }}

QScrollBar:vertical {{ background: transparent; width: 8px; margin: 0; }}
QScrollBar:horizontal {{ background: transparent; height: 8px; margin: 0; }}
QScrollBar::handle {{ background: {p["border_strong"]}; border-radius: 3px; min-height: 24px; min-width: 24px; margin: 1px; }}
QScrollBar::handle:hover {{ background: {p["indicator"]}; }}
QScrollBar::add-line, QScrollBar::sub-line {{ width: 0; height: 0; }}
QScrollBar::add-page, QScrollBar::sub-page {{ background: none; }}
"""


def _indicators(p: Palette, images: Mapping[str, str]) -> str:
    """Check boxes and radio buttons: a clearly drawn box in both themes, accent when checked."""
    edge, fill, mark = (p[INDICATOR_ROLES[key]] for key in ("border", "fill", "mark"))
    boxes = "QCheckBox::indicator, QAbstractItemView::indicator, QGroupBox::indicator"
    rules = [
        f"{boxes}, QRadioButton::indicator {{ width: 16px; height: 16px; border: 1px solid {edge}; "
        f"background: {p['surface']}; }}",
        f"{boxes} {{ border-radius: 4px; }}",
        "QRadioButton::indicator { border-radius: 9px; }",
        f"QCheckBox::indicator:hover, QRadioButton::indicator:hover {{ border-color: {fill}; }}",
        f"QCheckBox::indicator:checked, QAbstractItemView::indicator:checked, QGroupBox::indicator:checked, "
        f"QCheckBox::indicator:indeterminate {{ background: {fill}; border-color: {fill}; }}",
        # The radio's dot is its own background showing through a thick accent ring.
        f"QRadioButton::indicator:checked {{ background: {mark}; border: 5px solid {fill}; width: 8px; height: 8px; }}",
        f"QCheckBox::indicator:disabled, QRadioButton::indicator:disabled {{ border-color: {p['border_strong']}; "
        f"background: {p['surface_alt']}; }}",
        f"QRadioButton::indicator:checked:disabled {{ background: {p['surface_alt']}; border-color: {p['border_strong']}; }}",
        f"QCheckBox::indicator:checked:disabled {{ background: {p['border_strong']}; border-color: {p['border_strong']}; }}",
    ]
    if "check" in images:
        rules.append(
            f"QCheckBox::indicator:checked, QAbstractItemView::indicator:checked, "
            f"QGroupBox::indicator:checked {{ image: url({images['check']}); }}"
        )
    if "chevron-down" in images:
        # A styled combo or spin box loses Fusion's arrows; these put the design's chevrons back.
        rules += [
            "QComboBox::drop-down { subcontrol-origin: padding; subcontrol-position: center right; "
            "width: 20px; border: none; }",
            f"QComboBox::down-arrow {{ image: url({images['chevron-down']}); width: 12px; height: 12px; }}",
            "QSpinBox::up-button, QSpinBox::down-button, QDoubleSpinBox::up-button, QDoubleSpinBox::down-button "
            "{ subcontrol-origin: border; width: 18px; border: none; background: transparent; }",
            "QSpinBox::up-button, QDoubleSpinBox::up-button { subcontrol-position: top right; }",
            "QSpinBox::down-button, QDoubleSpinBox::down-button { subcontrol-position: bottom right; }",
            f"QSpinBox::up-arrow, QDoubleSpinBox::up-arrow {{ image: url({images['chevron-up']}); "
            "width: 10px; height: 10px; }",
            f"QSpinBox::down-arrow, QDoubleSpinBox::down-arrow {{ image: url({images['chevron-down']}); "
            "width: 10px; height: 10px; }",
        ]
    if "dash" in images:
        rules.append(f"QCheckBox::indicator:indeterminate {{ image: url({images['dash']}); }}")
    return "\n".join(rules)


def indicator_svgs(p: Palette) -> dict[str, str]:
    """The check and dash marks (mark colour) and the combo/spin chevrons (muted) as SVG documents.

    Qt style sheets take an image only as a file, so the theme writes these out.
    """

    def stroke(colour: str) -> str:
        return (
            f'fill="none" stroke="{colour}" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"'
        )

    mark, chevron = stroke(p[INDICATOR_ROLES["mark"]]), stroke(p["muted"])
    head = '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16">'
    return {
        "check": f'{head}<path d="M4 8.5l2.5 2.5L12 5.5" {mark}/></svg>',
        "dash": f'{head}<path d="M4.5 8h7" {mark}/></svg>',
        "chevron-down": f'{head}<path d="M4 6l4 4 4-4" {chevron}/></svg>',
        "chevron-up": f'{head}<path d="M4 10l4-4 4 4" {chevron}/></svg>',
    }


def _properties(p: Palette, font_pt: int) -> str:
    rules: list[str] = []
    for tone, role in TONES.items():
        rules.append(f'*[tone="{tone}"] {{ color: {p[role]}; }}')
    for tone, scale in HEADING_SCALE.items():
        rules.append(
            f'*[tone="{tone}"] {{ color: {p["text"]}; font-size: {round(font_pt * scale)}pt; font-weight: 600; }}'
        )
    for surface, (background, border, text) in SURFACES.items():
        padding = " padding: 8px 12px;" if surface.startswith("banner") else ""
        edge = f"border: 1px solid {p[border]};"
        if surface == "sidebar":
            edge = f"border: none; border-right: 1px solid {p[border]};"
        elif surface == "bubble":
            edge = "border: none;"
        rules.append(
            f'*[surface="{surface}"] {{ background: {p[background]}; color: {p[text]}; '
            f"{edge} border-radius: {_SURFACE_RADIUS[surface]}px;{padding} }}"
        )
    # The mono face on the surface and on the text views inside it (a sheet's font does not
    # reach children by itself); the code block's header labels keep the interface face.
    mono_targets = ", ".join(
        f'*[surface="{surface}"]{inner}'
        for surface in ("code", "terminal")
        for inner in ("", " QPlainTextEdit", " QTextEdit")
    )
    rules.append(
        f'{mono_targets} {{ font-family: "{MONO_FAMILY}"; font-size: {_pt(font_pt, tokens.TYPE_MONO_PX)}; }}'
    )
    # Lists in the sidebar sit on it (no card around them); a selected row is the soft accent.
    side = '*[surface="sidebar"]'
    rules += [
        f"{side} QListView, {side} QListWidget, {side} QTreeView {{ background: transparent; border: none; }}",
        f"{side} QListView::item, {side} QTreeView::item {{ border-radius: {tokens.RADIUS_CONTROL}px; }}",
        f"{side} QListView::item:hover, {side} QTreeView::item:hover {{ background: {p['surface']}; }}",
        f"{side} QListView::item:selected, {side} QTreeView::item:selected {{ "
        f"background: {p['accent_soft']}; color: {p['text']}; }}",
    ]
    rules.extend(_variants(p, font_pt))
    return "\n".join(rules)


def _variants(p: Palette, font_pt: int) -> list[str]:
    """The design's control variants (mockups/tokens.css: .btn, .chip, .nav, .scope, kbd, ...)."""
    r = tokens.RADIUS_CONTROL

    def b(name: str, state: str = "") -> str:
        return ", ".join(f'{kind}[variant="{name}"]{state}' for kind in ("QPushButton", "QToolButton"))

    first, middle, last = ('[position="first"]', '[position="middle"]', '[position="last"]')
    return [
        # Buttons: secondary is the plain button said explicitly; primary is the accent fill.
        f"{b('secondary')} {{ background: {p['surface']}; color: {p['text']}; border: 1px solid {p['border_strong']}; "
        f"border-radius: {r}px; padding: 7px 12px; }}",
        f"{b('secondary', ':hover')} {{ background: {p['surface_alt']}; }}",
        f"{b('primary')} {{ background: {p['accent']}; color: {p['accent_text']}; border: 1px solid {p['accent']}; "
        f"border-radius: {r}px; padding: 7px 12px; font-weight: 600; }}",
        f"{b('primary', ':hover')} {{ border-color: {p['accent_line']}; }}",
        f"{b('primary', ':focus')} {{ border-color: {p['text']}; }}",
        f"{b('primary', ':disabled')} {{ background: {p['surface_alt']}; color: {p['faint']}; border-color: {p['border']}; }}",
        f"{b('ghost')} {{ background: transparent; border: 1px solid transparent; color: {p['muted']}; "
        f"border-radius: {r}px; padding: 7px 12px; }}",
        f"{b('ghost', ':hover')} {{ background: {p['surface_alt']}; color: {p['text']}; }}",
        f"{b('ghost', ':focus')} {{ border-color: {p['accent']}; }}",
        f"{b('danger')} {{ background: {p['surface']}; color: {p['danger']}; border: 1px solid {p['border_strong']}; "
        f"border-radius: {r}px; padding: 7px 12px; }}",
        f"{b('danger', ':hover')} {{ background: {p['danger_bg']}; border-color: {p['danger']}; }}",
        # A pill: Qt clamps nothing, so the radius is half a chip's height, not 999.
        f'*[variant="chip"] {{ background: {p["surface"]}; color: {p["text"]}; border: 1px solid {p["border"]}; '
        f"border-radius: 12px; padding: 4px 10px; font-size: {_pt(font_pt, 12.5)}; font-weight: 500; }}",
        f"{b('chip', ':hover')} {{ background: {p['surface_alt']}; }}",
        f"{b('nav')} {{ background: transparent; border: 1px solid transparent; border-radius: {r}px; "
        f"padding: 7px 10px; text-align: left; color: {p['text']}; font-weight: 500; }}",
        f"{b('nav', ':hover')} {{ background: {p['surface']}; }}",
        f"{b('nav', ':checked')} {{ background: {p['surface']}; border-color: {p['border']}; }}",
        f'*[variant="count"] {{ color: {p["warning"]}; background: {p["warning_bg"]}; border-radius: 9px; '
        f"padding: 0 7px; font-size: {_pt(font_pt, 12)}; font-weight: 600; }}",
        f'*[variant="group-label"] {{ color: {p["faint"]}; font-size: {_pt(font_pt, 11.5)}; font-weight: 600; }}',
        f'*[variant="caption"] {{ color: {p["muted"]}; font-size: {_pt(font_pt, tokens.TYPE_CAPTION_PX)}; }}',
        f'*[variant="title"] {{ color: {p["text"]}; font-size: {_pt(font_pt, tokens.TYPE_TITLE_PX)}; font-weight: 600; }}',
        f'*[variant="mono"] {{ font-family: "{MONO_FAMILY}"; font-size: {_pt(font_pt, tokens.TYPE_MONO_PX)}; }}',
        f'*[variant="kbd"] {{ color: {p["muted"]}; background: transparent; border: 1px solid {p["border_strong"]}; '
        f"border-bottom-width: 2px; border-radius: 5px; padding: 0 5px; font-size: {_pt(font_pt, 11)}; }}",
        # The segmented control: one outline, rounded at the ends (position="first|middle|last").
        f"{b('segment')} {{ background: {p['surface']}; color: {p['text']}; border: 1px solid {p['border_strong']}; "
        f"border-radius: 0; padding: 6px 12px; font-size: {_pt(font_pt, 13)}; font-weight: 500; }}",
        f"{b('segment', middle)}, {b('segment', last)} {{ border-left: none; }}",
        f"{b('segment', first)} {{ border-top-left-radius: {r}px; border-bottom-left-radius: {r}px; }}",
        f"{b('segment', last)} {{ border-top-right-radius: {r}px; border-bottom-right-radius: {r}px; }}",
        f"{b('segment', ':hover')} {{ background: {p['surface_alt']}; }}",
        f"{b('segment', ':checked')} {{ background: {p['accent_soft']}; color: {p['link']}; }}",
        f"{b('tile')} {{ background: {p['surface']}; color: {p['text']}; border: 1px solid {p['border']}; "
        f"border-radius: 10px; padding: 10px 12px; text-align: left; font-weight: 500; }}",
        f"{b('tile', ':hover')} {{ border-color: {p['border_strong']}; }}",
        f"{b('tile', ':checked')} {{ background: {p['accent_soft']}; border-color: {p['accent']}; }}",
        f"{b('send')} {{ background: {p['accent']}; color: {p['accent_text']}; border: none; border-radius: 10px; "
        "padding: 0; min-width: 32px; max-width: 32px; min-height: 32px; max-height: 32px; }",
        f"{b('send', ':disabled')} {{ background: {p['surface_alt']}; color: {p['faint']}; }}",
        f'*[variant="list-row"] {{ background: transparent; border: none; border-radius: {r}px; color: {p["text"]}; }}',
        f'*[variant="list-row"]:hover {{ background: {p["surface_alt"]}; }}',
        f'*[variant="list-row"][selected="true"] {{ background: {p["accent_soft"]}; }}',
    ]


def build_stylesheet(palette: Palette, font_pt: int, images: Mapping[str, str] | None = None) -> str:
    """The whole application sheet for ``palette`` with body text of ``font_pt`` points.

    ``images`` names the files of the indicator marks (:func:`indicator_svgs`
    written out by the theme); without them a checked box is still filled
    with the accent, only its mark is missing.
    """
    return (
        _widgets(palette, font_pt)
        + _indicators(palette, images or {})
        + "\n"
        + _properties(palette, font_pt)
        + "\n"
    )
