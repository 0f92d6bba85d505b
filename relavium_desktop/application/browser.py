"""Opening a page in the user's own browser, for surfaces that are not a terminal (the app).

The standard way, shared with ``relavium mcp login``: ``$BROWSER`` when set
(so a test's scripted browser, or a user's choice, wins), else ``xdg-open`` /
``open`` / the Windows shell.  Qt's ``QDesktopServices`` would skip
``$BROWSER`` on some desktops, so the app does not use it for sign-in pages.
"""

from __future__ import annotations


def open_in_browser(url: str) -> bool:
    """Start the browser on ``url`` without waiting; False when none could be started (show the URL)."""
    from relavium_desktop.host.mcp.oauth.browser import open_browser

    return open_browser(url)
