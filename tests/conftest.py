"""Shared fixtures: every test gets its own data dir via RELAVIUM_HOME."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

# Shared fixtures live in tests/fixtures/ and are registered here for every test.
pytest_plugins = ("tests.fixtures.llm_server", "tests.fast_lane")

REPO = Path(__file__).resolve().parent.parent
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Child interpreters (the real CLI, soak children) dump a native crash's stack too.
os.environ.setdefault("PYTHONFAULTHANDLER", "1")


@pytest.fixture(autouse=True)
def relavium_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("relavium-home")
    monkeypatch.setenv("RELAVIUM_HOME", str(home))
    return home


@pytest.fixture(autouse=True)
def no_remembered_secrets() -> None:
    """Each test starts as a fresh process does: knowing no secret by value.

    The masker's known values are process state by design; one test's key
    (``"a" * 64`` say) left behind would mask another test's data -- a consent
    fingerprint stored as ``***`` is not the one granted.
    """
    from relavium_desktop.engine.tools.masking import forget_secrets

    forget_secrets()


@pytest.fixture
def cli_env(relavium_home: Path) -> dict[str, str]:
    """Environment for running the real ``relavium`` console script as a subprocess."""
    env = dict(os.environ)
    env["RELAVIUM_HOME"] = str(relavium_home)
    env["PYTHONUNBUFFERED"] = "1"
    return env


def relavium_cmd() -> list[str]:
    """The installed console script next to the running interpreter."""
    script = Path(sys.executable).with_name("relavium")
    return [str(script)] if script.exists() else [sys.executable, "-m", "relavium_desktop.cli"]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the fast lane by folder (tests/fast_lane.py says what counts) before ``-m`` selects."""
    from tests.fast_lane import is_fast  # here: imported at the top it would escape assertion rewriting

    for item in items:
        if is_fast(item):
            item.add_marker(pytest.mark.fast)
