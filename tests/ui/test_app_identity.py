"""The running app identifies itself to the desktop as its launcher says.

A real ``relavium-desktop`` on a real X server (the Xvfb the notification
fixture starts): the window's WM_CLASS must match the desktop file's
``StartupWMClass`` -- otherwise docks show a second, icon-less entry next to
the launcher -- and the window must carry the app icon.  ``--headless-check``
is what scripts run on machines without a screen to prove the app starts.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from relavium_desktop.ui.identity import APP_ID, app_icon, tray_icon
from tests.fixtures.desktop_bus import desktop_bus  # noqa: F401
from tests.fixtures.notifications import NotificationDaemon, notification_daemon  # noqa: F401

SCRIPT = Path(sys.executable).with_name("relavium-desktop")
DESKTOP_FILE = Path(__file__).resolve().parents[2] / "packaging" / "linux" / f"{APP_ID}.desktop"


def startup_wm_class() -> str:
    for line in DESKTOP_FILE.read_text(encoding="utf-8").splitlines():
        if line.startswith("StartupWMClass="):
            return line.split("=", 1)[1]
    raise AssertionError("the desktop file has no StartupWMClass")


def x_tool(env: dict[str, str], *argv: str) -> str:
    return subprocess.run(list(argv), env=env, capture_output=True, text=True, timeout=15, check=False).stdout


def test_the_window_matches_its_launcher_and_carries_the_icon(
    notification_daemon: NotificationDaemon, relavium_home: Path  # noqa: F811
) -> None:
    env = {k: v for k, v in notification_daemon.env().items() if k not in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY")}
    env["RELAVIUM_HOME"] = str(relavium_home)
    proc = subprocess.Popen([str(SCRIPT)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        props = ""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and proc.poll() is None:
            tree = x_tool(env, "xwininfo", "-root", "-tree")
            ids = [line.split()[0] for line in tree.splitlines() if '"Relavium Desktop"' in line]
            props = "".join(x_tool(env, "xprop", "-id", wid, "WM_CLASS", "_NET_WM_ICON") for wid in ids)
            # Qt sets the class and the icon in separate property writes; wait for both.
            if "WM_CLASS(STRING)" in props and "Icon (" in props:
                break
            time.sleep(0.2)
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    match = re.search(r'WM_CLASS\(STRING\) = "([^"]*)", "([^"]*)"', props)
    assert match, props[:500]
    assert startup_wm_class() in match.groups()
    assert match.group(1) == APP_ID and match.group(2) == "Relavium"
    assert "Icon (16 x 16)" in props and "Icon (32 x 32)" in props  # the bundled sizes, not one scaled


def test_headless_check_paints_once_and_reports(relavium_home: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.update(QT_QPA_PLATFORM="offscreen", RELAVIUM_HOME=str(relavium_home))
    done = subprocess.run([str(SCRIPT), "--headless-check"], env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(r"relavium-desktop: ok, first paint in \d+ ms\n", done.stdout), done.stdout


def test_tray_states_are_told_apart_at_tray_sizes(qapp) -> None:

    for size in (16, 22):
        images = {state: tray_icon(state).pixmap(size, size).toImage() for state in ("idle", "working", "attention")}
        assert all(image.width() == size for image in images.values())
        assert images["idle"] != images["working"] != images["attention"] != images["idle"]
    assert not app_icon().isNull()
    with pytest.raises(ValueError):
        tray_icon("busy")
