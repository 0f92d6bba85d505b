"""Refresh on the Workflows page is a small icon in the list's header row, named, with F5 as its key.

A lone "Refresh" text button under the list read as a stray control.  Real
window at the design's reference size, real workflow files on disk: a file
added behind the app's back shows up after F5 or a click on the icon.
"""

from __future__ import annotations

from pathlib import Path

from relavium_desktop.ui.qt import QPoint, Qt, QToolButton
from tests.ui.test_workflow_view import flows, shown_at_reference_size  # noqa: F401 - the fixture is used
from tests.ui.workflow_samples import BRANCHY


def test_refresh_is_a_named_icon_in_the_lists_header_and_f5_reads_the_files_again(
    make_window,
    qtbot,
    project: Path,
    flows: Path,  # noqa: F811
) -> None:
    window, view = shown_at_reference_size(make_window, qtbot, project)
    button = view.refresh_button
    assert isinstance(button, QToolButton) and not button.icon().isNull()
    assert button.toolButtonStyle() == Qt.ToolButtonStyle.ToolButtonIconOnly
    assert button.accessibleName() == "Refresh" and "F5" in button.toolTip()
    # Above the list, at its right edge, on one row with the list's heading; nothing of it below the list.
    listing = view.workflow_list
    top_left = listing.mapTo(window, QPoint(0, 0))
    where = button.mapTo(window, QPoint(0, 0))
    assert where.y() + button.height() <= top_left.y()
    assert abs((where.x() + button.width()) - (top_left.x() + listing.width())) <= 8
    heading = view.list_heading.mapTo(window, QPoint(0, 0))
    assert abs(heading.y() + view.list_heading.height() / 2 - (where.y() + button.height() / 2)) <= 4
    # F5 reads the folder again.
    (flows / "another.relavium.yaml").write_text(BRANCHY.replace("id: branchy", "id: another"))
    before = len(view.entries)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    view.workflow_list.setFocus()
    with qtbot.waitSignal(view.refreshed, timeout=10_000):
        qtbot.keyClick(view.workflow_list, Qt.Key.Key_F5)
    qtbot.waitUntil(lambda: len(view.entries) == before + 1, timeout=10_000)
    # And so does a click on the icon.
    (flows / "another.relavium.yaml").unlink()
    with qtbot.waitSignal(view.refreshed, timeout=10_000):
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(view.entries) == before, timeout=10_000)
