"""With no usable keyring, Settings → Providers says so in a sentence and keeps the fix one click away.

Real parts: the window, providers.yaml on disk and the ``keyring`` library
with its own "fail" backend (what a desktop without a Secret Service gets),
which the host's SecretStore refuses with its setup help.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from relavium_desktop.ui.qt import QPoint, Qt
from relavium_desktop.ui.theme.tokens import SPACE_3, SPACE_4

JARGON = ("PYTHON_KEYRING_BACKEND", "dbus", "DBUS_SESSION_BUS_ADDRESS", "keyring.backends", "Secret Service")


def test_the_keyring_banner_is_a_sentence_and_how_to_fix_opens_the_technical_steps(
    make_window, relavium_home: Path, qtbot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    (relavium_home / "providers.yaml").write_text(
        "providers:\n  claude:\n    kind: anthropic\n    base_url: https://api.anthropic.com\n"
        "    api_key: secret:claude-key\n"
    )
    window = make_window()
    page = window.show_settings("providers").providers
    window.show()
    qtbot.waitUntil(page.banner.isVisible, timeout=15_000)
    banner = page.banner
    headline = banner.headline.text()
    assert (
        headline
        == "Your system keyring isn't available, so API keys can't be saved. Keys you paste are not kept."
    )
    assert [word for word in JARGON if word in headline] == []
    at = banner.headline.mapTo(banner, QPoint(0, 0))
    assert at.x() <= SPACE_4 and at.y() <= SPACE_3  # the surface's padding once, not padded twice
    # The steps are there, folded away and marked as details.
    assert not banner.details.isVisible()
    assert banner.fix_toggle.text() == "How to fix" and banner.fix_toggle.isVisible()
    qtbot.mouseClick(banner.fix_toggle, Qt.MouseButton.LeftButton)
    assert banner.details.isVisible()
    assert banner.details.objectName() == "details" and banner.details.property("details") is True
    steps = banner.details.text()
    assert "dbus-run-session" in steps and "PYTHON_KEYRING_BACKEND" in steps
    assert banner.fix_toggle.text() == "Hide how to fix"
    qtbot.mouseClick(banner.fix_toggle, Qt.MouseButton.LeftButton)
    assert not banner.details.isVisible()
    # The rows say it in words too.
    assert page.rows["claude"].status.text() == "Unavailable (no keyring)"
