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

Type: Inter is the application font and JetBrains Mono the font of the
``mono`` variant and the ``code``/``terminal`` surfaces (both shipped in
``theme/fonts/``, registered once per process by :func:`fonts.load_fonts`).
Sizes stay relative to the body size (the desktop's, or Settings ->
Appearance), so the text-size setting scales the whole type scale.

Elevation: Qt style sheets have no box-shadow, so floating surfaces (the
composer, a sheet, the quick panel) call :meth:`Theme.elevate` for a cheap
drop shadow (blur 16 px at most) that follows the theme.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import weakref
from pathlib import Path
from typing import TYPE_CHECKING

from relavium_desktop.ui import app_settings as keys
from relavium_desktop.ui import startup_probe
from relavium_desktop.ui.qt import (
    QApplication,
    QColor,
    QFont,
    QGuiApplication,
    QObject,
    QPalette,
    QSettings,
    Qt,
    QWidget,
    Signal,
)
from relavium_desktop.ui.theme import fonts
from relavium_desktop.ui.theme.palette import DARK, LIGHT, Palette
from relavium_desktop.ui.theme.stylesheet import (
    HEADING_SCALE,
    SURFACES,
    TONES,
    VARIANTS,
    build_stylesheet,
    indicator_svgs,
)

if TYPE_CHECKING:
    # Annotations only: PySide6 builds a class (its bases and enums) on first use, and the
    # table classes alone cost ~8 ms before the first paint, which shows no table.
    from relavium_desktop.ui.qt import QGraphicsDropShadowEffect, QTableWidget

__all__ = ["ELEVATIONS", "Theme", "set_surface", "set_table_look", "set_tone", "set_variant", "to_qpalette"]

TONE_NAMES = frozenset(TONES) | frozenset(HEADING_SCALE)
SURFACE_NAMES = frozenset(SURFACES)
# Remembered on the QApplication the first time a theme touches it, so "the desktop's
# size" survives a later theme (a second window, a test) having changed the app font.
_DESKTOP_FONT_PT = "relaviumDesktopFontPt"
# The app runs on the Fusion style.  The window's entry point asks for it with FUSION_ARGUMENTS (Qt then
# builds it natively) and sets FUSION_PROPERTY on the QApplication; otherwise the first apply() checks
# and sets it.  Asking ``app.style()`` from Python builds the QStyle class with its enums: ~10 ms.
FUSION_ARGUMENTS = ("-style", "Fusion")
FUSION_PROPERTY = "relaviumFusion"
# Surfaces and variants drawn in the mono face: ligatures go off on the widget itself
# (a style sheet cannot switch OpenType features).
_MONO_SURFACES = frozenset({"code", "terminal"})
# The group label's tracking (the design's letter-spacing .06em), as a percentage of normal.
_GROUP_LABEL_SPACING = 106.0
# The sheet scrim's alpha over the shadow colour: (light, dark), from the design's --scrim.
_SCRIM_ALPHA = {False: 0.28, True: 0.5}
# Elevation -> (blur radius, y offset, shadow alpha in light, in dark).  Cheap on purpose:
# the effect re-renders the widget into a pixmap, so the blur stays at 16 px or less.
ELEVATIONS: dict[str, tuple[float, float, float, float]] = {
    "raised": (12.0, 2.0, 0.10, 0.40),  # the composer, cards that float over the transcript
    "overlay": (16.0, 6.0, 0.18, 0.55),  # sheets and the quick panel
}


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
    if surface in _MONO_SURFACES:
        fonts.mark_mono(widget)
    _repolish(widget)


def set_variant(widget: QWidget, variant: str | None) -> None:
    """Give a control one of the design's looks (primary, chip, nav, segment, ...), or none with None."""
    if variant is not None and variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; one of {sorted(VARIANTS)}")
    widget.setProperty("variant", variant or "")
    if variant == "mono":
        fonts.mark_mono(widget)
    elif variant == "group-label":
        font = QFont(widget.font())
        font.setLetterSpacing(QFont.SpacingType.PercentageSpacing, _GROUP_LABEL_SPACING)
        widget.setFont(font)
    elif variant == "list-row":
        widget.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)  # a plain row widget paints it
    _repolish(widget)


