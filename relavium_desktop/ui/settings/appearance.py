"""Settings -> Appearance: light, dark or follow the system, and the text size.

The page only asks the theme to change; the theme applies it to the whole
app and keeps it in desktop-settings.ini, so the next start opens the same.
"""

from __future__ import annotations

from relavium_desktop.ui import app_settings as keys
from relavium_desktop.ui.qt import (
    QButtonGroup,
    QFormLayout,
    QGroupBox,
    QLabel,
    QRadioButton,
    QSpinBox,
    Qt,
    QVBoxLayout,
    QWidget,
)
from relavium_desktop.ui.theme import Theme, set_tone
from relavium_desktop.ui.theme.tokens import PAD_MAIN

THEME_LABELS = {"light": "Light", "dark": "Dark", "system": "Follow the system"}
DEFAULT_SIZE_TEXT = "Same as the desktop"


class AppearancePage(QWidget):
    def __init__(self, theme: Theme) -> None:
        super().__init__()
        self._theme = theme
        self.theme_buttons: dict[str, QRadioButton] = {}
        group = QButtonGroup(self)
        themes = QGroupBox("Theme")
        column = QVBoxLayout(themes)
        for choice in keys.THEME_CHOICES:
            button = QRadioButton(THEME_LABELS[choice])
            button.setObjectName(f"theme_{choice}")
            button.setChecked(choice == theme.choice)
            button.toggled.connect(lambda on, choice=choice: self._theme_toggled(choice, on))
            group.addButton(button)
            column.addWidget(button, 0, Qt.AlignmentFlag.AlignLeft)  # clickable on its words only
            self.theme_buttons[choice] = button
        hint = QLabel("Follow the system switches with your desktop's light or dark setting.")
        hint.setWordWrap(True)
        set_tone(hint, "muted")
        column.addWidget(hint)

        low, high = keys.FONT_PT_RANGE
        self.font_size = QSpinBox()
        self.font_size.setObjectName("fontSize")
        # One below the range stands for "the desktop's size" (stored as 0).
        self.font_size.setRange(low - 1, high)
        self.font_size.setSpecialValueText(DEFAULT_SIZE_TEXT)
        self.font_size.setSuffix(" pt")
        self.font_size.setValue(low - 1 if theme.font_pt_is_default else theme.font_pt)
        self.font_size.valueChanged.connect(self._size_changed)
        text = QGroupBox("Text")
        form = QFormLayout(text)
        form.addRow("Text size:", self.font_size)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(PAD_MAIN, PAD_MAIN, PAD_MAIN, PAD_MAIN)  # the main area's padding
        layout.addWidget(themes)
        layout.addWidget(text)
        layout.addStretch(1)
        theme.changed.connect(self.show_theme)

    def show_theme(self) -> None:
        """Show what is in force when it was changed elsewhere (another window, the tray)."""
        button = self.theme_buttons[self._theme.choice]
        if not button.isChecked():
            button.setChecked(True)

    def _theme_toggled(self, choice: str, on: bool) -> None:
        if on:
            self._theme.set_choice(choice)

    def _size_changed(self, value: int) -> None:
        self._theme.set_font_pt(0 if value < keys.FONT_PT_RANGE[0] else value)
