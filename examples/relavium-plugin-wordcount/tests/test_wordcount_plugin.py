"""The example plugin's own tests: its counting, and that it is a well-formed Relavium plugin."""

from __future__ import annotations

import asyncio
from importlib.metadata import entry_points
from typing import Any

import pytest
from pydantic import ValidationError
from relavium_plugin_wordcount import TOOLS, WordcountArgs, WordcountFileArgs, count

from relavium_desktop.engine.tools.plugin_api import PluginCaps, check_plugin_tool


def test_counts_words_lines_and_characters() -> None:
    text = "It's a well-known fact.\nSecond line, 2 words?\n"
    assert count(text) == {"words": 8, "lines": 2, "characters": len(text)}


def test_top_words_are_case_folded_and_ranked() -> None:
    out = count("The cat and the hat. THE end.", top=2)
    assert out["topWords"] == [{"word": "the", "count": 3}, {"word": "cat", "count": 1}]


def test_empty_text_counts_zero() -> None:
    assert count("") == {"words": 0, "lines": 0, "characters": 0}


def test_arguments_are_bounded() -> None:
    with pytest.raises(ValidationError):
        WordcountArgs(text="x", top=51)
    with pytest.raises(ValidationError):
        WordcountFileArgs(path="")


def test_every_export_passes_relavium_checks_and_declares_only_what_it_uses() -> None:
    checked = [check_plugin_tool(t) for t in TOOLS]
    assert {t.name: t.capabilities for t in checked} == {"wordcount": (), "wordcount_file": ("fs",)}


def test_the_entry_point_is_installed() -> None:
    names = {ep.name: ep.value for ep in entry_points(group="relavium.tools")}
    assert names.get("wordcount") == "relavium_plugin_wordcount:TOOLS"


class _Fs:
    """A file capability stand-in (the real one is tested through Relavium's own suite)."""

    async def read_file(self, path: str) -> dict[str, Any]:
        return {"path": path, "content": "alpha beta\ngamma\n"}


def test_file_tool_reads_through_the_given_capability_only() -> None:
    tool = TOOLS[1]
    out = asyncio.run(tool.handler(WordcountFileArgs(path="notes.txt"), PluginCaps(fs=_Fs())))  # type: ignore[arg-type]
    assert out == {"path": "notes.txt", "words": 3, "lines": 2, "characters": 17}
    with pytest.raises(RuntimeError, match="no file access"):
        asyncio.run(tool.handler(WordcountFileArgs(path="notes.txt"), PluginCaps()))
