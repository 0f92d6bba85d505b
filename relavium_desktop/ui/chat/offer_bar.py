"""The bar under the transcript that says what happened and offers the way forward.

The folder offer and the mode-switch offer are the same widget with other
words and buttons: a plain-text sentence, the buttons of the current step,
and Dismiss.  Each step shows its sentence with only its own buttons; the
first of them is the bar's one primary button, Dismiss is quiet.
"""

from __future__ import annotations

from relavium_desktop.ui.qt import QHBoxLayout, QLabel, QPushButton, Qt, QWidget
from relavium_desktop.ui.theme import set_surface, set_variant
from relavium_desktop.ui.theme.tokens import SPACE_2, SPACE_3


class OfferBar(QWidget):
    def __init__(self, name: str, surface: str) -> None:
        """``surface`` is the banner kind (``banner-info``, ...): the theme gives it its colours."""
        super().__init__()
        self.setObjectName(name)
        set_surface(self, surface)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.buttons: list[QPushButton] = []
        self.dismiss = QPushButton("Dismiss")
        self.dismiss.setAutoDefault(False)
        set_variant(self.dismiss, "ghost")
        self.dismiss.clicked.connect(self.hide)
        self._row = QHBoxLayout(self)
        self._row.setContentsMargins(SPACE_3, SPACE_2, SPACE_2, SPACE_2)
        self._row.setSpacing(SPACE_2)
        self._row.addWidget(self.label, 1)
        self._row.addWidget(self.dismiss)
        self.setVisible(False)

    def button(self, text: str, name: str) -> QPushButton:
        """A step's button, placed before Dismiss."""
        button = QPushButton(text)
        button.setObjectName(name)
        button.setAutoDefault(False)
        self._row.insertWidget(self._row.count() - 1, button)
        self.buttons.append(button)
        return button

    def show_step(self, text: str, *shown: QPushButton) -> None:
        """Say ``text`` with only the ``shown`` buttons (and Dismiss)."""
        self.label.setText(text)
        for button in self.buttons:
            button.setVisible(button in shown)
            set_variant(button, "primary" if shown and button is shown[0] else "secondary")
        self.setVisible(True)
