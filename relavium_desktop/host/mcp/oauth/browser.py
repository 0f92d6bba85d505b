"""Open a URL in the user's browser the standard way, or say that nobody can.

``$BROWSER`` wins (split like a command line; ``%s`` is replaced by the URL,
otherwise the URL is appended), as xdg-open and Python's ``webbrowser`` both
honour it.  Without it: ``xdg-open`` on Linux (only with a display), ``open``
on macOS, ``os.startfile`` on Windows.  The caller prints the URL whenever
this returns False, so a headless session can still sign in on another
machine's browser.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Mapping


def browser_command(url: str, env: Mapping[str, str]) -> list[str] | None:
    """The command that opens ``url``, or None when there is no way to open one here."""
    spec = env.get("BROWSER", "").strip()
    if spec:
        first = spec.split(os.pathsep)[0]  # BROWSER may list fallbacks, like webbrowser reads it
        parts = shlex.split(first)
        if not parts:
            return None
        if any("%s" in p for p in parts):
            return [p.replace("%s", url) for p in parts]
        return [*parts, url]
    if sys.platform == "darwin":
        return ["open", url]
    if sys.platform.startswith("linux") or "bsd" in sys.platform:
        if not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")):
            return None
        opener = shutil.which("xdg-open", path=env.get("PATH"))
        return [opener, url] if opener else None
    return None


def open_browser(url: str, env: Mapping[str, str] | None = None) -> bool:
    """Start the user's browser on ``url`` without waiting for it; False when none could be started."""
    env = os.environ if env is None else env
    if sys.platform == "win32" and not env.get("BROWSER"):
        try:
            os.startfile(url)  # type: ignore[attr-defined]
        except OSError:
            return False
        return True
    command = browser_command(url, env)
    if command is None:
        return False
    try:
        subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            env=dict(env),
        )
    except OSError:
        return False
    return True
