"""Closing the window keeps the app in the tray (when there is one and the setting is on); Quit quits.

The offscreen test platform has no system tray (``isSystemTrayAvailable()``
is False there), so the real tray icon cannot be observed: the tests tell
the window a tray exists through ``MainWindow.tray_available``, the one
place the app asks.  Whether the app really keeps running, or really ends,
is checked on ``run_app`` itself in a subprocess.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from relavium_desktop.ui import app_settings as keys
from relavium_desktop.ui.shell import TRAY_NOTICE_TITLE
from tests.fixtures.desktop_bus import desktop_bus  # noqa: F401
from tests.fixtures.notifications import NotificationDaemon, notification_daemon, notifications  # noqa: F401
from tests.ui.conftest import IGNORED_QT_MESSAGES

# Showing a tray icon where the platform has none: the offscreen plugin's complaint, not the app's.
with_offscreen_tray = pytest.mark.qt_log_ignore(
    *IGNORED_QT_MESSAGES, r"No such signal QPlatformNativeInterface::systemTrayWindowChanged",
)


def window_with_tray(make_window, qtbot, *, tray: bool = True):
    window = make_window()
    window.tray_available = lambda: tray
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.tray is not None)  # built after the first paint
    assert window.tray.shown is tray
    return window


def close_for_good(window) -> None:
    """End of test: let the fixture's close really close (as Quit does, without quitting pytest's app)."""
    window.quitting = True
    window.close()


@with_offscreen_tray
def test_closing_hides_the_window_in_the_tray_and_open_shows_it_again(
    notifications: NotificationDaemon, make_window, qtbot, qapp,  # noqa: F811
) -> None:
    quits: list[bool] = []
    qapp.aboutToQuit.connect(lambda: quits.append(True))
    window = window_with_tray(make_window, qtbot)
    assert keys.read_bool(window.context.settings, keys.KEY_CLOSE_TO_TRAY, True)  # on by default

    assert window.close() is False  # the close was turned into a hide
    assert not window.isVisible()
    assert window.chat_view.backend is not None  # the chat stays loaded, ready for the clipboard action
    assert quits == []
    qtbot.waitUntil(lambda: notifications.displayed() == 1, timeout=10_000)
    notifications.close_all()
    assert notifications.history()[0]["summary"] == TRAY_NOTICE_TITLE

    window.tray.open_action.trigger()
    assert window.isVisible()
    # The notice is sent once ever, not on every close.
    assert window.close() is False
    assert not window.isVisible()
    qtbot.wait(300)
    assert notifications.displayed() == 0
    assert quits == []
    close_for_good(window)


@with_offscreen_tray
def test_with_the_setting_off_closing_closes(make_window, qtbot) -> None:
    window = window_with_tray(make_window, qtbot)
    window.context.settings.setValue(keys.KEY_CLOSE_TO_TRAY, False)
    assert window.close() is True
    assert not window.isVisible()
    assert not window.tray.shown  # the icon left the tray with the window


def test_without_a_tray_closing_closes_whatever_the_setting(make_window, qtbot) -> None:
    window = window_with_tray(make_window, qtbot, tray=False)
    assert keys.read_bool(window.context.settings, keys.KEY_CLOSE_TO_TRAY, True)
    assert window.close() is True


@with_offscreen_tray
def test_the_settings_page_switches_close_to_tray(make_window, qtbot) -> None:
    window = window_with_tray(make_window, qtbot)
    page = window.show_settings("notifications").notifications
    assert page.close_to_tray.isChecked()
    page.close_to_tray.click()
    assert window.close() is True  # off: the close was not turned into a hide


def test_start_at_login_writes_and_removes_the_autostart_entry(
    make_window, qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from relavium_desktop.ui.identity import APP_ID

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    entry = tmp_path / "config" / "autostart" / f"{APP_ID}.desktop"
    window = make_window()
    page = window.show_settings("notifications").notifications
    assert not page.start_at_login.isChecked()  # off by default
    page.start_at_login.click()
    assert entry.is_file()
    assert "X-GNOME-Autostart-enabled=true" in entry.read_text()
    assert keys.read_bool(window.context.settings, keys.KEY_START_AT_LOGIN, False)
    page.start_at_login.click()
    assert not entry.exists()
    assert not keys.read_bool(window.context.settings, keys.KEY_START_AT_LOGIN, True)


# run_app in a child process: after the first paint, the window is closed; with the tray setting
# on the app must still be running afterwards (also after the tray's "Process what I copied" panel,
# opened with no window on screen, is closed) and the tray's Quit must end it.
CHILD = """
import sys
from relavium_desktop.application.paths import AppPaths
from relavium_desktop.ui import app_settings as keys, shell
from relavium_desktop.ui.qt import QTimer

