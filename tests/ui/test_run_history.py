"""Runs / History as a person reads it: local times, a timeline with a filter, a waterfall.

The run is a real ``relavium run`` subprocess (two real ``sleep`` commands of
known length, then a step that fails), read back from the real history.db.

Times: the test process is put in Asia/Kathmandu (UTC+05:45) with ``TZ`` and
``time.tzset()``, so a view that printed UTC -- or any whole-hour zone --
would show a different clock than the one expected here; the zone is reset
afterwards so other tests keep the machine's.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from relavium_desktop.ui.runs.local_time import full_local, short_local
from relavium_desktop.ui.runs.run_story import story_row
from relavium_desktop.ui.runs.view import COLUMNS
from relavium_desktop.ui.runs.waterfall import tick_step
from relavium_desktop.ui.shell import NAV_RUNS
from tests.helpers import run_cli

ZONE = "Asia/Kathmandu"

NAPS = """\
schema_version: '1.0'
workflow:
  id: naps
  name: Two naps and a fall
  tools: { allowedCommands: ['sleep 0.2', 'sleep 0.6'] }
  nodes:
    - { id: start, type: input }
    - id: short_nap
      type: tool
      tool_config: { tool_name: run_command, input_mapping: { command: sleep, args: ['0.2'] } }
    - id: long_nap
      type: tool
      tool_config: { tool_name: run_command, input_mapping: { command: sleep, args: ['0.6'] } }
    - { id: fall, type: transform, transform: 'null.boom' }
  edges: [{ from: start, to: short_nap }, { from: short_nap, to: long_nap }, { from: long_nap, to: fall }]
