"""Workflow cards are the design's size: ~190 px wide, 64-84 px tall, small kind, semibold name, words for state.

The real window at the design's reference size opens a real workflow file;
what is measured is each card's rectangle on screen (after the fit) and the
pixel size of its lines, which is what a person compares with the design.
"""

from __future__ import annotations

from pathlib import Path

from tests.ui.test_workflow_graph import STREAMER, open_graph
from tests.ui.workflow_samples import BRANCHY


def on_screen(graph, node_id: str) -> tuple[int, int]:
    rect = graph.mapFromScene(graph.boxes[node_id].rect()).boundingRect()
    return rect.width(), rect.height()


def test_cards_are_compact_like_the_design_and_never_blown_up_by_the_fit(
    make_window, qtbot, project: Path
) -> None:
    _window, view = open_graph(make_window, qtbot, project, text=BRANCHY)
    graph = view.graph
    assert graph.scale_now() <= 1.0  # a small graph in a big pane keeps its cards at their size
    for node_id, box in graph.boxes.items():
        width, height = on_screen(graph, node_id)
        assert 150 <= width <= 200 and 56 <= height <= 80, (node_id, width, height)
        assert box.kind.font().pixelSize() <= 12 and box.kind.text() == box.kind.text().strip()
        assert box.title.font().pixelSize() <= 14 and box.title.font().weight() > 500
        assert box.state_label.font().pixelSize() <= 12
        assert box.state_label.text() == "Not started"  # the state is still said in words
        # Every line sits inside its card.
        for line in (box.kind, box.title, box.state_label):
            assert box.rect().contains(line.mapRectToParent(line.boundingRect())), (node_id, line.text())


def test_an_agent_card_has_room_for_its_streamed_words(make_window, qtbot, project: Path) -> None:
    _window, view = open_graph(make_window, qtbot, project, rel="streamer.relavium.yaml", text=STREAMER)
    graph = view.graph
    agent, other = graph.boxes["draft"], graph.boxes["start"]
    assert agent.rect().height() > other.rect().height()
    assert agent.rect().height() <= 88
    agent.show_stream("The pricing note is ready for review")
    stream = agent.stream
    assert agent.rect().contains(stream.mapRectToParent(stream.boundingRect()))
    # Rows do not overlap: the card below the agent starts after it, with the same gap.
    below = graph.boxes["out"]
    assert below.rect().top() - agent.rect().bottom() == agent.rect().top() - other.rect().bottom() > 0