keep = sys.argv[1] != "off"
panel = sys.argv[1] == "panel"
shell.MainWindow.tray_available = lambda self: True
first = shell.MainWindow.after_first_paint

def after_first_paint(self):
    first(self)
    self.context.settings.setValue(keys.KEY_CLOSE_TO_TRAY, keep)
    self.context.settings.setValue(keys.KEY_TOLD_ABOUT_TRAY, True)
    self.close()
    print("closed, visible:", self.isVisible(), flush=True)

    def later():
        print("still running", flush=True)
        self.tray.quit_action.trigger()

    def panel_shown():
        if self.quick_panel is None or not self.quick_panel.isVisible():
            QTimer.singleShot(50, panel_shown)
            return
        print("panel shown, window visible:", self.isVisible(), flush=True)
        self.quick_panel.close()
        QTimer.singleShot(500, later)

    if panel:
        self.tray.clipboard_action.trigger()
        panel_shown()
    else:
        QTimer.singleShot(500, later)

shell.MainWindow.after_first_paint = after_first_paint
print("run_app returned", shell.run_app(["relavium-desktop"], AppPaths.from_environment()), flush=True)
"""


@pytest.mark.parametrize("setting", ["on", "off", "panel"])
def test_run_app_keeps_running_in_the_tray_until_quit_or_ends_on_close(
    setting: str, relavium_home: Path,
) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, setting], env=env, capture_output=True, text=True, timeout=60, check=False,
    )
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    if setting == "on":
        assert lines == ["closed, visible: False", "still running", "run_app returned 0"]
    elif setting == "panel":
        assert lines == ["closed, visible: False", "panel shown, window visible: False", "still running",
                         "run_app returned 0"]
    else:
        assert lines == ["closed, visible: False", "run_app returned 0"]


# run_app --hidden (how Start at login starts the app): the tray is up, the window never shown
# until the tray's Open; with no tray the window shows anyway, or the app could not be reached.
HIDDEN_CHILD = """
import sys
from relavium_desktop.application.paths import AppPaths
from relavium_desktop.ui import shell
from relavium_desktop.ui.qt import QTimer

has_tray = sys.argv[1] == "tray"
shell.MainWindow.tray_available = lambda self: has_tray
first = shell.MainWindow.after_first_paint

def after_first_paint(self):
    first(self)
    if getattr(self, "reported", False):
        return
    self.reported = True
    print("window shown:", self.isVisible(), "tray:", self.tray is not None and self.tray.shown, flush=True)

    def opened():
        self.tray.open_action.trigger() if has_tray else None
        print("after Open, window shown:", self.isVisible(), flush=True)
        self.quitting = True
        self.quit_app()

    QTimer.singleShot(300, opened)

shell.MainWindow.after_first_paint = after_first_paint
print("run_app returned", shell.run_app(["relavium-desktop", "--hidden"], AppPaths.from_environment()), flush=True)
"""


@pytest.mark.parametrize("tray", ["tray", "no-tray"])
def test_hidden_start_waits_in_the_tray_and_shows_without_one(tray: str, relavium_home: Path) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run(
        [sys.executable, "-c", HIDDEN_CHILD, tray], env=env, capture_output=True, text=True, timeout=60,
        check=False,
    )
    lines = [line for line in proc.stdout.splitlines() if not line.startswith("This plugin")]
    assert proc.returncode == 0, proc.stdout + proc.stderr
    if tray == "tray":
        assert lines == ["window shown: False tray: True", "after Open, window shown: True",
                         "run_app returned 0"]
    else:
        assert lines == ["window shown: True tray: False", "after Open, window shown: True",
                         "run_app returned 0"]
