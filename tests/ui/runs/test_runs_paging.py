"""Runs / History pages through every run and says "showing N of M" (pytest-qt, real history.db)."""

from __future__ import annotations

from pathlib import Path

from relavium_desktop.engine.workflow.journal import RunInfo
from relavium_desktop.store.runs import RunStore
from relavium_desktop.ui.runs.view import PAGE_SIZE
from relavium_desktop.ui.shell import NAV_RUNS

TOTAL = 2 * PAGE_SIZE + 37


def _many_runs(home: Path) -> None:
    store = RunStore.open(home)
    for i in range(TOTAL):
        run_id = f"run-{i:05d}"
        store.run_started(RunInfo(run_id, "wf", f"Flow {i}", "wf.relavium.yaml", 1_700_000_000.0 + i))
        store.finished(run_id, "completed", {"durationMs": 10})
    store.close()


def test_runs_history_says_showing_n_of_m_and_loads_more(make_window, qtbot, relavium_home: Path) -> None:
    _many_runs(relavium_home)
    window = make_window()
    window.nav.setCurrentRow(NAV_RUNS)
    view = window.runs_view
    qtbot.waitUntil(lambda: len(view.runs) == PAGE_SIZE, timeout=10_000)
    assert view.count_label.text() == f"Showing {PAGE_SIZE} of {TOTAL} runs"
    assert view.more_button.isVisibleTo(window) and view.more_button.text() == f"Load {PAGE_SIZE} more"
    assert view.cell(0, "Workflow").startswith(f"Flow {TOTAL - 1}")  # newest first
    view.open_run(f"run-{TOTAL - 5:05d}")
    qtbot.waitUntil(lambda: view.shown_run == f"run-{TOTAL - 5:05d}", timeout=10_000)

    view.more_button.click()
    qtbot.waitUntil(lambda: len(view.runs) == 2 * PAGE_SIZE, timeout=10_000)
    assert view.count_label.text() == f"Showing {2 * PAGE_SIZE} of {TOTAL} runs"
    assert view.more_button.text() == "Load 37 more"
    assert view.table.rowCount() == 2 * PAGE_SIZE
    assert view.table.selectionModel().selectedRows()[0].row() == 4  # the open run stays selected

    view.more_button.click()
    qtbot.waitUntil(lambda: len(view.runs) == TOTAL, timeout=10_000)
    assert view.count_label.text() == f"Showing {TOTAL} of {TOTAL} runs"
    assert not view.more_button.isVisibleTo(window)
    assert view.cell(TOTAL - 1, "Workflow").startswith("Flow 0")  # the oldest run is reachable


def test_a_short_history_has_nothing_more_to_load(make_window, qtbot, relavium_home: Path) -> None:
    store = RunStore.open(relavium_home)
    store.run_started(RunInfo("run-one", "wf", "Only flow", "wf.relavium.yaml", 1_700_000_000.0))
    store.finished("run-one", "completed", {"durationMs": 10})
    store.close()
    window = make_window()
    window.nav.setCurrentRow(NAV_RUNS)
    view = window.runs_view
    qtbot.waitUntil(lambda: len(view.runs) == 1, timeout=10_000)
    assert view.count_label.text() == "Showing 1 of 1 runs"
    assert not view.more_button.isVisibleTo(window)
