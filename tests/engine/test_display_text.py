"""The one display rule for untrusted text: what a person is shown instead of controls and hidden characters."""

from __future__ import annotations

import unicodedata

import pytest

from relavium_desktop.engine.display_text import (
    ELLIPSIS,
    MARK_CLOSE,
    MARK_OPEN,
    compact,
    elide_middle,
    kinds_sentence,
    mixed_script_warnings,
    one_spaced,
    show,
    show_block,
    show_line,
    show_value,
    target_kinds,
)

# Spoofing inputs: (raw, the markers a person must see)
SPOOFS = {
    "ansi erase + CR": ("safe\x1b[2K\rWrite notes.md.txt", ["⟦\\x1b⟧", "⟦\\r⟧"]),
    "RTL override": ("report\u202egpj.sh", ["⟦U+202E RLO⟧"]),
    "LRI/RLI isolates": ("a\u2066b\u2069c\u2067d\u2069", ["⟦U+2066 LRI⟧", "⟦U+2069 PDI⟧", "⟦U+2067 RLI⟧"]),
    "zero-width joiners": ("pay\u200dpal\u200c\u200b.sh", ["⟦U+200D ZWJ⟧", "⟦U+200C ZWNJ⟧", "⟦U+200B ZWSP⟧"]),
    "BOM": ("\ufeffnotes.md", ["⟦U+FEFF BOM⟧"]),
    "tag characters": (
        "ok\U000e0049\U000e0047\U000e004e",
        ["⟦U+E0049 TAG⟧", "⟦U+E0047 TAG⟧", "⟦U+E004E TAG⟧"],
    ),
}


def painted_is_clean(text: str) -> bool:
    """Nothing a terminal or a layout engine would act on instead of showing."""
    for char in text:
        category = unicodedata.category(char)
        if category in ("Cc", "Cf", "Cs", "Zl", "Zp") and char not in "\n\t":
            return False
    return True


@pytest.mark.parametrize("name", sorted(SPOOFS))
def test_every_spoofing_character_becomes_a_named_marker(name: str) -> None:
    raw, expected = SPOOFS[name]
    shown = show(raw)
    assert painted_is_clean(shown.text)
    for marker in expected:
        assert marker in shown.text
        assert marker in shown.markers
    assert shown.changed
    assert [piece for piece, marker in shown.parts if marker]  # the markers are pieces of their own


def test_plain_text_is_unchanged_and_reports_nothing() -> None:
    shown = show("src/app.py — “quoted” naïve 日本語 👍")
    assert shown.text == "src/app.py — “quoted” naïve 日本語 👍"
    assert not shown.changed and shown.markers == () and shown.warnings == ()


def test_line_mode_marks_newlines_and_block_mode_keeps_them() -> None:
    assert show_line("a\nb\tc") == "a⟦\\n⟧b⟦\\t⟧c"
    assert show_block("a\nb\tc") == "a\nb\tc"
    # A Windows line ending is a line ending; a lone CR (which rewrites the line) is marked.
    assert show_block("a\r\nb\rc") == "a\nb⟦\\r⟧c"
    assert show_line("\x07\x7f\x9b") == "⟦\\x07⟧⟦\\x7f⟧⟦\\x9b⟧"  # BEL, DEL and a C1 CSI


def test_a_literal_bracket_from_the_model_is_text_not_a_marker() -> None:
    shown = show("⟦U+202E RLO⟧.txt")
    assert not shown.changed and shown.parts == (("⟦U+202E RLO⟧.txt", False),)


def test_the_other_invisible_characters_are_marked_too() -> None:
    for char in ("\u00ad", "\u2060", "\u061c", "\u200e", "\u200f", "\u2028", "\u3164", "\u034f"):
        shown = show(f"a{char}b")
        assert shown.changed, hex(ord(char))
        assert f"U+{ord(char):04X}" in shown.text and painted_is_clean(shown.text)


