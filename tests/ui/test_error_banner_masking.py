"""The chat's error banner masks what it shows: a key split across lines, a secret known by value."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pytestqt.qtbot import QtBot

from relavium_desktop.engine.tools.masking import forget_secrets, remember_secret
from relavium_desktop.ui.chat.banner import ErrorBanner

KEY = "sk-ant-api03-Hq7Wn2Lp9Rt4Yv6Bm1Zx8Cs3Dk5Fj0Gg"
KNOWN = "opaque-Provider-Key-7Q2m9X4t"


@pytest.fixture(autouse=True)
def _secrets() -> Iterator[None]:
    yield
    forget_secrets()


def test_the_banner_never_shows_a_piece_of_a_key(qtbot: QtBot) -> None:
    remember_secret(KNOWN)
    banner = ErrorBanner()
    qtbot.addWidget(banner)
    banner.show_error({"code": "tool_failed",
                       "message": f"server said\n{KEY[:22]}\n{KEY[22:]}\nand {KNOWN} was refused"})
    shown = banner.details.text()  # the engine's message sits in the banner's details
    assert "server said" in shown and "was refused" in shown and "***" in shown
    for secret in (KEY, KNOWN):
        assert not any(secret[i:i + 8] in shown for i in range(len(secret) - 7)), shown
