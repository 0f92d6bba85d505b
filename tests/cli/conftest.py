"""CLI test plumbing: the environment for a ``relavium`` subprocess talking to the scripted LLM server."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.llm_cli import KEY, write_providers
from tests.fixtures.llm_server import ScriptedLLMServer


@pytest.fixture
def env(cli_env: dict[str, str], relavium_home: Path, llm_server: ScriptedLLMServer) -> dict[str, str]:
    """``cli_env`` plus the test key; providers.yaml points at this test's ``llm_server``."""
    write_providers(relavium_home, llm_server.base_url)
    return {**cli_env, "RELAVIUM_TEST_KEY": KEY}
