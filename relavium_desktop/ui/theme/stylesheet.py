"""The application stylesheet, built from a palette (pure string work, no Qt).

One sheet on the QApplication styles every widget, so views never carry a
colour: they mark a widget with a dynamic property (``tone`` for its text,
``surface`` for its background and border -- see
:func:`relavium_desktop.ui.theme.set_tone`) and the selectors below give it
the current palette's colours.  Rebuilding the sheet on a theme switch is
therefore enough to recolour every open view.
"""

from __future__ import annotations

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


def _widgets(p: Palette) -> str:
    return f"""
QMainWindow, QDialog {{ background: {p['window']}; color: {p['text']}; }}
QToolTip {{ background: {p['surface']}; color: {p['text']}; border: 1px solid {p['border']}; padding: 4px 6px; }}

QWidget#header {{ background: {p['surface']}; border-bottom: 1px solid {p['border']}; }}
QListWidget#nav {{
    background: {p['surface_alt']}; border: none; border-right: 1px solid {p['border']};
    padding-top: 6px; outline: 0;
}}
QListWidget#nav::item {{ color: {p['text']}; padding: 7px 10px; margin: 1px 6px; border-radius: 6px; }}
QListWidget#nav::item:hover {{ background: {p['surface']}; }}
QListWidget#nav::item:selected {{ background: {p['selection']}; color: {p['text']}; }}

QPushButton, QToolButton {{
    background: {p['surface']}; color: {p['text']};
    border: 1px solid {p['border']}; border-radius: 6px; padding: 4px 12px;
}}
QToolButton {{ padding: 3px 6px; }}
QPushButton:hover, QToolButton:hover {{ background: {p['surface_alt']}; }}
QPushButton:pressed, QToolButton:pressed, QToolButton:checked {{ background: {p['selection']}; }}
QPushButton:focus, QToolButton:focus {{ border-color: {p['accent']}; }}
QPushButton:disabled, QToolButton:disabled {{ color: {p['muted']}; background: {p['surface_alt']}; }}
QPushButton:default {{ background: {p['accent']}; color: {p['accent_text']}; border-color: {p['accent']}; }}
QPushButton:default:disabled {{ background: {p['surface_alt']}; color: {p['muted']}; border-color: {p['border']}; }}
QToolButton::menu-indicator {{ image: none; width: 0; }}

QLineEdit, QPlainTextEdit, QTextEdit, QTextBrowser {{
    background: {p['surface']}; color: {p['text']};
    border: 1px solid {p['border']}; border-radius: 6px; padding: 3px 6px;
    selection-background-color: {p['selection']}; selection-color: {p['text']};
}}
QLineEdit:focus, QPlainTextEdit:focus, QTextEdit:focus {{ border-color: {p['accent']}; }}
QLineEdit:disabled, QPlainTextEdit:disabled {{ color: {p['muted']}; background: {p['surface_alt']}; }}
/* Combo and spin boxes keep Fusion's arrows, painted from the QPalette; only their popups are styled. */
QComboBox QAbstractItemView {{
    background: {p['surface']}; color: {p['text']}; border: 1px solid {p['border']};
    selection-background-color: {p['selection']}; selection-color: {p['text']}; outline: 0;
}}

QListWidget, QListView, QTreeView, QTableView, QTableWidget {{
    background: {p['surface']}; color: {p['text']}; border: 1px solid {p['border']}; border-radius: 6px;
    alternate-background-color: {p['surface_alt']};
    selection-background-color: {p['selection']}; selection-color: {p['text']}; outline: 0;
}}
QHeaderView::section {{
    background: {p['surface_alt']}; color: {p['muted']}; border: none;
    border-bottom: 1px solid {p['border']}; padding: 4px 6px;
}}

QTabWidget::pane {{ border: 1px solid {p['border']}; border-radius: 6px; background: {p['window']}; top: -1px; }}
QTabBar::tab {{ background: transparent; color: {p['muted']}; padding: 6px 12px; border-bottom: 2px solid transparent; }}
QTabBar::tab:hover {{ color: {p['text']}; }}
QTabBar::tab:selected {{ color: {p['text']}; border-bottom: 2px solid {p['accent']}; }}

QMenu {{ background: {p['surface']}; color: {p['text']}; border: 1px solid {p['border']}; padding: 4px; }}
QMenu::item {{ padding: 5px 18px; border-radius: 4px; }}
QMenu::item:selected {{ background: {p['selection']}; }}
QMenu::item:disabled {{ color: {p['muted']}; }}
QMenu::separator {{ height: 1px; background: {p['border']}; margin: 4px 6px; }}

QGroupBox {{ border: none; border-top: 1px solid {p['border']}; margin-top: 16px; padding-top: 8px; }}
QGroupBox::title {{ subcontrol-origin: margin; left: 0; padding: 0 6px 0 0; color: {p['muted']}; }}
QSplitter::handle {{ background: {p['border']}; }}
QSplitter::handle:horizontal {{ width: 1px; }}
QSplitter::handle:vertical {{ height: 1px; }}
QScrollArea {{ border: none; background: transparent; }}

QScrollBar:vertical {{ background: transparent; width: 10px; margin: 0; }}
QScrollBar:horizontal {{ background: transparent; height: 10px; margin: 0; }}
QScrollBar::handle {{ background: {p['border']}; border-radius: 4px; min-height: 24px; min-width: 24px; margin: 1px; }}
QScrollBar::handle:hover {{ background: {p['edge']}; }}
QScrollBar::add-line, QScrollBar::sub-line {{ width: 0; height: 0; }}
QScrollBar::add-page, QScrollBar::sub-page {{ background: none; }}
"""


