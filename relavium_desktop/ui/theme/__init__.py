"""The app's look: which palette is in force, applied to the whole QApplication.

:class:`Theme` (one per window, ``context.theme``) owns the user's choice --
light, dark or follow the system -- and the text size, both kept in
desktop-settings.ini.  Applying it sets the QApplication's QPalette (what
native painting and un-styled widgets read), its font and the stylesheet
built from the palette (what styled widgets read), then emits ``changed`` so
views that paint by hand (graph items, generated HTML, diff colouring) can
repaint from ``theme.palette``.

Views never hold a colour: :func:`set_tone` and :func:`set_surface` mark a
widget with a dynamic property the stylesheet colours, so a theme switch
recolours it with no code in the view.
"""

from __future__ import annotations

from relavium_desktop.ui import app_settings as keys
from relavium_desktop.ui import startup_probe
from relavium_desktop.ui.qt import (
    QApplication,
    QColor,
    QGuiApplication,
    QObject,
    QPalette,
    QSettings,
    Qt,
    QWidget,
    Signal,
)
from relavium_desktop.ui.theme.palette import DARK, LIGHT, Palette
from relavium_desktop.ui.theme.stylesheet import HEADING_SCALE, SURFACES, TONES, VARIANTS, build_stylesheet

__all__ = ["Theme", "set_surface", "set_tone", "set_variant", "to_qpalette"]

TONE_NAMES = frozenset(TONES) | frozenset(HEADING_SCALE)
SURFACE_NAMES = frozenset(SURFACES)
# Remembered on the QApplication the first time a theme touches it, so "the desktop's
# size" survives a later theme (a second window, a test) having changed the app font.
_DESKTOP_FONT_PT = "relaviumDesktopFontPt"


def set_tone(widget: QWidget, tone: str | None) -> None:
    """Colour ``widget``'s text by meaning (muted, danger, heading, ...), or back to plain with None."""
    if tone is not None and tone not in TONE_NAMES:
        raise ValueError(f"unknown tone {tone!r}; one of {sorted(TONE_NAMES)}")
    widget.setProperty("tone", tone or "")
    _repolish(widget)


def set_surface(widget: QWidget, surface: str | None) -> None:
    """Give ``widget`` a themed background and border (card, code, a banner), or none with None."""
    if surface is not None and surface not in SURFACE_NAMES:
        raise ValueError(f"unknown surface {surface!r}; one of {sorted(SURFACE_NAMES)}")
    widget.setProperty("surface", surface or "")
    # A plain QWidget only paints a stylesheet background when asked to.
    widget.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, surface is not None)
    _repolish(widget)


def set_variant(widget: QWidget, variant: str | None) -> None:
    """Give a control one of the design's looks (primary, chip, nav, segment, ...), or none with None."""
    if variant is not None and variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; one of {sorted(VARIANTS)}")
    widget.setProperty("variant", variant or "")
    _repolish(widget)


def _repolish(widget: QWidget) -> None:
    """Property selectors are matched at polish time, so a changed property needs a re-polish."""
    style = widget.style()
    style.unpolish(widget)
    style.polish(widget)
    widget.update()


def to_qpalette(palette: Palette) -> QPalette:
    """The QPalette for ``palette``: what native painting and un-styled widgets use."""
    role = QPalette.ColorRole
    q = QPalette()

    def put(target: QPalette.ColorRole, name: str) -> None:
        q.setColor(target, QColor(palette[name]))

    put(role.Window, "window")
    put(role.WindowText, "text")
    put(role.Base, "surface")
    put(role.AlternateBase, "surface_alt")
    put(role.Text, "text")
    put(role.Button, "surface")
    put(role.ButtonText, "text")
    put(role.ToolTipBase, "surface")
    put(role.ToolTipText, "text")
    put(role.PlaceholderText, "muted")
    put(role.Highlight, "selection")
    put(role.HighlightedText, "text")
    put(role.Link, "link")
    put(role.LinkVisited, "link")
    put(role.BrightText, "danger")
    put(role.Light, "surface")
    put(role.Midlight, "surface_alt")
    put(role.Mid, "border")
    put(role.Dark, "edge")
    put(role.Shadow, "edge")
    put(role.Accent, "accent")
    disabled = QPalette.ColorGroup.Disabled
    for target in (role.WindowText, role.Text, role.ButtonText):
        q.setColor(disabled, target, QColor(palette["muted"]))
    return q


