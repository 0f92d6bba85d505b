"""The bar over the main area: what is open on the left, project and mode as chips on the right.

The project and the mode decide what the agent may do, so they stay in
view on every page.  The project chip says in words whether tools are on
("shop-api · tools on", "No project · tools off") and opens the folder
picker; the mode chip names the mode ("Ask before acting") and opens the
mode menu.  The bar only shows: the shell connects the chips' clicks and
feeds it the title, the project and the icons (after the first paint).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from relavium_desktop.engine.display_text import show_line
from relavium_desktop.ui.elided_label import ElidedLabel
from relavium_desktop.ui.mode_picker import ModePicker
from relavium_desktop.ui.qt import QHBoxLayout, QLabel, QPushButton, QSize, Qt, QWidget
from relavium_desktop.ui.theme import set_tone, set_variant
from relavium_desktop.ui.theme.tokens import PAD_MAIN, SPACE_1, SPACE_2, TOP_BAR_HEIGHT

if TYPE_CHECKING:
    from relavium_desktop.ui.theme.palette import Palette

NO_PROJECT = "No project · tools off"
TOOLS_ON = "tools on"
CHOOSE_HINT = "Chat works without a project; choose a folder to let agents read and change files and run commands in it."


class Chip(QPushButton):
    """A pill button whose contents are labels in its own row (so each part can have its tone)."""

    def __init__(self) -> None:
        super().__init__()
        set_variant(self, "chip")
        self.setAutoDefault(False)
        self.row = QHBoxLayout(self)
        self.row.setContentsMargins(SPACE_2 + SPACE_1, 0, SPACE_2 + SPACE_1, 0)
        self.row.setSpacing(SPACE_1 + SPACE_1 // 2)

    def add(self, widget: QWidget) -> None:
        widget.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.row.addWidget(widget, 0, Qt.AlignmentFlag.AlignVCenter)

    def sizeHint(self) -> QSize:
        own, inner = super().sizeHint(), self.row.sizeHint()
        return QSize(max(own.width(), inner.width()), max(own.height(), inner.height()))

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()


class TopBar(QWidget):
    """Title left; project chip and mode chip right (height ``TOP_BAR_HEIGHT``, 24 px sides, hairline below)."""

    def __init__(self, mode: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # "header": the application sheet gives it the surface and the hairline bottom border.
        self.setObjectName("header")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setFixedHeight(TOP_BAR_HEIGHT)
        row = QHBoxLayout(self)
        row.setContentsMargins(PAD_MAIN, 0, PAD_MAIN, 0)
        row.setSpacing(SPACE_2)

        self.title = ElidedLabel("")
        self.title.setObjectName("topBarTitle")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        set_variant(self.title, "title")
        row.addWidget(self.title, 1, Qt.AlignmentFlag.AlignVCenter)

        self.project_button = Chip()
        self.project_button.setObjectName("projectButton")
        self.folder_icon = QLabel()
        self.folder_icon.setObjectName("projectIcon")
        self.project_name = QLabel("")
        self.project_name.setObjectName("projectName")
        self.project_name.setTextFormat(Qt.TextFormat.PlainText)
        self.tools_dot = QLabel("●")
        self.tools_dot.setObjectName("toolsDot")
        set_tone(self.tools_dot, "success")
        self.tools_on = QLabel(TOOLS_ON)
        self.tools_on.setObjectName("toolsOn")
        set_tone(self.tools_on, "muted")
        self.project_note = QLabel(NO_PROJECT)
        self.project_note.setObjectName("projectNote")
        set_tone(self.project_note, "muted")
        for part in (self.folder_icon, self.project_name, self.tools_dot, self.tools_on, self.project_note):
            self.project_button.add(part)
        row.addWidget(self.project_button)

        self.mode_picker = ModePicker(mode)
        set_variant(self.mode_picker, "chip")
        row.addWidget(self.mode_picker)
        self.show_project("")

    def set_title(self, text: str) -> None:
        """What is open: the chat's title on Chats (the user's or model's words, shown plainly), else the page."""
        self.title.set_full_text(show_line(text))
        self.title.setAccessibleName(text)

    def show_project(self, project: str) -> None:
        """The project chip for ``project`` (a folder path, or "" for none)."""
        has = bool(project)
        for part in (self.project_name, self.tools_dot, self.tools_on):
            part.setVisible(has)
        self.project_note.setVisible(not has)
        if has:
            name = Path(project).name or project
            self.project_name.setText(name)
            self.project_button.setToolTip(project)
            self.project_button.setAccessibleName(f"Project {name}, tools on. Choose another project folder")
        else:
            self.project_name.setText("")
            self.project_button.setToolTip(CHOOSE_HINT)
            self.project_button.setAccessibleName("No project, tools off. Choose a project folder")
        self.project_button.updateGeometry()

    def show_icons(self, palette: Palette) -> None:
        """The chips' icons in ``palette`` (after the first paint: the icon font loads then)."""
        from relavium_desktop.ui.theme.icons import GLYPHS, icon

        size = self.project_name.sizeHint().height()
        self.folder_icon.setPixmap(icon("folder", palette, "muted").pixmap(size, size))
        # The design's shield, once the icon set names one; the lock says the same meanwhile.
        self.mode_picker.setIcon(icon("shield" if "shield" in GLYPHS else "lock", palette, "muted"))
