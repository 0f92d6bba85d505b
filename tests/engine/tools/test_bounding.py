"""Model-facing result bounding: preview, marker and a spill of the full text."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.tools.bounding import Measured, render_for_model
from relavium_desktop.engine.tools.tooldef import NodeToolConfig, ToolDef
from relavium_desktop.host.output_store import FileOutputStore
from tests.helpers import dispatch

MARKER = re.compile(
    r"\n\[\.\.\. truncated: omitted ([\d,]+) of ([\d,]+) bytes, lines? ([\d,]+)(?:-([\d,]+))? of ([\d,]+); "
    r"full output \(([\d,]+) bytes\) saved to (\S+) \.\.\.\]\n"
)


class _NoArgs(BaseModel):
    pass


def _returning(value: Any) -> ToolDef:
    async def run(args: _NoArgs, host: ToolHost, ctx: Any) -> Any:
        return value

    return ToolDef(id="produce", description="p", args_model=_NoArgs, dispatch=run)


async def _bounded(value: Any, home: Path, **config: Any):
    host = ToolHost(output_store=FileOutputStore(home / "runs"))
    return await dispatch(
        "produce", {}, tools=(_returning(value),), host=host,
        config=NodeToolConfig(output_mapping=config.get("output_mapping", {})),
    )


def _num(s: str) -> int:
    return int(s.replace(",", ""))


async def test_3000_line_result(relavium_home: Path) -> None:
    lines = [f"line {i:04d} " + "x" * 5 for i in range(1, 3001)]
    text = "\n".join(lines)
    outcome = await _bounded(text, relavium_home, output_mapping={"all": "$"})
    assert outcome.truncated
    facing = str(outcome.model_facing)
    m = Measured.of(facing)
    assert m.lines <= 2000 and m.bytes <= 51_200
    assert facing.startswith("line 0001 ")
    assert facing.endswith("line 3000 xxxxx")
    marker = MARKER.search(facing)
    assert marker, facing[:200]
    omitted_bytes, total_bytes, first, last, total_lines, _, path = marker.groups()
    assert _num(total_lines) == 3000 and _num(total_bytes) == len(text.encode())
    # The named span is exactly what is missing from head and tail.
    head, tail = facing[: marker.start()], facing[marker.end():]
    assert _num(first) == head.count("\n") + 1
    assert _num(last) == 3000 - tail.count("\n")
    assert _num(omitted_bytes) == len(text.encode()) - len(head.encode()) - len(tail.encode())
    assert Path(path).read_text(encoding="utf-8") == text
    assert outcome.spill is not None and outcome.spill.path == path
    assert outcome.mapped == {"all": text}


async def test_60kb_single_line_result(relavium_home: Path) -> None:
    text = "".join(chr(ord("a") + i % 26) for i in range(60_000))
    outcome = await _bounded(text, relavium_home)
    facing = str(outcome.model_facing)
    assert outcome.truncated and len(facing.encode()) <= 51_200
    marker = MARKER.search(facing)
    assert marker
    head, tail = facing[: marker.start()], facing[marker.end():]
    assert text.startswith(head) and text.endswith(tail) and head and tail
    assert marker.group(3) == "1" and marker.group(4) is None  # part of line 1
    assert Path(marker.group(7)).read_text() == text


async def test_structured_result_counts_lines_inside_strings(relavium_home: Path) -> None:
    content = "\n".join(f"row {i}" for i in range(2500))
    result = {"content": content, "mimeType": "text/plain", "sizeBytes": len(content)}
    outcome = await _bounded(result, relavium_home, output_mapping={"c": "content"})
    assert outcome.truncated
    assert outcome.mapped["c"] == content
    spilled = Path(outcome.spill.path).read_text()  # type: ignore[union-attr]
    assert json.loads(spilled) == result
    assert Measured.of(str(outcome.model_facing)).lines <= 2000


async def test_multibyte_cut_never_splits_a_character(relavium_home: Path) -> None:
    text = "😀" * 20_000  # 80 KB of 4-byte characters
    outcome = await _bounded(text, relavium_home)
    facing = str(outcome.model_facing)
    facing.encode("utf-8")  # would raise on a split surrogate pair
    assert "\ufffd" not in facing


async def test_small_result_passes_through_untouched(relavium_home: Path) -> None:
    outcome = await _bounded({"a": 1}, relavium_home)
    assert not outcome.truncated and outcome.spill is None
    assert str(outcome.model_facing) == render_for_model({"a": 1})


async def test_without_output_store_the_marker_says_so() -> None:
    outcome = await dispatch("produce", {}, tools=(_returning("y\n" * 5000),))
    assert outcome.truncated and outcome.spill is None
    assert "not saved" in str(outcome.model_facing)


def test_escaped_backslash_n_is_not_a_line_break() -> None:
    # A literal backslash followed by "n" in the data is one line, not two.
    assert Measured.of(render_for_model({"p": "C:\\new"})).lines == 1
    assert Measured.of(render_for_model({"p": "a\nb"})).lines == 2
    assert Measured.of(render_for_model({"p": "a\\\nb"})).lines == 2