class Theme(QObject):
    """The current palette and text size, applied to the QApplication on every change."""

    changed = Signal()  # emitted after the app palette, font and stylesheet were re-applied

    def __init__(self, settings: QSettings, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._settings = settings
        self._choice = keys.read_theme(settings)
        self._font_pt = keys.read_font_pt(settings)  # 0: the desktop's size
        self._system_dark = False
        self._tell_the_platform()
        QGuiApplication.styleHints().colorSchemeChanged.connect(self.follow_system)
        self._palette = self._resolve()

    # -- what is in force ------------------------------------------------------

    @property
    def palette(self) -> Palette:
        return self._palette

    @property
    def choice(self) -> str:
        """What the user picked: "light", "dark" or "system"."""
        return self._choice

    @property
    def font_pt(self) -> int:
        """The body text size in points actually in force."""
        return self._font_pt or _desktop_font_pt()

    @property
    def font_pt_is_default(self) -> bool:
        return self._font_pt == 0

    def qcolor(self, role: str) -> QColor:
        return QColor(self._palette[role])

    # -- changing it -------------------------------------------------------------

    def set_choice(self, choice: str) -> None:
        """Switch to "light", "dark" or "system", remembered for the next start."""
        if choice not in keys.THEME_CHOICES:
            raise ValueError(f"unknown theme {choice!r}; one of {keys.THEME_CHOICES}")
        self._settings.setValue(keys.KEY_THEME, choice)
        if choice == self._choice:
            return
        self._choice = choice
        self._tell_the_platform()
        self._refresh()

    def set_font_pt(self, points: int) -> None:
        """Set the body text size (0: the desktop's own size), remembered for the next start."""
        low, high = keys.FONT_PT_RANGE
        if points != 0 and not low <= points <= high:
            raise ValueError(f"text size {points} pt is outside {low}-{high}")
        self._settings.setValue(keys.KEY_FONT_PT, points)
        if points == self._font_pt:
            return
        self._font_pt = points
        self.apply()

    def follow_system(self, scheme: Qt.ColorScheme) -> None:
        """The desktop switched between light and dark; followed when the choice is "system"."""
        if self._choice != "system":
            return  # with a fixed choice the hint is our own override, not the desktop's
        self._system_dark = scheme == Qt.ColorScheme.Dark
        self._refresh()

    def _tell_the_platform(self) -> None:
        """Native parts (title bars, file dialogs) follow a fixed choice; "system" hands them back.

        The desktop's own scheme is read with no override in place, so "system"
        starts from what the desktop says rather than from an earlier choice.
        """
        hints = QGuiApplication.styleHints()
        if not hasattr(hints, "setColorScheme"):  # Qt before 6.8: no override, nothing to undo
            self._system_dark = hints.colorScheme() == Qt.ColorScheme.Dark
            return
        hints.unsetColorScheme()
        self._system_dark = hints.colorScheme() == Qt.ColorScheme.Dark
        if self._choice != "system":
            hints.setColorScheme(Qt.ColorScheme.Dark if self._choice == "dark" else Qt.ColorScheme.Light)

    def _resolve(self) -> Palette:
        if self._choice == "dark" or (self._choice == "system" and self._system_dark):
            return DARK
        return LIGHT

    def _refresh(self) -> None:
        palette = self._resolve()
        if palette is self._palette:
            return
        self._palette = palette
        self.apply()

    def apply(self) -> None:
        """Put the palette, font and stylesheet on the QApplication, then tell the views."""
        app = QApplication.instance()
        if not isinstance(app, QApplication):
            return
        points = self.font_pt
        if app.style().name().lower() != "fusion":
            # Native styles (Windows, macOS) ignore parts of a QPalette; Fusion paints from it.
            app.setStyle("Fusion")
        app.setPalette(to_qpalette(self._palette))
        startup_probe.mark("theme-palette")
        font = app.font()
        if font.pointSize() != points:
            font.setPointSize(points)
            app.setFont(font)
        startup_probe.mark("fonts")
        app.setStyleSheet(build_stylesheet(self._palette, points))
        startup_probe.mark("theme-stylesheet")
        self.changed.emit()


def _desktop_font_pt() -> int:
    app = QApplication.instance()
    if app is None:
        return 10
    saved = app.property(_DESKTOP_FONT_PT)
    if isinstance(saved, int) and saved > 0:
        return saved
    points = QApplication.font().pointSize()
    points = points if points > 0 else 10
    app.setProperty(_DESKTOP_FONT_PT, points)
    return points
