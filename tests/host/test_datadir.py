"""The data dir: $RELAVIUM_HOME wins, otherwise the platform's user data dir."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from relavium_desktop.host.datadir import data_dir


def test_relavium_home_overrides(relavium_home: Path) -> None:
    assert data_dir() == relavium_home


def test_platform_default_when_unset(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("RELAVIUM_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert data_dir() == tmp_path / "xdg" / "Relavium"
    assert data_dir().is_dir()
    assert stat.S_IMODE(data_dir().stat().st_mode) == 0o700  # created owner-only
