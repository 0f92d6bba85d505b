"""How untrusted text is shown to a person: the one display rule.

A model controls a tool call's arguments, a file controls its name and its
contents, a server controls its tool names and a workflow author controls a
gate's message -- and all of that ends up in a question a person answers
("Write report.jpg?").  Terminals and text layout engines act on some
characters instead of showing them: ESC and CR rewrite the line, a
right-to-left override turns ``report<RLO>gpj.sh`` into "reporths.jpg", and
zero-width characters, a BOM or tag characters are there without being
seen.  So every surface shows such text through :func:`show`:

* C0 and C1 control characters (and DEL) become visible escapes in a marker,
  ``⟦\\x1b⟧``, ``⟦\\r⟧``.  A newline (and a tab) is kept only in ``block`` mode,
  where a block of text (a diff, a message body) is expected.
* Bidirectional controls and invisible characters become a marker naming the
  code point, ``⟦U+202E RLO⟧``.
* A name that mixes Latin with Cyrillic or Greek letters (``nоtes.md`` with
  a Cyrillic "о") gets a warning line, like a browser's punycode display.

The result keeps which pieces are markers, so a graphical surface can style
them so they cannot be mistaken for text (a literal "⟦" typed by a model is
text, not a marker).  Display never decides anything: approval is always of
the raw (canonical) value; a surface says so when the two differ
(:data:`MARKERS_NOTICE`).  Masking comes first: callers mask, then show.

Also here, because they are display policy too: :func:`elide_middle`
(a headline keeps the end of a path, where its extension is) and
:func:`target_kinds` ("a shell script", "a hidden file", "outside the
project").  Pure: no I/O, no Qt.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

Mode = Literal["line", "block"]

MARK_OPEN = "⟦"
MARK_CLOSE = "⟧"
ELLIPSIS = "…"
MARKERS_NOTICE = (
    "This name contains hidden or control characters, shown as ⟦markers⟧. "
    "Allowing it allows the name exactly as the agent wrote it, hidden characters included."
)

# Short names for the characters people meet in spoofing attempts.
_SHORT_NAMES: dict[int, str] = {
    0x00AD: "SHY",
    0x034F: "CGJ",
    0x061C: "ALM",
    0x115F: "HANGUL FILLER",
    0x1160: "HANGUL FILLER",
    0x180E: "MVS",
    0x200B: "ZWSP",
    0x200C: "ZWNJ",
    0x200D: "ZWJ",
    0x200E: "LRM",
    0x200F: "RLM",
    0x2028: "LS",
    0x2029: "PS",
    0x202A: "LRE",
    0x202B: "RLE",
    0x202C: "PDF",
    0x202D: "LRO",
    0x202E: "RLO",
    0x2060: "WJ",
    0x2061: "FUNCTION APPLICATION",
    0x2062: "INVISIBLE TIMES",
    0x2063: "INVISIBLE SEPARATOR",
    0x2064: "INVISIBLE PLUS",
    0x2066: "LRI",
    0x2067: "RLI",
    0x2068: "FSI",
    0x2069: "PDI",
    0x3164: "HANGUL FILLER",
    0xFEFF: "BOM",
    0xFFA0: "HANGUL FILLER",
}
# Invisible characters that are not "format" (Cf) characters: fillers and a joiner that draw nothing.
_INVISIBLE_EXTRA = frozenset({0x034F, 0x115F, 0x1160, 0x3164, 0xFFA0, 0x2028, 0x2029})
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_LOOKALIKE_SCRIPTS = ("LATIN", "CYRILLIC", "GREEK")
_SEGMENT_SPLIT = re.compile(r"[\s/\\]+")
SCRIPT_EXTENSIONS = frozenset(
    {
        "sh",
        "bash",
        "zsh",
        "fish",
        "ksh",
        "csh",
        "tcsh",
        "command",
        "ps1",
        "psm1",
        "bat",
        "cmd",
        "vbs",
    }
)
PROGRAM_EXTENSIONS = frozenset({"exe", "msi", "com", "scr", "appimage", "desktop", "app", "run"})


@dataclass(frozen=True, slots=True)
class Shown:
    """Text ready to show: its pieces (``(text, is_marker)``), its markers and its warnings."""

    parts: tuple[tuple[str, bool], ...]
    markers: tuple[str, ...] = ()  # each distinct marker, in order of first appearance
    warnings: tuple[str, ...] = ()  # mixed-script names, one sentence each

    @property
    def text(self) -> str:
        """The display form as plain text (markers in their brackets)."""
        return "".join(piece for piece, _ in self.parts)

    @property
    def changed(self) -> bool:
        """Whether the display form differs from the raw text (a marker was put in)."""
        return bool(self.markers)

    def __str__(self) -> str:
        return self.text


def marker_for(char: str, mode: Mode = "line") -> str | None:
    """The marker shown instead of ``char``, or None when ``char`` is shown as itself."""
    code = ord(char)
    category = unicodedata.category(char)
    if category == "Cc":
        if mode == "block" and char in "\n\t":
            return None
        escape = _ESCAPES.get(char) or (f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}")
        return f"{MARK_OPEN}{escape}{MARK_CLOSE}"
    if category in ("Cf", "Cs") or code in _INVISIBLE_EXTRA:
        name = _SHORT_NAMES.get(code) or ("TAG" if 0xE0000 <= code <= 0xE007F else "")
        label = f"U+{code:04X} {name}".rstrip()
        return f"{MARK_OPEN}{label}{MARK_CLOSE}"
    return None


def show(text: str, mode: Mode = "line") -> Shown:
    """``text`` as it may be shown: controls escaped, bidi and invisible characters marked.

    ``line`` (the default) is for one line (a headline, a path, a title):
    newlines and tabs are marked too.  ``block`` is for a block of text (a
    diff, a message body): newlines and tabs stay, and a CR right before a
    newline (a Windows line ending) is dropped rather than marked.
    """
    if mode == "block":
        text = text.replace("\r\n", "\n")
    parts, markers = _marked(text, mode)
    return Shown(parts, markers, tuple(mixed_script_warnings(text)))


def _marked(text: str, mode: Mode) -> tuple[tuple[tuple[str, bool], ...], tuple[str, ...]]:
    parts: list[tuple[str, bool]] = []
    markers: list[str] = []
    plain: list[str] = []
    for char in text:
        marker = marker_for(char, mode)
        if marker is None:
            plain.append(char)
            continue
        if plain:
            parts.append(("".join(plain), False))
            plain = []
        parts.append((marker, True))
        if marker not in markers:
            markers.append(marker)
    if plain:
        parts.append(("".join(plain), False))
    return tuple(parts), tuple(markers)


_LAYOUT_SPACE = re.compile(r"[ \t\n]+")


def one_spaced(text: str) -> str:
    """``text`` with runs of spaces, tabs and newlines as one space, for a one-line summary.

    Unlike ``" ".join(text.split())`` it leaves CR, U+2028 and the other
    characters ``str.split`` treats as whitespace in place, so the display
    rule still marks them instead of their vanishing into a space.
    """
    return _LAYOUT_SPACE.sub(" ", text).strip(" ")


def show_line(text: str) -> str:
    """The one-line display form of ``text`` as plain text."""
    return show(text, "line").text


def show_block(text: str) -> str:
    """The block display form of ``text`` (newlines kept) as plain text."""
    return show(text, "block").text


# Marker pieces travel through a layout function wrapped in NUL/SOH: both are controls, so
# the display form of any text is free of them and the wrapping cannot be forged.
_WRAP_OPEN, _WRAP_CLOSE = "\x00", "\x01"
_WRAPPED = re.compile("\x00([^\x00\x01]*)\x01")


def show_value(value: object, mode: Mode = "block", render: Callable[[object], str] | None = None) -> Shown:
    """A structured value (tool arguments, a payload) laid out by ``render``, every string shown safely.

    Each string (dict keys included) is shown in ``mode`` before ``render``
    lays the value out (``compact`` by default), so a layout that splits
    lines (``str.splitlines`` splits on CR and on U+2028 too) never turns a
    control character into layout: it stays a marker.
    """
    texts: list[str] = []

    def wrapped(text: str) -> str:
        texts.append(text)
        parts, _ = _marked(text.replace("\r\n", "\n") if mode == "block" else text, mode)
        return "".join(f"{_WRAP_OPEN}{piece}{_WRAP_CLOSE}" if marker else piece for piece, marker in parts)

    def walk(item: object) -> object:
        if isinstance(item, str):
            return wrapped(item)
        if isinstance(item, dict):
            return {walk(k) if isinstance(k, str) else k: walk(v) for k, v in item.items()}
        if isinstance(item, list | tuple):
            return [walk(v) for v in item]
        return item

    laid_out = (render or compact)(walk(value))
    parts: list[tuple[str, bool]] = []
    markers: list[str] = []
    for i, piece in enumerate(_WRAPPED.split(laid_out)):
        if i % 2:
            parts.append((piece, True))
            if piece not in markers:
                markers.append(piece)
        elif piece:  # the layout's own text: shown by the same rule
            plain, more = _marked(piece, "block")
            parts.extend(plain)
            markers.extend(m for m in more if m not in markers)
    warnings = [w for text in texts for w in mixed_script_warnings(text)]
    return Shown(tuple(parts), tuple(markers), tuple(dict.fromkeys(warnings)))


def compact(value: object) -> str:
    """A value on one line, JSON-like but unescaped: ``{path: "a.txt", append: true}``."""
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "null"}[value]
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {compact(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(compact(v) for v in value) + "]"
    return str(value)


def _script(char: str) -> str | None:
    if not char.isalpha():
        return None
    name = unicodedata.name(char, "")
    first = name.split(" ", 1)[0]
    return first if first in _LOOKALIKE_SCRIPTS else None


def mixed_script_warnings(text: str) -> list[str]:
    """One warning per name (path segment or word) mixing Latin, Cyrillic or Greek letters."""
    warnings: list[str] = []
    for segment in _SEGMENT_SPLIT.split(text):
        counts: dict[str, list[str]] = {}
        for char in segment:
            script = _script(char)
            if script is not None:
                counts.setdefault(script, []).append(char)
        if len(counts) < 2:
            continue
        main = max(counts, key=lambda s: (len(counts[s]), s == "LATIN"))
        odd = [c for s, chars in counts.items() if s != main for c in dict.fromkeys(chars)]
        named = ", ".join(f"{c} is U+{ord(c):04X} {unicodedata.name(c, '?')}" for c in odd[:5])
        scripts = " and ".join(s.capitalize() for s in sorted(counts, key=lambda s: s != main))
        quoted = "".join(piece for piece, _ in _marked(segment, "line")[0])
        warning = f"“{quoted}” mixes {scripts} letters that look alike ({named})"
        if warning not in warnings:
            warnings.append(warning)
    return warnings


def elide_middle(shown: Shown, limit: int) -> Shown:
    """``shown`` cut to about ``limit`` characters in the middle, keeping the end.

    The last path segment (and so the extension) is kept whole when it fits
    with a few characters of the start; otherwise the start and the end are
    kept in about a 1:2 ratio.  A marker is never cut in half.
    """
    atoms = [
        (piece, True) if marker else (c, False)
        for piece, marker in shown.parts
        for c in ((piece,) if marker else piece)
    ]
    total = sum(len(a) for a, _ in atoms)
    if total <= limit:
        return shown
    budget = max(limit - len(ELLIPSIS), 2)
    last_sep = max((i for i, (a, m) in enumerate(atoms) if not m and a in "/\\"), default=-1)
    tail_len = sum(len(a) for a, _ in atoms[max(last_sep, 0) :])  # the separator stays with the name
    min_head = min(12, budget // 4)
    tail_budget = tail_len if last_sep >= 0 and tail_len + min_head <= budget else budget * 2 // 3
    head = _take(atoms, budget - tail_budget)
    tail = _take(list(reversed(atoms)), tail_budget)[::-1]
    pieces: list[tuple[str, bool]] = []
    for text, marker in [*head, (ELLIPSIS, False), *tail]:
        if pieces and not marker and not pieces[-1][1]:
            pieces[-1] = (pieces[-1][0] + text, False)
        else:
            pieces.append((text, marker))
    return Shown(tuple(pieces), shown.markers, shown.warnings)


def _take(atoms: list[tuple[str, bool]], budget: int) -> list[tuple[str, bool]]:
    taken: list[tuple[str, bool]] = []
    used = 0
    for atom in atoms:
        if used + len(atom[0]) > budget:
            break
        taken.append(atom)
        used += len(atom[0])
    return taken


def target_kinds(path: str, *, outside: bool = False) -> tuple[str, ...]:
    """What kind of target a path is, where that matters to the person asked.

    "a shell script" (or "a program") by its extension, "a hidden file" for
    a dot-name, and "outside the project" when the caller knows it is.
    """
    kinds: list[str] = []
    name = re.split(r"[/\\]", path.rstrip("/\\ "))[-1].strip()
    visible = "".join(c for c in name if marker_for(c) is None)
    extension = visible.rsplit(".", 1)[1].lower() if "." in visible.lstrip(".") else ""
    if extension in SCRIPT_EXTENSIONS:
        kinds.append("a shell script")
    elif extension in PROGRAM_EXTENSIONS:
        kinds.append("a program")
    if visible.startswith(".") and visible not in (".", ".."):
        kinds.append("a hidden file")
    if outside:
        kinds.append("outside the project")
    return tuple(kinds)


def kinds_sentence(kinds: tuple[str, ...]) -> str:
    """``("a shell script", "outside the project")`` as "This is a shell script, outside the project."."""
    if not kinds:
        return ""
    return "This is " + ", ".join(kinds) + "."
