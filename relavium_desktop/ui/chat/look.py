"""The chat's one door to the theme: palette, Pygments style, icons, tones, surfaces.

Transcript widgets ask here instead of importing the theme in many places,
so a block built without an app context (a bench, a unit test) still gets
the light palette, and the look of the chat changes in one module.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from relavium_desktop.ui.qt import QIcon, QWidget
    from relavium_desktop.ui.theme.palette import Palette


def palette_of(theme: Any) -> Palette:
    """The theme's current palette, or the light one when there is no theme object."""
    if theme is not None:
        return theme.palette  # type: ignore[no-any-return]
    from relavium_desktop.ui.theme.palette import LIGHT

    return LIGHT


def code_style(theme: Any) -> str:
    """The Pygments style that reads well on this palette's code background."""
    from relavium_desktop.ui.theme.palette import pygments_style_name

    return pygments_style_name(palette_of(theme))


_ICONS: dict[tuple[str, str, str], QIcon] = {}


def themed_icon(name: str, theme: Any, role: str = "text") -> QIcon:
    """The tinted icon, drawn once per palette: a long transcript asks for the same few thousands of times."""
    palette = palette_of(theme)
    key = (name, palette.name, role)
    found = _ICONS.get(key)
    if found is None:
        from relavium_desktop.ui.theme.icons import icon

        found = _ICONS[key] = icon(name, palette, role=role)
    return found


def tone(widget: QWidget, name: str | None) -> None:
    from relavium_desktop.ui.theme import set_tone

    set_tone(widget, name)


def surface(widget: QWidget, name: str | None) -> None:
    from relavium_desktop.ui.theme import set_surface

    set_surface(widget, name)


def variant(widget: QWidget, name: str | None) -> None:
    from relavium_desktop.ui.theme import set_variant

    set_variant(widget, name)


def mark(widget: QWidget, *, tone: str | None = None, variant: str | None = None) -> None:
    """Mark a widget that was never shown with a tone or variant, without the re-polish.

    A new widget is polished when it is first shown, so the property is all it
    needs; a long history builds thousands of card labels, and a re-polish each
    adds up.  A widget already shown, or an unknown name, goes through the
    theme's own setters (which re-polish, and refuse an unknown name).
    """
    tones, variants, polished = _marks()
    fresh = not widget.testAttribute(polished)
    if tone is not None:
        if fresh and tone in tones:
            widget.setProperty("tone", tone)
        else:
            from relavium_desktop.ui.theme import set_tone

            set_tone(widget, tone)
    if variant is not None:
        if fresh and variant in variants:
            widget.setProperty("variant", variant)
        else:
            from relavium_desktop.ui.theme import set_variant

            set_variant(widget, variant)


@cache
def _marks() -> tuple[frozenset[str], frozenset[str], Any]:
    """The theme's tone and variant names and Qt's "polished" flag, looked up once."""
    from relavium_desktop.ui.qt import Qt
    from relavium_desktop.ui.theme import TONE_NAMES
    from relavium_desktop.ui.theme.stylesheet import VARIANTS

    return frozenset(TONE_NAMES), frozenset(VARIANTS), Qt.WidgetAttribute.WA_WState_Polished
