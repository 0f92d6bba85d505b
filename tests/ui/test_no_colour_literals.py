"""No colour is spelled anywhere in the app except the palettes.

A colour written into a view is one the dark theme cannot change and the
contrast test never sees.  This walks every module of ``relavium_desktop``
(``ui/theme/palette.py`` is the one place colours live) and lists each
file:line that spells one: a hex colour inside a string, ``rgb()`` /
``rgba()`` / ``hsl()``, a named CSS colour in a stylesheet or HTML
attribute, ``QColor("name")`` / ``QColor(255, ...)``, or
``Qt.GlobalColor.<colour>``.  ``transparent`` is not a colour.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "relavium_desktop"
ALLOWED = {"ui/theme/palette.py"}
# Files other engineers are converting at the same time (issue 14); each is listed
# here only while it still has literals, and comes off the list when converted.
PENDING: set[str] = set()

_NAMES = (
    "white|black|red|green|blue|yellow|gray|grey|orange|purple|pink|brown|cyan|magenta|navy|maroon|"
    "teal|olive|silver|lime|gold|darkred|darkgreen|darkblue|darkgray|darkgrey|lightgray|lightgrey"
)
# Looked for inside string literals only (comments may talk about colours).
IN_STRINGS = [
    re.compile(r"(?<![\w&])#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})\b"),
    re.compile(r"\b(?:rgba?|hsla?)\s*\(", re.IGNORECASE),
    re.compile(
        r"(?:^|[\s;{\"'])(?:color|background|background-color|border(?:-[a-z]+)?|selection-(?:background-)?color)"
        rf"\s*:[^;{{}}]*\b(?:{_NAMES})\b",
        re.IGNORECASE,
    ),
    re.compile(rf"\b(?:bg)?color\s*=\s*[\"']?(?:{_NAMES})\b", re.IGNORECASE),
]
# Looked for in the code itself.
IN_CODE = [
    re.compile(r"\bQColor\(\s*[rRbBuUfF]*[\"']"),
    re.compile(r"\bQColor\(\s*\d"),
    re.compile(
        r"\bQt\.(?:GlobalColor\.)?(?:white|black|red|darkRed|green|darkGreen|blue|darkBlue|cyan|darkCyan|"
        r"magenta|darkMagenta|yellow|darkYellow|gray|darkGray|lightGray)\b"
    ),
]


def _string_tokens(source: str) -> list[tuple[int, str]]:
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    kinds = {tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}
    return [(tok.start[0], tok.string) for tok in tokens if tok.type in kinds]


def colour_literals(path: Path) -> list[tuple[int, str]]:
    """(line, text) for each colour literal in the module at ``path``."""
    source = path.read_text(encoding="utf-8")
    found: set[tuple[int, str]] = set()
    for line, text in _string_tokens(source):
        for pattern in IN_STRINGS:
            for match in pattern.finditer(text):
                found.add((line + text.count("\n", 0, match.start()), match.group(0).strip()))
    for number, code in enumerate(source.splitlines(), start=1):
        for pattern in IN_CODE:
            for match in pattern.finditer(code):
                found.add((number, match.group(0)))
    return sorted(found)


def _modules() -> list[tuple[str, Path]]:
    return sorted(
        (path.relative_to(PACKAGE).as_posix(), path) for path in PACKAGE.rglob("*.py")
        if path.relative_to(PACKAGE).as_posix() not in ALLOWED
    )


def test_no_module_spells_a_colour() -> None:
    found = [
        f"relavium_desktop/{rel}:{line}: {text}"
        for rel, path in _modules() if rel not in PENDING
        for line, text in colour_literals(path)
    ]
    assert found == [], "colours belong in ui/theme/palette.py (use a role, set_tone or set_surface):\n" + "\n".join(
        found
    )


def test_pending_files_still_need_converting() -> None:
    """A file comes off PENDING as soon as it is clean, so the list never hides a regression."""
    clean = sorted(rel for rel in PENDING if not colour_literals(PACKAGE / rel))
    assert clean == []


def test_the_check_finds_each_kind_of_literal(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "a = '#fee2e2'\n"
        "b = f'color: #abc; {x}'\n"
        "c = 'background: rgba(0, 0, 0, 0.5)'\n"
        "d = QColor('white')\n"
        "e = Qt.GlobalColor.darkRed\n"
        "f = 'QLabel { color: red; }'\n"
        "g = '<font color=\"navy\">'\n"
        "h = QColor(255, 0, 0)\n"
        "# a comment about #ffffff is fine\n"
        "i = Qt.GlobalColor.transparent\n"
        "j = QColor(palette['text'])\n"
        "k = 'issue #14 and &#8230;'\n"
    )
    assert [line for line, _text in colour_literals(sample)] == [1, 2, 3, 4, 5, 6, 7, 8]
