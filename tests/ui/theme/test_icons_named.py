"""The icons the top bar and the composer ask for by name exist and are drawn (not blank, not one another).

The mode chip asks for "shield", the composer's attach and send buttons for
"paperclip" and "arrow-up"; each view falls back to another icon while a
name is missing, so without this test a missing glyph would go unnoticed.
"""

from __future__ import annotations

import pytest

from relavium_desktop.ui.qt import QImage
from relavium_desktop.ui.theme.icons import GLYPHS, icon
from relavium_desktop.ui.theme.palette import LIGHT

NAMES = ("shield", "paperclip", "arrow-up")


def inked(image: QImage) -> frozenset[tuple[int, int]]:
    return frozenset((x, y) for x in range(image.width()) for y in range(image.height())
                     if image.pixelColor(x, y).alpha() > 128)


@pytest.mark.parametrize("name", NAMES)
def test_the_named_icon_is_a_drawn_glyph(theme, name: str) -> None:
    assert name in GLYPHS
    shape = inked(icon(name, LIGHT).pixmap(32, 32).toImage())
    assert len(shape) > 20, f"{name} draws (almost) nothing"
    others = {other: inked(icon(other, LIGHT).pixmap(32, 32).toImage()) for other in ("lock", "add", "x")}
    assert all(shape != drawn for drawn in others.values())  # not a fallback's look-alike nor a tofu box
    boxes = {inked(icon(n, LIGHT).pixmap(32, 32).toImage()) for n in NAMES}
    assert len(boxes) == len(NAMES)  # three different glyphs, not the font's one "missing" box


def test_the_mode_chip_and_the_composer_wear_them(make_window, qtbot) -> None:
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    view = window.chat_view
    palette = window.context.theme.palette

    def same(button_icon, name: str, role: str) -> bool:
        return button_icon.cacheKey() == icon(name, palette, role).cacheKey()

    qtbot.waitUntil(lambda: same(window.top_bar.mode_picker.icon(), "shield", "muted"))
    qtbot.waitUntil(lambda: same(view.attach_files_button.icon(), "paperclip", "muted"))
    qtbot.waitUntil(lambda: same(view.send_button.icon(), "arrow-up", "accent_text"))
    assert view.send_button.accessibleName() == "Send"  # the glyph button still says what it does