def _properties(p: Palette, font_pt: int) -> str:
    rules: list[str] = []
    for tone, role in TONES.items():
        rules.append(f'*[tone="{tone}"] {{ color: {p[role]}; }}')
    for tone, scale in HEADING_SCALE.items():
        rules.append(
            f'*[tone="{tone}"] {{ color: {p["text"]}; font-size: {round(font_pt * scale)}pt; font-weight: 600; }}'
        )
    for surface, (background, border, text) in SURFACES.items():
        padding = " padding: 6px;" if surface.startswith("banner") else ""
        rules.append(
            f'*[surface="{surface}"] {{ background: {p[background]}; color: {p[text]}; '
            f"border: 1px solid {p[border]}; border-radius: 6px;{padding} }}"
        )
    rules.append(f'*[surface="code"], *[surface="terminal"] {{ font-family: monospace; font-size: {font_pt}pt; }}')
    rules.extend(_variants(p, font_pt))
    return "\n".join(rules)


def _variants(p: Palette, font_pt: int) -> list[str]:
    """First-cut rules for the design's control variants (refined with the tokens)."""
    return [
        f'QPushButton[variant="primary"], QToolButton[variant="primary"] {{ background: {p["accent"]}; '
        f'color: {p["accent_text"]}; border: 1px solid {p["accent"]}; border-radius: 8px; padding: 6px 14px; }}',
        f'QPushButton[variant="ghost"], QToolButton[variant="ghost"] {{ background: transparent; '
        f'border: 1px solid transparent; color: {p["muted"]}; }}',
        f'QPushButton[variant="danger"], QToolButton[variant="danger"] {{ color: {p["danger"]}; }}',
        f'*[variant="chip"] {{ background: {p["surface"]}; color: {p["text"]}; border: 1px solid {p["border"]}; '
        f"border-radius: 12px; padding: 3px 10px; }}",
        f'QToolButton[variant="nav"], QPushButton[variant="nav"] {{ background: transparent; border: 1px solid transparent; '
        f'border-radius: 8px; padding: 6px 10px; text-align: left; color: {p["text"]}; }}',
        f'QToolButton[variant="nav"]:checked, QPushButton[variant="nav"]:checked {{ background: {p["surface"]}; '
        f'border-color: {p["border"]}; }}',
        f'*[variant="count"] {{ color: {p["warning"]}; background: {p["warning_bg"]}; border-radius: 9px; '
        f"padding: 0 7px; font-weight: 600; }}",
        f'*[variant="group-label"] {{ color: {p["faint"]}; font-weight: 600; }}',
        f'*[variant="caption"] {{ color: {p["muted"]}; }}',
        f'*[variant="title"] {{ color: {p["text"]}; font-size: {round(font_pt * 1.15)}pt; font-weight: 600; }}',
        '*[variant="mono"] { font-family: monospace; }',
        f'*[variant="kbd"] {{ color: {p["muted"]}; border: 1px solid {p["border_strong"]}; border-radius: 5px; padding: 0 5px; }}',
        'QPushButton[variant="segment"], QToolButton[variant="segment"] { border-radius: 0; }',
        f'QPushButton[variant="segment"]:checked, QToolButton[variant="segment"]:checked {{ '
        f'background: {p["accent_soft"]}; color: {p["link"]}; }}',
        'QPushButton[variant="tile"], QToolButton[variant="tile"] { border-radius: 10px; padding: 10px 12px; text-align: left; }',
        f'QPushButton[variant="tile"]:checked, QToolButton[variant="tile"]:checked {{ background: {p["accent_soft"]}; '
        f'border-color: {p["accent"]}; }}',
        f'QPushButton[variant="send"], QToolButton[variant="send"] {{ background: {p["accent"]}; color: {p["accent_text"]}; '
        f'border: none; border-radius: 10px; }}',
        f'*[variant="list-row"][selected="true"] {{ background: {p["accent_soft"]}; border-radius: 8px; }}',
    ]


def build_stylesheet(palette: Palette, font_pt: int) -> str:
    """The whole application sheet for ``palette`` with body text of ``font_pt`` points."""
    return _widgets(palette) + "\n" + _properties(palette, font_pt) + "\n"
