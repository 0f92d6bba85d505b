"""The designed controls as a user sees them: pixels grabbed from real widgets under the app's sheet.

Both themes: a check box or radio button must show its edge unchecked and
an accent fill with a visible mark when checked (the stock Fusion look
vanished in dark before); buttons are no longer stock grey; variants get
the design's colours and shapes; floating surfaces get a themed shadow.
"""

from __future__ import annotations

import pytest

from relavium_desktop.ui.qt import (
    QCheckBox,
    QColor,
    QFrame,
    QGraphicsDropShadowEffect,
    QLabel,
    QPushButton,
    QRadioButton,
    Qt,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)
from relavium_desktop.ui.theme import set_surface, set_variant
from relavium_desktop.ui.theme.palette import DARK, LIGHT, Palette
from relavium_desktop.ui.theme.stylesheet import INDICATOR_ROLES


def pixels(widget: QWidget) -> list[QColor]:
    widget.ensurePolished()
    widget.adjustSize()
    image = widget.grab().toImage()
    return [image.pixelColor(x, y) for y in range(image.height()) for x in range(image.width())]


def near(colour: QColor, hex_colour: str, tolerance: int = 24) -> bool:
    want = QColor(hex_colour)
    return max(abs(colour.red() - want.red()), abs(colour.green() - want.green()),
               abs(colour.blue() - want.blue())) <= tolerance


def count(widget: QWidget, hex_colour: str, tolerance: int = 0) -> int:
    return sum(near(c, hex_colour, tolerance) for c in pixels(widget))


