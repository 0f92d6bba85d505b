"""Opening the sign-in page "the standard way": $BROWSER first, else the platform's opener, else nothing.

Real processes: the command $BROWSER names is really started (a tiny script
that records its arguments); on Linux without a display nothing is opened, so
the caller prints the address instead.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from relavium_desktop.host.mcp.oauth.browser import browser_command, open_browser

URL = "https://auth.example/authorize?client_id=a&state=s"


def test_browser_variable_with_a_placeholder_gets_the_url_in_place() -> None:
    assert browser_command(URL, {"BROWSER": "firefox --new-window %s"}) == ["firefox", "--new-window", URL]


def test_browser_variable_without_a_placeholder_gets_the_url_appended_and_only_its_first_choice_is_used() -> None:
    assert browser_command(URL, {"BROWSER": "'my browser' -x:lynx"}) == ["my browser", "-x", URL]


def test_no_browser_and_no_display_means_print_the_address() -> None:
    if sys.platform.startswith("linux"):
        assert browser_command(URL, {"PATH": "/usr/bin:/bin"}) is None


def test_the_browser_command_really_runs_with_the_url(tmp_path: Path) -> None:
    seen = tmp_path / "seen.txt"
    script = tmp_path / "browser.py"
    script.write_text(f"import sys; open({str(seen)!r}, 'w').write(sys.argv[1])")
    assert open_browser(URL, {"BROWSER": f"{sys.executable} {script} %s", "PATH": "/usr/bin:/bin"})
    deadline = time.monotonic() + 15
    while not seen.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert seen.read_text() == URL


def test_a_browser_that_cannot_start_is_reported_not_raised() -> None:
    assert open_browser(URL, {"BROWSER": "/nonexistent/browser %s"}) is False
