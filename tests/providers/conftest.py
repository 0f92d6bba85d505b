"""The scripted local LLM server, one per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fixtures.llm_server import ScriptedLLMServer


@pytest.fixture
def llm_server() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as server:
        yield server