def centre(widget: QWidget) -> str:
    widget.ensurePolished()
    widget.adjustSize()
    image = widget.grab().toImage()
    return image.pixelColor(image.width() // 2, 2).name()


@pytest.mark.parametrize("palette", [LIGHT, DARK], ids=lambda p: p.name)
@pytest.mark.parametrize("kind", [QCheckBox, QRadioButton], ids=["checkbox", "radio"])
def test_check_boxes_and_radios_show_their_state_in_both_themes(theme, qtbot, palette: Palette, kind) -> None:
    theme.set_choice(palette.name)
    edge, fill, mark = (palette[INDICATOR_ROLES[key]] for key in ("border", "fill", "mark"))
    off = kind("Off")
    on = kind("On")
    qtbot.addWidget(off)
    qtbot.addWidget(on)
    on.setChecked(True)
    # Unchecked: the edge is drawn (a 16 px box or circle), and no accent.
    assert count(off, edge, 40) >= 20
    assert count(off, fill) == 0
    # Checked: the accent fill, and the mark (check or dot) on it in the mark colour.
    assert count(on, fill) >= 40
    assert count(on, mark, 40) >= 4
    assert count(on, edge) == 0 or kind is QCheckBox


def test_a_partly_checked_box_shows_a_dash(theme, qtbot) -> None:
    box = QCheckBox("Some")
    qtbot.addWidget(box)
    box.setTristate(True)
    box.setCheckState(Qt.CheckState.PartiallyChecked)
    assert count(box, LIGHT["accent"]) >= 40 and count(box, LIGHT["accent_text"], 40) >= 4


@pytest.mark.parametrize("palette", [LIGHT, DARK], ids=lambda p: p.name)
def test_buttons_have_the_design_looks(theme, qtbot, palette: Palette) -> None:
    theme.set_choice(palette.name)
    made: dict[str, QPushButton] = {}
    for variant in ("primary", "secondary", "ghost", "danger", "send"):
        button = QPushButton("Go")
        set_variant(button, variant)
        qtbot.addWidget(button)
        made[variant] = button
    plain = QPushButton("Plain")
    qtbot.addWidget(plain)
    assert centre(made["primary"]) == palette["accent"]
    assert count(made["primary"], palette["accent_text"], 40) > 0  # its label
    assert centre(plain) == centre(made["secondary"]) == palette["surface"]  # outlined on the surface, not grey
    assert count(plain, palette["border_strong"]) > 20  # the outline
    assert count(made["ghost"], palette["border_strong"]) == 0  # no outline
    assert count(made["danger"], palette["danger"], 40) > 0  # its label in danger
    made["send"].ensurePolished()
    assert made["send"].sizeHint().width() == made["send"].sizeHint().height() == 32


def test_selection_variants_use_the_soft_accent(theme, qtbot) -> None:
    segments = []
    for position in ("first", "middle", "last"):
        segment = QPushButton(position)
        segment.setCheckable(True)
        segment.setProperty("position", position)
        set_variant(segment, "segment")
        qtbot.addWidget(segment)
        segments.append(segment)
    segments[1].setChecked(True)
    assert centre(segments[1]) == LIGHT["accent_soft"]
    assert centre(segments[0]) == LIGHT["surface"]
    row = QLabel("A chat")
    row.setProperty("selected", "true")
    set_variant(row, "list-row")
    qtbot.addWidget(row)
    assert centre(row) == LIGHT["accent_soft"]
    nav = QPushButton("Chats")
    nav.setCheckable(True)
    nav.setChecked(True)
    set_variant(nav, "nav")
    qtbot.addWidget(nav)
    assert centre(nav) == LIGHT["surface"] and count(nav, LIGHT["border"]) > 20  # surface + hairline
    tile = QPushButton("1  Summarise")
    tile.setCheckable(True)
    tile.setChecked(True)
    set_variant(tile, "tile")
    qtbot.addWidget(tile)
    assert centre(tile) == LIGHT["accent_soft"] and count(tile, LIGHT["accent"]) > 20


def test_tables_have_no_grid_only_row_hairlines(theme, qtbot) -> None:
    table = QTableWidget(2, 2)
    table.verticalHeader().hide()
    for row in range(2):
        for column in range(2):
            table.setItem(row, column, QTableWidgetItem(""))
    table.resize(300, 160)
    qtbot.addWidget(table)
    table.show()
    qtbot.waitExposed(table)
    image = table.viewport().grab().toImage()
    # Down the middle of the first column: hairlines under rows but no vertical grid line across it.
    x = table.columnViewportPosition(1) - 1  # where a grid line between columns would be
    column = {image.pixelColor(x, y).name() for y in range(2, table.rowViewportPosition(1) - 2)}
    assert column <= {LIGHT["surface"]}, column
    down_the_first_cell = [image.pixelColor(20, y).name() for y in range(table.rowViewportPosition(1) + 1)]
    assert down_the_first_cell.count(LIGHT["border"]) == 1, down_the_first_cell  # one hairline under the row


@pytest.mark.parametrize("palette", [LIGHT, DARK], ids=lambda p: p.name)
def test_floating_surfaces_get_a_cheap_themed_shadow(theme, qtbot, palette: Palette) -> None:
    composer = QFrame()
    set_surface(composer, "composer")
    qtbot.addWidget(composer)
    effect = theme.elevate(composer)
    assert composer.graphicsEffect() is effect and isinstance(effect, QGraphicsDropShadowEffect)
    assert effect.blurRadius() <= 16
    theme.set_choice(palette.name)  # follows a later switch
    assert effect.color().name() == palette["shadow"]
    assert 0 < effect.color().alphaF() < 0.6
    sheet = QFrame()
    qtbot.addWidget(sheet)
    assert theme.elevate(sheet, "overlay").blurRadius() <= 16
    with pytest.raises(ValueError):
        theme.elevate(sheet, "floating")


def test_the_scrim_veils_the_window_in_both_themes(theme) -> None:
    light = theme.scrim()
    theme.set_choice("dark")
    dark = theme.scrim()
    assert light.name() == LIGHT["shadow"] and dark.name() == DARK["shadow"]
    assert 0 < light.alphaF() < dark.alphaF() < 1  # see-through, darker over the dark theme


def test_a_list_in_the_sidebar_sits_on_it_with_a_soft_selected_row(theme, qtbot) -> None:
    from relavium_desktop.ui.qt import QListWidget, QVBoxLayout

    sidebar = QWidget()
    set_surface(sidebar, "sidebar")
    chats = QListWidget()
    chats.addItems(["Tidy the pricing module", "Checklist from meeting notes"])
    QVBoxLayout(sidebar).addWidget(chats)
    qtbot.addWidget(sidebar)
    sidebar.resize(264, 200)
    sidebar.show()
    qtbot.waitExposed(sidebar)
    chats.setCurrentRow(0)
    image = sidebar.grab().toImage()
    viewport = chats.viewport().mapTo(sidebar, chats.viewport().rect().topLeft())
    below_rows = viewport.y() + chats.viewport().height() - 4
    assert image.pixelColor(image.width() // 2, below_rows).name() == LIGHT["sidebar"]  # no white card
    first = chats.visualItemRect(chats.item(0)).translated(viewport)
    assert image.pixelColor(first.right() - 4, first.center().y()).name() == LIGHT["accent_soft"]


def test_a_table_given_the_design_look_has_no_grid_and_left_headers(theme, qtbot) -> None:
    from relavium_desktop.ui.theme import set_table_look

    table = QTableWidget(2, 2)
    table.setHorizontalHeaderLabels(["Project", "Granted"])
    qtbot.addWidget(table)
    set_table_look(table)
    assert not table.showGrid() and not table.verticalHeader().isVisible()
    header = table.horizontalHeader()
    assert header.defaultAlignment() & Qt.AlignmentFlag.AlignLeft
    table.resize(400, 150)
    table.show()
    qtbot.waitExposed(table)
    image = header.grab().toImage()
    inked = [x for x in range(header.sectionSize(0)) for y in range(image.height())
             if image.pixelColor(x, y).name() != LIGHT["surface"] and y < image.height() - 2]
    assert inked and max(inked) < header.sectionSize(0) // 2  # "Project" sits at the left of its column