def set_table_look(table: QTableWidget) -> None:
    """The design's table: no grid, a hairline under each row, headers left-aligned, no row numbers.

    What a style sheet cannot say (the grid switch, the header's alignment)
    is set here, so every table of the app reads the same.
    """
    table.setShowGrid(False)
    table.setAlternatingRowColors(False)
    table.verticalHeader().hide()
    header = table.horizontalHeader()
    header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
    header.setHighlightSections(False)
    from relavium_desktop.ui.qt import QAbstractItemView

    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)


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
        self._shadows: weakref.WeakSet[QGraphicsDropShadowEffect] = weakref.WeakSet()
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

    def elevate(self, widget: QWidget, level: str = "raised") -> QGraphicsDropShadowEffect:
        """Float ``widget`` above what is behind it with a soft shadow (Qt CSS has no box-shadow).

        "raised" for the composer and floating cards, "overlay" for sheets and
        the quick panel.  The shadow's colour follows later theme switches.
        """
        if level not in ELEVATIONS:
            raise ValueError(f"unknown elevation {level!r}; one of {sorted(ELEVATIONS)}")
        from relavium_desktop.ui.qt import QGraphicsDropShadowEffect

        effect = QGraphicsDropShadowEffect(widget)
        blur, offset, _light, _dark = ELEVATIONS[level]
        effect.setBlurRadius(blur)
        effect.setOffset(0.0, offset)
        effect.setProperty("elevation", level)
        widget.setGraphicsEffect(effect)
        self._shadows.add(effect)
        self._colour_shadow(effect)
        return effect

    def scrim(self) -> QColor:
        """The veil painted over the window behind a modal sheet (the design's --scrim)."""
        colour = QColor(self._palette["shadow"])
        colour.setAlphaF(_SCRIM_ALPHA[self._palette.is_dark])
        return colour

    def _colour_shadow(self, effect: QGraphicsDropShadowEffect) -> None:
        _blur, _offset, light, dark = ELEVATIONS[str(effect.property("elevation"))]
        colour = QColor(self._palette["shadow"])
        colour.setAlphaF(dark if self._palette.is_dark else light)
        effect.setColor(colour)

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
        if app.property(FUSION_PROPERTY) is not True:
            # Native styles (Windows, macOS) ignore parts of a QPalette; Fusion paints from it.
            if app.style().name().lower() != "fusion":
                app.setStyle("Fusion")
            app.setProperty(FUSION_PROPERTY, True)
        app.setPalette(to_qpalette(self._palette))
        startup_probe.mark("theme-palette")
        families = fonts.load_fonts()
        font = app.font()
        if font.pointSize() != points or (fonts.UI_FAMILY in families and font.family() != fonts.UI_FAMILY):
            if fonts.UI_FAMILY in families:
                font.setFamilies([fonts.UI_FAMILY])
            font.setPointSize(points)
            app.setFont(font)
        startup_probe.mark("fonts")
        app.setStyleSheet(build_stylesheet(self._palette, points, _indicator_images(self._palette)))
        startup_probe.mark("theme-stylesheet")
        for effect in list(self._shadows):
            try:
                self._colour_shadow(effect)
            except RuntimeError:  # its widget (and so the effect) was deleted on the C++ side
                self._shadows.discard(effect)
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


_IMAGE_DIR: list[Path] = []  # one private folder per process for the indicator marks


def _indicator_images(palette: Palette) -> dict[str, str]:
    """Write the check box marks for ``palette`` (once each) and return their paths for the sheet.

    Qt style sheets take an image only as a file or resource; the marks are
    drawn in a palette colour, so they are written from the palette into a
    private temporary folder (mkdtemp: mode 0700) removed at exit.
    """
    if not _IMAGE_DIR:
        folder = Path(tempfile.mkdtemp(prefix="relavium-theme-"))
        atexit.register(shutil.rmtree, folder, True)
        _IMAGE_DIR.append(folder)
    paths: dict[str, str] = {}
    for name, svg in indicator_svgs(palette).items():
        path = _IMAGE_DIR[0] / f"{name}-{palette.name}.svg"
        if not path.exists():
            path.write_text(svg, encoding="utf-8")
        paths[name] = path.as_posix()
    return paths
