"""Every Settings page keeps the main area's 24 px padding (the design's outer padding).

Real parts: the window's own Settings view with each page as the user opens it.
"""

from __future__ import annotations

from relavium_desktop.ui.qt import QScrollArea
from relavium_desktop.ui.settings.view import TABS
from relavium_desktop.ui.theme.tokens import PAD_MAIN


def test_every_settings_page_is_padded_24_px(make_window, qtbot, monkeypatch) -> None:
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    view = window.show_settings("providers")
    for name in TABS:
        view.show_tab(name)
        page = view.tabs.currentWidget()
        layout = page.layout()
        scroll = page.findChild(QScrollArea)
        if layout.contentsMargins().left() == 0 and scroll is not None and scroll.widget() is not None:
            layout = scroll.widget().layout()  # a page that scrolls pads its content instead
        margins = layout.contentsMargins()
        assert (margins.left(), margins.top(), margins.right(), margins.bottom()) == (PAD_MAIN,) * 4, name
