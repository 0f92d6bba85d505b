"""The workflow graph as a person sees it: fitted, arrowed, zoomable, coloured by state, live.

Real window at its default size, real workflow files, the real engine; the
agent test streams from the scripted LLM server.
"""

from __future__ import annotations

from pathlib import Path

from relavium_desktop.ui.qt import QApplication, QColor, QEvent, QMouseEvent, QPoint, QPointF, Qt, QWheelEvent
from relavium_desktop.ui.shell import NAV_WORKFLOWS
from relavium_desktop.ui.theme.palette import DARK, LIGHT
from relavium_desktop.ui.workflows.graph import MIN_PANE_WIDTH, STATE_ROLES, ZOOM_STEP
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.ui.workflow_samples import BRANCHY, RUN_TIMEOUT_MS

STREAMER = """\
schema_version: '1.0'
workflow:
  id: streamer
  name: Stream a draft
  agents:
    - {id: writer, provider: scripted-openai, model: gpt-4o-mini, system_prompt: Write., tools: []}
  nodes:
    - {id: start, type: input}
    - {id: draft, type: agent, agent_ref: writer, prompt_template: 'Write a note.'}
    - {id: out, type: output}
  edges: [{from: start, to: draft}, {from: draft, to: out}]
"""


def open_graph(make_window, qtbot, project: Path, rel: str = "branchy.relavium.yaml", text: str = BRANCHY):
    (project / rel).write_text(text)
    window = make_window()
    window.resize(1440, 900)  # the design's reference size
    window.show()
    qtbot.waitExposed(window)
    window.context.set_project(str(project))
    window.nav.setCurrentRow(NAV_WORKFLOWS)
    view = window.workflows_view
    qtbot.waitUntil(lambda: len(view.entries) == 1, timeout=10_000)
    view.open_workflow(rel)
    qtbot.waitUntil(lambda: view.graph.isVisible() and view.graph.viewport().width() > 0)
    return window, view


def visible_boxes(graph) -> list[str]:
    """Nodes whose whole box is inside the graph's viewport."""
    area = graph.viewport().rect()
    return [n for n, box in graph.boxes.items() if area.contains(graph.mapFromScene(box.sceneBoundingRect()).boundingRect())]


def test_graph_opens_fitted_wide_enough_and_follows_resizes(make_window, qtbot, project: Path) -> None:
    window, view = open_graph(make_window, qtbot, project)
    graph = view.graph
    assert graph.width() >= MIN_PANE_WIDTH  # not the 65 px sliver it used to be
    assert sorted(visible_boxes(graph)) == sorted(graph.boxes)
    # Not shrunk to a thumbnail either: at the default window size the boxes are readable.
    assert graph.scale_now() >= 0.6
    # A smaller window: still all there.
    window.resize(800, 520)
    qtbot.waitUntil(lambda: sorted(visible_boxes(graph)) == sorted(graph.boxes))


def test_edges_are_arrows_from_border_to_border(make_window, qtbot, project: Path) -> None:
    _window, view = open_graph(make_window, qtbot, project)
    graph = view.graph
    assert len(graph.arrows) == len(graph.edges) == 6
    for arrow in graph.arrows:
        source = graph.boxes[arrow.source_id].rect()
        target = graph.boxes[arrow.target_id].rect()
        # The line leaves the source's bottom edge and ends on the target's top edge (layers go down).
        assert abs(arrow.start.y() - source.bottom()) < 0.01 and source.left() <= arrow.start.x() <= source.right()
        assert abs(arrow.end.y() - target.top()) < 0.01 and target.left() <= arrow.end.x() <= target.right()
        # An arrowhead: a filled triangle whose tip is the end point, its base back along the line.
        head = arrow.head.polygon()
        assert head.count() == 3 and head.at(0) == arrow.end
        assert all(p.y() < arrow.end.y() for p in (head.at(1), head.at(2)))
        assert arrow.head.brush().style() == Qt.BrushStyle.SolidPattern


def test_zoom_buttons_ctrl_wheel_and_fit_change_the_view(make_window, qtbot, project: Path) -> None:
    _window, view = open_graph(make_window, qtbot, project)
    graph, pane = view.graph, view.graph_pane
    fitted = graph.scale_now()
    pane.zoom_in_button.click()
    assert abs(graph.scale_now() - fitted * ZOOM_STEP) < 1e-6
    pane.zoom_out_button.click()
    pane.zoom_out_button.click()
    assert abs(graph.scale_now() - fitted / ZOOM_STEP) < 1e-6
    # Ctrl+wheel zooms in by one step per notch.
    before = graph.scale_now()
    centre = graph.viewport().rect().center()
    wheel = QWheelEvent(QPointF(centre), QPointF(graph.viewport().mapToGlobal(centre)), QPoint(0, 0), QPoint(0, 120),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.ControlModifier, Qt.ScrollPhase.NoScrollPhase,
                        False)
    graph.wheelEvent(wheel)
    assert abs(graph.scale_now() - before * ZOOM_STEP) < 1e-6
    # After a manual zoom a resize keeps the user's zoom; Fit brings the whole graph back.
    pane.zoom_in_button.click()
    pane.zoom_in_button.click()
    assert sorted(visible_boxes(graph)) != sorted(graph.boxes)
    pane.fit_button.click()
    assert abs(graph.scale_now() - fitted) < 1e-6
    assert sorted(visible_boxes(graph)) == sorted(graph.boxes)


