"""The shipped faces: Inter for the interface, JetBrains Mono (no ligatures) for code, at the user's size.

Real Qt font resolution throughout (QFontInfo says which face Qt actually
picked) and real rendering for the ligatures: "->" drawn as one arrow glyph
would look different from "-" and ">" side by side.
"""

from __future__ import annotations

from relavium_desktop.ui.qt import QApplication, QFont, QFontDatabase, QLabel, Qt, QWidget
from relavium_desktop.ui.theme import fonts, set_surface, set_variant


def face(widget: QWidget) -> str:
    from PySide6.QtGui import QFontInfo

    return QFontInfo(widget.font()).family()


def test_the_shipped_faces_are_registered_once_with_their_licences(theme) -> None:
    families = fonts.load_fonts()
    assert fonts.load_fonts() == families  # a second theme or window registers nothing again
    assert {fonts.UI_FAMILY, fonts.MONO_FAMILY} <= set(families)
    assert {"Regular", "Medium", "Semi Bold", "Bold"} <= set(QFontDatabase.styles(fonts.UI_FAMILY))
    assert {"Regular", "Bold"} <= set(QFontDatabase.styles(fonts.MONO_FAMILY))
    for licence in ("Inter-OFL.txt", "JetBrainsMono-OFL.txt"):
        assert "SIL Open Font License" in (fonts.FONTS_DIR / licence).read_text(encoding="utf-8")
    total = sum((fonts.FONTS_DIR / name).stat().st_size for name in fonts.FONT_FILES)
    assert total < 2_000_000  # static weights only: the bundle stays small


def test_inter_is_the_application_face_and_mono_surfaces_use_jetbrains_mono(theme, qtbot) -> None:
    assert QApplication.font().family() == fonts.UI_FAMILY
    label = QLabel("Plain words")
    path = QLabel("src/app.py")
    set_variant(path, "mono")
    code = QLabel("x = 1")
    set_surface(code, "code")
    terminal = QLabel("$ make")
    set_surface(terminal, "terminal")
    for widget in (label, path, code, terminal):
        qtbot.addWidget(widget)
        widget.ensurePolished()
    assert face(label) == fonts.UI_FAMILY
    assert face(path) == face(code) == face(terminal) == fonts.MONO_FAMILY
    from relavium_desktop.ui.qt import QPlainTextEdit, QVBoxLayout

    well = QWidget()
    set_surface(well, "terminal")
    header = QLabel("Output")
    output = QPlainTextEdit("$ pytest -q\n3 passed")
    layout = QVBoxLayout(well)
    layout.addWidget(header)
    layout.addWidget(output)
    qtbot.addWidget(well)
    for widget in (header, output):
        widget.ensurePolished()
    assert face(output) == fonts.MONO_FAMILY  # the text inside a terminal well is mono
    assert face(header) == fonts.UI_FAMILY  # its header is not
    assert output.font().featureValue(QFont.Tag("calt")) == 0  # and no ligatures reach it
    assert fonts.mono_font().family() == fonts.MONO_FAMILY


def _ink(widget: QLabel) -> bytes:
    widget.adjustSize()
    image = widget.grab().toImage()
    return bytes(image.constBits())[: image.sizeInBytes()]


def test_code_shows_every_character_as_typed_without_ligatures(theme, qtbot) -> None:
    text = "a -> b != c >= d"
    themed = QLabel(text)
    set_variant(themed, "mono")  # the sheet's mono face, ligatures switched off on the widget
    with_ligatures = QLabel(text)
    with_ligatures.setProperty("variant", "mono")  # the same face and size, ligatures left on
    for widget in (themed, with_ligatures):
        qtbot.addWidget(widget)
        widget.ensurePolished()
    assert face(themed) == face(with_ligatures) == fonts.MONO_FAMILY
    assert themed.font().pointSizeF() == with_ligatures.font().pointSizeF()
    assert _ink(themed) != _ink(with_ligatures)  # JetBrains Mono joins "->" and "!=" unless told not to
    plain = QLabel("a - b ! c")  # no ligature candidates: the two draw the same
    plain_too = QLabel("a - b ! c")
    set_variant(plain, "mono")
    plain_too.setProperty("variant", "mono")
    for widget in (plain, plain_too):
        qtbot.addWidget(widget)
        widget.ensurePolished()
    assert _ink(plain) == _ink(plain_too)
    for tag in fonts.LIGATURE_FEATURES:
        assert themed.font().featureValue(QFont.Tag(tag)) == 0


def test_the_type_scale_follows_the_text_size_setting(theme, qtbot) -> None:
    body = QLabel("Body")
    caption = QLabel("Caption")
    set_variant(caption, "caption")
    title = QLabel("Title")
    set_variant(title, "title")
    for widget in (body, caption, title):
        qtbot.addWidget(widget)

    def sizes() -> tuple[float, float, float]:
        for widget in (body, caption, title):
            widget.ensurePolished()
        return body.font().pointSizeF(), caption.font().pointSizeF(), title.font().pointSizeF()

    small = sizes()
    assert small[1] < small[0] < small[2]  # 12 px caption, 14 px body, 15 px title
    theme.set_font_pt(theme.font_pt + 6)
    large = sizes()
    assert large[0] == small[0] + 6
    assert large[1] > small[1] and large[2] > small[2]
    assert round(large[1] / large[0], 1) == round(12 / 14, 1)  # the scale is relative, not fixed


def test_group_labels_are_tracked_out(theme, qtbot) -> None:
    label = QLabel("TODAY")
    set_variant(label, "group-label")
    qtbot.addWidget(label)
    font = label.font()
    assert font.letterSpacingType() == QFont.SpacingType.PercentageSpacing and font.letterSpacing() > 100
    assert label.testAttribute(Qt.WidgetAttribute.WA_StyledBackground) is False


def test_the_fonts_ship_with_the_wheel_and_the_bundle() -> None:
    """pyproject's package data (the wheel) and the spec's collect_data_files (the bundle) carry them."""
    import tomllib
    from fnmatch import fnmatch
    from pathlib import Path

    from PyInstaller.utils.hooks import collect_data_files

    root = Path(fonts.__file__).resolve().parents[3]
    patterns = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"][
        "relavium_desktop"
    ]
    shipped = (*fonts.FONT_FILES, "Inter-OFL.txt", "JetBrainsMono-OFL.txt")
    for name in shipped:
        assert any(fnmatch(f"ui/theme/fonts/{name}", pattern) for pattern in patterns), name
    bundled = {Path(source).name for source, dest in collect_data_files("relavium_desktop")
               if dest == "relavium_desktop/ui/theme/fonts"}
    assert set(shipped) <= bundled
