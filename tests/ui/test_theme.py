"""The theme: light, dark or follow the system, the text size, and what a switch repaints.

Real parts throughout: the window from ``make_window``, the QApplication's
own palette and stylesheet, pixels grabbed from widgets on screen, and
desktop-settings.ini read back by a second window (a restart).
"""

from __future__ import annotations

import pytest

from relavium_desktop.ui import app_settings as keys
from relavium_desktop.ui.chat.banner import ErrorBanner
from relavium_desktop.ui.qt import QApplication, QGuiApplication, QLabel, QPalette, Qt
from relavium_desktop.ui.theme import set_tone
from relavium_desktop.ui.theme.icons import GLYPHS, icon
from relavium_desktop.ui.theme.palette import DARK, LIGHT


def window_colour() -> str:
    return QApplication.palette().color(QPalette.ColorRole.Window).name()


def text_colour(label: QLabel) -> str:
    return label.palette().color(QPalette.ColorRole.WindowText).name()


def middle_left_pixel(widget) -> str:
    """A pixel just inside the widget's left edge: its own background, not a child's."""
    image = widget.grab().toImage()
    return image.pixelColor(3, image.height() // 2).name()


def test_switching_the_theme_recolours_the_application(make_window, qtbot) -> None:
    window = make_window()
    theme = window.context.theme
    assert theme.choice == "system"  # nothing saved yet; the offscreen platform reports no dark scheme
    assert theme.palette is LIGHT and window_colour() == LIGHT["window"]
    assert LIGHT["surface"] in QApplication.instance().styleSheet()

    with qtbot.waitSignal(theme.changed, timeout=1000):
        theme.set_choice("dark")
    assert theme.palette is DARK
    assert window_colour() == DARK["window"]
    sheet = QApplication.instance().styleSheet()
    assert DARK["surface"] in sheet and LIGHT["surface"] not in sheet
    assert theme.qcolor("accent").name() == DARK["accent"]

    with qtbot.waitSignal(theme.changed, timeout=1000):
        theme.set_choice("light")
    assert window_colour() == LIGHT["window"]
    with pytest.raises(ValueError):
        theme.set_choice("sepia")


def test_a_view_built_before_the_switch_shows_the_new_colours(make_window, qtbot) -> None:
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    banner = window.chat_view.findChild(ErrorBanner)
    banner.show_error({"code": "provider_auth", "message": "401 from the provider"})
    qtbot.waitUntil(banner.isVisible)
    muted = QLabel("a hint", window)
    set_tone(muted, "muted")
    assert middle_left_pixel(banner) == LIGHT["danger_bg"]
    assert text_colour(muted) == LIGHT["muted"]

    window.context.theme.set_choice("dark")
    assert middle_left_pixel(banner) == DARK["danger_bg"]
    assert text_colour(muted) == DARK["muted"]


def test_follow_the_system_tracks_the_desktop_scheme(make_window, qtbot) -> None:
    # The offscreen platform cannot flip the real OS hint (styleHints().colorScheme() is
    # read-only there), so the test calls the handler connected to colorSchemeChanged.
    theme = make_window().context.theme
    with qtbot.waitSignal(theme.changed, timeout=1000):
        theme.follow_system(Qt.ColorScheme.Dark)
    assert theme.palette is DARK and window_colour() == DARK["window"]
    theme.follow_system(Qt.ColorScheme.Light)
    assert theme.palette is LIGHT and window_colour() == LIGHT["window"]

    theme.set_choice("light")  # a fixed choice ignores the desktop
    with qtbot.assertNotEmitted(theme.changed):
        theme.follow_system(Qt.ColorScheme.Dark)
    assert theme.palette is LIGHT
    # Picking "system" again reads the desktop's own scheme (offscreen: not dark).
    theme.set_choice("dark")
    theme.set_choice("system")
    assert QGuiApplication.styleHints().colorScheme() != Qt.ColorScheme.Dark
    assert theme.palette is LIGHT


def test_the_appearance_page_applies_and_persists_across_a_restart(make_window, qtbot) -> None:
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    desktop_pt = QApplication.font().pointSize()
    page = window.show_settings("appearance").appearance
    assert window.settings_view.tabs.currentWidget() is page
    assert page.theme_buttons["system"].isChecked()
    assert page.font_size.text() == "Same as the desktop"

    qtbot.mouseClick(page.theme_buttons["dark"], Qt.MouseButton.LeftButton)
    assert window_colour() == DARK["window"]
    page.font_size.setValue(desktop_pt + 4)
    assert QApplication.font().pointSize() == desktop_pt + 4
    assert window.project_note.font().pointSize() == desktop_pt + 4  # an existing label follows
    title = QLabel("A title", window)
    set_tone(title, "title")
    assert title.font().pointSize() > desktop_pt + 4
    window.close()

    again = make_window()
    assert again.context.theme.choice == "dark" and window_colour() == DARK["window"]
    assert QApplication.font().pointSize() == desktop_pt + 4
    page = again.show_settings("appearance").appearance
    assert page.theme_buttons["dark"].isChecked() and page.font_size.value() == desktop_pt + 4

    page.font_size.setValue(page.font_size.minimum())  # back to the desktop's size
    assert page.font_size.text() == "Same as the desktop"
    assert QApplication.font().pointSize() == desktop_pt
    assert again.context.settings.value(keys.KEY_FONT_PT) in (0, "0")


def test_icons_are_drawn_in_the_role_colour(qapp) -> None:
    for name in GLYPHS:
        assert not icon(name, LIGHT).isNull(), name
    image = icon("check", DARK, "success").pixmap(32, 32).toImage()
    inked = {image.pixelColor(x, y).name() for x in range(32) for y in range(32)
             if image.pixelColor(x, y).alpha() == 255}
    assert inked == {DARK["success"]}
    assert icon("check", DARK, "success") is icon("check", DARK, "success")  # cached
    with pytest.raises(KeyError):
        icon("rocket", LIGHT)