def test_a_zoomed_graph_pans_by_dragging(make_window, qtbot, project: Path) -> None:
    _window, view = open_graph(make_window, qtbot, project)
    graph = view.graph
    for _ in range(3):
        view.graph_pane.zoom_in_button.click()
    bar = graph.verticalScrollBar()
    assert bar.maximum() > 0  # zoomed past the pane: there is somewhere to pan to
    bar.setValue(bar.maximum() // 2)
    before = bar.value()
    port = graph.viewport()
    start, end = QPointF(port.rect().center()), QPointF(port.rect().center()) + QPointF(0, -60)

    def send(kind, at, buttons):
        event = QMouseEvent(kind, at, port.mapToGlobal(at), Qt.MouseButton.LeftButton, buttons,
                            Qt.KeyboardModifier.NoModifier)
        QApplication.sendEvent(port, event)

    left = Qt.MouseButton.LeftButton
    send(QEvent.Type.MouseButtonPress, start, left)
    send(QEvent.Type.MouseMove, start + QPointF(0, -30), left)
    send(QEvent.Type.MouseMove, end, left)
    send(QEvent.Type.MouseButtonRelease, end, Qt.MouseButton.NoButton)
    assert bar.value() == before + 60  # dragging up by 60 px shows what was 60 px further down


def test_node_colours_follow_state_and_theme(make_window, qtbot, project: Path) -> None:
    window, view = open_graph(make_window, qtbot, project)
    theme = window.context.theme
    theme.set_choice("light")
    graph = view.graph

    def mark(node: str) -> str:
        return graph.fill_of(node).name()

    def words(node: str) -> str:
        return graph.boxes[node].state_label.text()

    assert mark("start") == QColor(LIGHT["muted"]).name() and words("start") == "Not started"
    assert graph.boxes["start"].opacity() < 1  # not run yet: faded
    view.inputs.set_value("n", "3")
    with qtbot.waitSignal(view.run_finished, timeout=RUN_TIMEOUT_MS):
        view.run_button.click()
    assert mark("start") == QColor(LIGHT[STATE_ROLES["completed"]]).name() == QColor(LIGHT["success"]).name()
    assert words("start") == "Done" and graph.boxes["start"].opacity() == 1
    assert words("hi") == "Skipped" and graph.boxes["hi"].opacity() < 1
    assert mark("start") != mark("hi")
    # Cards are the surface with the strong border; the state is the bar and the words.
    assert graph.boxes["start"].brush().color().name() == QColor(LIGHT["surface"]).name()
    assert graph.boxes["start"].pen().color().name() == QColor(LIGHT["border_strong"]).name()
    text = graph.boxes["start"].title.brush().color().name()
    assert text == QColor(LIGHT["node_text"]).name()
    with qtbot.waitSignal(theme.changed):
        theme.set_choice("dark")
    assert mark("start") == QColor(DARK["success"]).name()
    assert graph.boxes["start"].brush().color().name() == QColor(DARK["surface"]).name()
    assert graph.boxes["start"].title.brush().color().name() == QColor(DARK["node_text"]).name()
    assert graph.arrows[0].head.brush().color().name() == QColor(DARK["edge"]).name()


def test_each_state_shows_its_words_and_colour(make_window, qtbot, project: Path) -> None:
    """Colour is never the only sign: every state a node can be in says so in words."""
    window, view = open_graph(make_window, qtbot, project)
    window.context.theme.set_choice("light")
    graph = view.graph
    expected = {
        "completed": ("Done", "success"),
        "running": ("Running", "accent"),
        "waiting": ("Waiting for you", "warning"),
        "failed": ("Failed", "danger"),
        "pending": ("Not started", "muted"),
        "skipped": ("Skipped", "muted"),
    }
    for state, (words, role) in expected.items():
        graph.set_state("start", state)
        box = graph.boxes["start"]
        assert box.state_label.text() == words
        assert graph.fill_of("start").name() == QColor(LIGHT[role]).name()
    graph.set_state("start", "waiting")
    box = graph.boxes["start"]
    assert box.look.halo and box.pen().color().name() == QColor(LIGHT["warning"]).name()  # warning ring and halo
    graph.set_state("start", "failed")
    assert graph.boxes["start"].pen().color().name() == QColor(LIGHT["danger"]).name()


def test_the_canvas_is_dotted(make_window, qtbot, project: Path) -> None:
    window, view = open_graph(make_window, qtbot, project)
    window.context.theme.set_choice("light")
    tile = view.graph.backgroundBrush().texture().toImage()
    colours = {tile.pixelColor(x, y).name() for x in range(tile.width()) for y in range(tile.height())}
    assert QColor(LIGHT["window"]).name() in colours and len(colours) > 1  # the window colour with dots on it


def test_a_running_agent_node_shows_its_latest_words(
    make_window, qtbot, project: Path, providers: None, llm_server: ScriptedLLMServer
) -> None:
    words = "Dear team, the release ships on Friday with the new importer and faster sync for everyone"
    llm_server.script(Reply.stall(words))
    _window, view = open_graph(make_window, qtbot, project, "streamer.relavium.yaml", STREAMER)
    view.run_button.click()
    face = view.graph.boxes["draft"]
    qtbot.waitUntil(lambda: face.stream_text != "", timeout=RUN_TIMEOUT_MS)
    assert view.graph.states["draft"] == "running"
    assert face.stream_text in " ".join(words.split())
    # The face holds one line no wider than the box, the newest words kept.
    shown = face.stream.text()
    assert "\n" not in shown and face.stream.boundingRect().width() <= face.rect().width()
    assert shown.rstrip("…").strip()[-5:] == face.stream_text[-5:], shown
    with qtbot.waitSignal(view.run_finished, timeout=RUN_TIMEOUT_MS):
        view.stop_button.click()
