"""Activity: a run's detail offers "Undo this run's changes" with the same sheet as the chat.

The run is a real ``relavium run`` subprocess whose tool steps write in a
temp project (one edit, one new file), its checkpoints in the real
history.db the window then reads; the person's clicks go through pytest-qt.
"""

from __future__ import annotations

from pathlib import Path

from relavium_desktop.ui.chat.undo_sheet import UndoSheet
from relavium_desktop.ui.qt import Qt
from relavium_desktop.ui.shell import NAV_RUNS
from tests.helpers import run_cli
from tests.ui.words import assert_words_for_people

WRITER = """\
schema_version: '1.0'
workflow:
  id: writer
  name: Tidy the notes
  nodes:
    - { id: start, type: input }
    - id: edit
      type: tool
      tool_config: { tool_name: write_file, input_mapping: { path: notes.md, content: "ONE\\n" } }
    - id: make
      type: tool
      tool_config: { tool_name: write_file, input_mapping: { path: new.txt, content: "made\\n" } }
  edges: [{ from: start, to: edit }, { from: edit, to: make }]
"""
LEFT = Qt.MouseButton.LeftButton


def test_a_runs_changes_are_listed_then_undone_and_the_line_says_what_was_restored(
    make_window, qtbot, project: Path, cli_env: dict[str, str]
) -> None:
    (project / "notes.md").write_bytes(b"one\ntwo\n")
    flow = project / "writer.relavium.yaml"
    flow.write_text(WRITER)
    code, _out, err = run_cli("run", str(flow), "--workspace", str(project), env=cli_env)
    assert code == 0, err
    assert (project / "notes.md").read_text() == "ONE\n" and (project / "new.txt").exists()

    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    window.nav.setCurrentRow(NAV_RUNS)
    view = window.runs_view
    qtbot.waitUntil(lambda: len(view.runs) == 1, timeout=10_000)
    with qtbot.waitSignal(view.log_shown, timeout=10_000):
        view.open_run(view.runs[0]["id"])
    bar = view.undo_bar
    assert bar.isVisibleTo(view) and bar.button.text() == "Undo this run's changes"
    assert bar.label.text() == "This run changed 2 files."

    qtbot.mouseClick(bar.button, LEFT)
    qtbot.waitUntil(lambda: bar.flow is not None and bar.flow.sheet is not None, timeout=5_000)
    sheet = bar.flow.sheet
    assert isinstance(sheet, UndoSheet)
    assert sheet.headline.text() == f"Undo 2 changes in {project.name}?"
    assert sorted((r.path, r.action, r.added, r.removed) for r in sheet.rows) == [
        ("new.txt", "delete", 1, 0),
        ("notes.md", "restore", 1, 2),
    ]
    assert_words_for_people(sheet, "run undo sheet")
    with qtbot.waitSignal(sheet.finished, timeout=10_000):  # the restore runs off the window's thread
        qtbot.mouseClick(sheet.undo_button, LEFT)

    assert (project / "notes.md").read_bytes() == b"one\ntwo\n"
    assert not (project / "new.txt").exists()
    assert bar.label.text() == "Restored 1 file and deleted 1 file the agent created"
    assert not bar.button.isVisibleTo(view)  # nothing left to undo for this run

    # Selecting the run again: still nothing to undo (the undo is remembered in history.db).
    with qtbot.waitSignal(view.log_shown, timeout=10_000):
        view.table.clearSelection()
        view.open_run(view.runs[0]["id"])
    assert not bar.button.isVisibleTo(view)
