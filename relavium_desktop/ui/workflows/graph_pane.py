"""The graph with its zoom controls: zoom out, zoom in, Fit.

Ctrl+wheel zooms too and dragging pans (see :class:`.graph.WorkflowGraph`);
the buttons are for people who do not know that, and Fit brings the whole
graph back after zooming.  Button icons come from the theme and are
re-tinted when it changes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from relavium_desktop.ui.qt import QHBoxLayout, Qt, QToolButton, QVBoxLayout, QWidget
from relavium_desktop.ui.theme.icons import icon
from relavium_desktop.ui.workflows.graph import WorkflowGraph

if TYPE_CHECKING:
    from relavium_desktop.ui.theme.palette import Palette


class GraphPane(QWidget):
    def __init__(self, palette: Palette, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("graphPane")
        self.graph = WorkflowGraph(palette)
        self.zoom_out_button = self._button("zoomOut", "Zoom out (Ctrl+wheel)", self.graph.zoom_out)
        self.zoom_in_button = self._button("zoomIn", "Zoom in (Ctrl+wheel)", self.graph.zoom_in)
        self.fit_button = self._button("fitGraph", "Fit the whole graph in view", self.graph.fit)
        self.fit_button.setText("Fit")
        self.fit_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addStretch(1)
        for b in (self.zoom_out_button, self.zoom_in_button, self.fit_button):
            bar.addWidget(b)
        col = QVBoxLayout(self)
        col.setContentsMargins(0, 0, 0, 0)
        col.addLayout(bar)
        col.addWidget(self.graph, 1)
        self.setMinimumWidth(self.graph.minimumWidth())
        self.set_palette(palette)

    @staticmethod
    def _button(name: str, tip: str, slot: object) -> QToolButton:
        button = QToolButton()
        button.setObjectName(name)
        button.setToolTip(tip)
        button.setAutoRaise(True)
        button.clicked.connect(slot)
        return button

    def set_palette(self, palette: Palette) -> None:
        self.zoom_out_button.setIcon(icon("zoom-out", palette))
        self.zoom_in_button.setIcon(icon("zoom-in", palette))
        self.fit_button.setIcon(icon("fit", palette))
        self.graph.set_palette(palette)
