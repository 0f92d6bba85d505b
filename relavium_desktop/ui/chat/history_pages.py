"""Pages of a stored conversation in the transcript, built near the reader and released far from it.

A page holds a few stored blocks and the recipes that build them.  Far
from what is on screen a page releases its widgets and keeps only an empty
box of the same height (so the scroll bar and everything below stay where
they are); scrolled back near, it builds them again from the recipes.
Under the app stylesheet each Qt widget costs ~15 KB, a block 100-160 KB,
so a 500-turn chat read from top to bottom would otherwise hold every
block it ever showed.
"""

from __future__ import annotations

from collections.abc import Callable

from relavium_desktop.ui.qt import QVBoxLayout, QWidget

Recipe = Callable[[], QWidget]
NO_MAXIMUM = 16_777_215  # QWIDGETSIZE_MAX


class HistoryPage(QWidget):
    def __init__(self, recipes: list[Recipe], built: list[QWidget] | None = None, *, spacing: int = 8) -> None:
        super().__init__()
        self.setObjectName("transcriptPage")
        self.recipes = list(recipes)
        self.blocks: list[QWidget] = []
        self._column = QVBoxLayout(self)
        self._column.setContentsMargins(0, 0, 0, 0)
        self._column.setSpacing(spacing)
        if built is not None:
            self._show(built)

    @property
    def released(self) -> bool:
        return not self.blocks and bool(self.recipes)

    def build(self) -> list[QWidget]:
        """Build the page's blocks (again) from its recipes."""
        self._show([recipe() for recipe in self.recipes])
        return self.blocks

    def _show(self, blocks: list[QWidget]) -> None:
        self.blocks = blocks
        for block in blocks:
            self._column.addWidget(block)
        self.setMinimumHeight(0)
        self.setMaximumHeight(NO_MAXIMUM)

    def release(self) -> None:
        """Drop the widgets, keep the height: nothing on screen moves."""
        self.setFixedHeight(self.height())
        for block in self.blocks:
            self._column.removeWidget(block)
            block.deleteLater()
        self.blocks = []

    def drop_from(self, block: QWidget) -> None:
        """Remove ``block`` and the blocks after it (a redone last turn)."""
        index = self.blocks.index(block)
        for gone in self.blocks[index:]:
            self._column.removeWidget(gone)
            gone.deleteLater()
        del self.blocks[index:], self.recipes[index:]