def test_a_cyrillic_o_in_a_latin_name_gets_a_warning() -> None:
    shown = show("docs/n\u043etes.md")
    assert shown.text == "docs/n\u043etes.md" and not shown.changed
    assert len(shown.warnings) == 1
    assert "“n\u043etes.md” mixes Latin and Cyrillic" in shown.warnings[0]
    assert "U+043E CYRILLIC SMALL LETTER O" in shown.warnings[0]
    assert mixed_script_warnings("\u03b1\u03b2\u03b3 abc Москва notes.md") == []  # whole words are fine
    assert "Latin and Greek" in mixed_script_warnings("p\u03bfrt")[0]


def test_the_headline_elision_keeps_the_last_segment_and_extension() -> None:
    path = "/home/u/" + "deep/" * 55 + "install-helper.sh"
    assert len(path) > 280
    elided = elide_middle(show(path), 80)
    assert len(elided.text) <= 80
    assert elided.text.endswith("/install-helper.sh") and elided.text.startswith("/home/u/")
    assert ELLIPSIS in elided.text
    # One 300-character name: its start and (mostly) its end, the extension always.
    name = "x" * 297 + ".sh"
    cut = elide_middle(show(name), 80).text
    assert len(cut) <= 80 and cut.endswith("xx.sh") and cut.startswith("xx")
    assert elide_middle(show("short.sh"), 80).text == "short.sh"


def test_elision_never_cuts_a_marker_in_half() -> None:
    raw = ("a\u202e" * 60) + "/end.sh"
    elided = elide_middle(show(raw), 50)
    for piece, marker in elided.parts:
        if marker:
            assert piece == "⟦U+202E RLO⟧"
    assert elided.text.count(MARK_OPEN) == elided.text.count(MARK_CLOSE)
    assert elided.text.endswith("/end.sh") and elided.changed


def test_target_kinds_name_what_matters() -> None:
    assert target_kinds("report\u202egpj.sh") == ("a shell script",)
    assert target_kinds("scripts/deploy.PS1") == ("a shell script",)
    assert target_kinds("proj/.env", outside=True) == ("a hidden file", "outside the project")
    assert target_kinds("\u200b.bashrc") == ("a hidden file",)  # hiding the dot's place does not hide it
    assert target_kinds("src/app.py") == ()
    assert target_kinds("..") == ()
    assert kinds_sentence(("a shell script", "outside the project")) == (
        "This is a shell script, outside the project."
    )
    assert kinds_sentence(()) == ""


def test_structured_values_keep_markers_through_a_line_splitting_layout() -> None:
    def layout(value: object) -> str:  # like ui.readable: splits strings on every line boundary
        assert isinstance(value, dict)
        return "\n".join(f"{k}: " + " / ".join(str(v).splitlines()) for k, v in value.items())

    shown = show_value({"path": "safe\x1b[2K\rWrite notes.md.txt", "k\u200b": "a\u2028b"}, "block", layout)
    assert "path: safe⟦\\x1b⟧[2K⟦\\r⟧Write notes.md.txt" in shown.text
    assert "k⟦U+200B ZWSP⟧: a⟦U+2028 LS⟧b" in shown.text
    assert painted_is_clean(shown.text)
    assert {"⟦\\x1b⟧", "⟦\\r⟧", "⟦U+200B ZWSP⟧", "⟦U+2028 LS⟧"} <= set(shown.markers)


def test_compact_is_one_unescaped_line() -> None:
    assert (
        compact({"path": "a.txt", "append": True, "n": [1, None]})
        == '{path: "a.txt", append: true, n: [1, null]}'
    )
    shown = show_value({"content": "one\ntwo"}, "line")
    assert shown.text == '{content: "one⟦\\n⟧two"}'


def test_one_spaced_collapses_layout_space_but_keeps_what_the_rule_marks() -> None:
    assert one_spaced("  a \n\t b\rc\u2028d  ") == "a b\rc\u2028d"
    assert show_line(one_spaced("rm\r-rf")) == "rm⟦\\r⟧-rf"
