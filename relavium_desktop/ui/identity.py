"""Who the app is to the desktop: its id, its icon, its tray icons.

``APP_ID`` is the reverse-DNS name the desktop knows the app by: the
``.desktop`` file is ``<APP_ID>.desktop``, the installed icon is named
``<APP_ID>``, and the window's WM class / Wayland app id is set from it
(``QGuiApplication.setDesktopFileName``), so the shell can match a running
window to its launcher.  The icons are the PNGs packaging/make_icons.py
renders from resources/icons/*.svg into ``relavium_desktop/assets/icons``:
shipping every size lets Qt pick a sharp one at 16 px as well as 256 px
without needing the QtSvg plugin at run time.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from relavium_desktop.application.desktop import APP_ID
from relavium_desktop.ui.qt import QIcon

__all__ = ["APP_ID", "APP_NAME", "ICON_DIR", "TRAY_STATES", "app_icon", "icon_png", "tray_icon"]
APP_NAME = "Relavium"
ICON_DIR = Path(__file__).resolve().parents[1] / "assets" / "icons"
SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)
TRAY_STATES = ("idle", "working", "attention")


def icon_png(size: int, name: str = "relavium") -> Path:
    """The bundled PNG of ``name`` at ``size`` px (notifications and installers want a file)."""
    return ICON_DIR / f"{name}-{size}.png"


@cache
def _icon(name: str) -> QIcon:
    icon = QIcon()
    for size in SIZES:
        icon.addFile(str(icon_png(size, name)))
    return icon


def app_icon() -> QIcon:
    """The app icon at every bundled size (window, task switcher, dialogs)."""
    return _icon("relavium")


def tray_icon(state: str) -> QIcon:
    """The tray icon for ``state``: "idle", "working" or "attention"."""
    if state not in TRAY_STATES:
        raise ValueError(f"unknown tray state {state!r}; expected one of {TRAY_STATES}")
    return _icon(f"relavium-tray-{state}")