"""


@pytest.fixture
def kathmandu(monkeypatch: pytest.MonkeyPatch) -> Iterator[ZoneInfo]:
    monkeypatch.setenv("TZ", ZONE)
    time.tzset()
    yield ZoneInfo(ZONE)
    monkeypatch.undo()
    time.tzset()


def test_short_and_full_local_times(kathmandu: ZoneInfo) -> None:
    now = datetime(2026, 12, 1, 15, 30, tzinfo=kathmandu).timestamp()
    at = lambda *a: datetime(*a, tzinfo=kathmandu).timestamp()  # noqa: E731
    assert short_local(at(2026, 12, 1, 14, 3), now) == "Today 14:03"
    assert short_local(at(2026, 11, 30, 9, 12), now) == "Yesterday 09:12"
    assert short_local(at(2026, 11, 12, 14, 3), now) == "12 Nov 14:03"
    assert short_local(at(2025, 11, 12, 14, 3), now) == "12 Nov 2025 14:03"
    # 00:10 local is still "today" although it is the previous day in UTC.
    assert short_local(at(2026, 12, 1, 0, 10), now) == "Today 00:10"
    assert full_local(at(2026, 12, 1, 14, 3, 22)) == "Tuesday 1 December 2026, 14:03:22 +0545 (UTC+05:45)"


@pytest.fixture
def history(make_window, qtbot, project: Path, cli_env: dict[str, str], kathmandu: ZoneInfo):
    flow = project / "naps.relavium.yaml"
    flow.write_text(NAPS)
    code, _out, err = run_cli("run", str(flow), "--workspace", str(project), env=cli_env)
    assert code == 1, err  # the last step fails on purpose
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    window.nav.setCurrentRow(NAV_RUNS)
    view = window.runs_view
    qtbot.waitUntil(lambda: len(view.runs) == 1, timeout=10_000)
    with qtbot.waitSignal(view.log_shown, timeout=10_000):
        view.open_run(view.runs[0]["id"])
    return window, view


def test_history_shows_local_start_times(history, kathmandu: ZoneInfo) -> None:
    _window, view = history
    started = datetime.fromtimestamp(view.runs[0]["started_at"], kathmandu)
    assert view.cell(0, "Started") == f"Today {started:%H:%M}"
    tip = view.table.item(0, COLUMNS.index("Started")).toolTip()
    assert f"{started:%H:%M:%S} +0545 (UTC+05:45)" in tip and str(started.year) in tip


def test_timeline_lists_nodes_and_tools_and_the_filter_narrows_it(history, qtbot) -> None:
    _window, view = history
    story = view.story_view
    assert view.detail_tabs.tabText(view.detail_tabs.currentIndex()) == "Timeline"
    texts = story.texts()
    assert texts[0] == "Run started"
    assert "short_nap started · tool" in texts
    assert any(t.startswith("short_nap calls run_command") and "sleep" in t for t in texts)
    assert any(t.startswith("long_nap finished in ") for t in texts)
    assert any(t.startswith("fall failed: ") for t in texts)
    assert texts[-1].startswith("Run failed: ")
    assert not any(t.lstrip().startswith("{") for t in texts)  # sentences, not JSON

    story.which.setCurrentText("Tools")
    tools = story.texts()
    assert tools and len(tools) < len(texts)
    assert all(t.startswith(("short_nap calls", "long_nap calls", "run_command", "Ran ")) for t in tools)
    story.which.setCurrentText("Errors")
    assert [t.split(":")[0] for t in story.texts()] == ["fall failed", "Run failed"]
    story.which.setCurrentText("All")
    story.search.setText("long_nap")
    assert story.texts() and all("long_nap" in t for t in story.texts())
    assert story.table.rowCount() == len(story.texts())
    # The raw NDJSON is one click away.
    view.detail_tabs.setCurrentIndex(2)
    assert view.detail_tabs.tabText(2) == "Details"  # the run id and the raw events: the expanded detail
    assert view.log_view.isVisible() and view.log_view.toPlainText().startswith('{"type": "run:started"')


def test_waterfall_has_one_bar_per_node_proportional_to_its_duration(history, qtbot) -> None:
    _window, view = history
    view.detail_tabs.setCurrentIndex(1)
    waterfall = view.waterfall
    qtbot.waitUntil(lambda: waterfall.isVisible() and waterfall.width() > 300)
    bars = {bar.span.node: bar for bar in waterfall.bars()}
    assert list(bars) == ["start", "short_nap", "long_nap", "fall"]  # in start order, one each
    short, long_ = bars["short_nap"], bars["long_nap"]
    assert 150 <= short.span.duration_ms < long_.span.duration_ms
    ratio = long_.rect.width() / short.rect.width()
    assert abs(ratio - long_.span.duration_ms / short.span.duration_ms) < 0.02
    # Shared axis: each bar starts where the one before it ended (the steps ran one after another).
    assert long_.rect.left() >= short.rect.right() - 1
    assert short.label == f"{short.span.duration_ms} ms" or short.label.endswith(" s")
    assert bars["fall"].span.state == "failed" and bars["long_nap"].span.state == "completed"
    # The widget paints them (not only computes them): the bar's fill is the palette's success colour.
    image = waterfall.grab().toImage()
    centre = long_.rect.center()
    painted = image.pixelColor(int(centre.x() * image.devicePixelRatio()), int(centre.y() * image.devicePixelRatio()))
    assert painted.name() == view.context.theme.qcolor("success").name()


def test_axis_ticks_are_round_numbers() -> None:
    assert [tick_step(ms) for ms in (1900, 800, 45, 61_000)] == [500.0, 200.0, 20.0, 20_000.0]


def test_a_tool_summary_that_is_json_reads_as_words() -> None:
    row = story_row({"type": "agent:tool_result", "nodeId": "save", "toolId": "write_file", "success": True,
                     "outputSummary": '{"path": "notes.md", "bytesWritten": 12}'})
    assert row is not None and row.text == "Wrote notes.md · 12 B"  # the chat card's own words
    listing = story_row({"type": "agent:tool_result", "nodeId": "read", "toolId": "read_file", "success": True,
                         "outputSummary": '{"files": [{"path": "a.py", "content": ""}, {"path": "b.py"}]}'})
    assert listing is not None and listing.text == "Read · 2 files"
    other = story_row({"type": "agent:tool_result", "nodeId": "x", "toolId": "some_plugin_tool", "success": True,
                       "outputSummary": '{"answer": 42}'})
    assert other is not None and other.text == "some_plugin_tool: answer: 42"
    failed = story_row({"type": "agent:tool_result", "nodeId": "save", "toolId": "run_command", "success": False,
                        "outputSummary": "", "error": {"code": "tool_denied", "reason": "command_not_allowed",
                                                       "message": "command 'rm' is not in allowedCommands"}})
    assert failed is not None and failed.error and failed.kind == "tool"
    assert failed.text == "run_command failed: command 'rm' is not in allowedCommands"
    assert failed.detail == "tool_denied (command_not_allowed)"


def test_a_theme_switch_repaints_the_waterfall(history, qtbot) -> None:
    window, view = history
    theme = window.context.theme
    view.detail_tabs.setCurrentIndex(1)
    waterfall = view.waterfall
    qtbot.waitUntil(lambda: waterfall.isVisible() and waterfall.width() > 300)
    for choice in ("light", "dark"):
        if theme.palette.name != choice:
            with qtbot.waitSignal(theme.changed):
                theme.set_choice(choice)
        bar = next(b for b in waterfall.bars() if b.span.node == "long_nap")
        image = waterfall.grab().toImage()
        ratio = image.devicePixelRatio()
        painted = image.pixelColor(int(bar.rect.center().x() * ratio), int(bar.rect.center().y() * ratio))
        assert painted.name() == theme.qcolor("success").name(), choice
        background = image.pixelColor(2, int(waterfall.height() * ratio) - 2)
        assert background.name() == theme.qcolor("surface").name(), choice
