"""Syntax highlighting as QTextDocument-ready HTML, through Pygments.

The colours come from the Pygments style the theme names for its palette
(``pygments_style_name``), emitted as inline styles because a
QTextDocument has no stylesheet classes.  Pygments is imported on first
use: nothing here runs before a code block or a file is shown.

A fence that streams in is highlighted as runs (``runs``: a look and its
text) that the code block appends line by line, each new piece lexed on its
own; once the fence closes it is lexed whole a slice at a time
(``SlicedLex``) and only lines that came out differently (a string that
spans lines) are redrawn.  Lexers are built once per language.
"""

from __future__ import annotations

import html
import time
from collections.abc import Iterable, Iterator
from functools import lru_cache
from itertools import islice
from typing import Any, NamedTuple

MAX_HIGHLIGHT_CHARS = 200_000  # past this, plain text: a lexer on megabytes would stall the window


def highlight_html(code: str, language: str = "", *, style: str, filename: str = "", colour: str = "") -> str:
    """``code`` as ``<pre>`` HTML coloured for ``language`` (or the file's type, or not at all).

    ``colour`` is the palette's text colour for the code surface: the
    default for tokens the style leaves uncoloured, and for plain code.
    """
    pre = f'<pre style="color: {colour}">' if colour else "<pre>"
    lexer = _lexer(language.lower(), filename) if 0 < len(code) <= MAX_HIGHLIGHT_CHARS else None
    if lexer is None:
        return f"{pre}{html.escape(code.rstrip(chr(10)))}</pre>"
    from pygments import highlight

    body = highlight(code, lexer, _formatter(style))
    return f"{pre}{body.rstrip(chr(10))}</pre>"


@lru_cache(maxsize=32)
def _lexer(language: str, filename: str) -> Any:
    from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
    from pygments.util import ClassNotFound

    try:
        if language:
            return get_lexer_by_name(language, stripnl=False)
        if filename:
            return get_lexer_for_filename(filename, stripnl=False)
    except ClassNotFound:
        return None
    return None


@lru_cache(maxsize=8)
def _formatter(style: str) -> Any:
    from pygments.formatters import HtmlFormatter
    from pygments.util import ClassNotFound

    try:
        return HtmlFormatter(noclasses=True, nowrap=True, style=style)
    except ClassNotFound:
        return HtmlFormatter(noclasses=True, nowrap=True)


# -- streaming: tokens as style runs, lexed a slice at a time ----------------------------


class Look(NamedTuple):
    """A token's look in a style; an empty colour or background is the code surface's own."""

    colour: str
    bold: bool
    italic: bool
    underline: bool
    background: str


Run = tuple[Look, str]  # how a piece of code looks, and the piece


def warm() -> None:
    """Load Pygments and build the most common lexer and styles ahead (a first build costs ~100 ms)."""
    lexer = lexer_for("python")
    if lexer is not None:
        runs(lexer.get_tokens("x = 1\n"), "default")


def lexer_for(language: str, filename: str = "") -> Any:
    """The Pygments lexer for a fence's language or a file's name, or None (plain text)."""
    return _lexer(language.lower(), filename)


@lru_cache(maxsize=64)
def _look(style: str, ttype: Any) -> Look:
    found = _style_class(style).style_for_token(ttype)
    colour = f"#{found['color']}" if found["color"] else ""
    background = f"#{found['bgcolor']}" if found["bgcolor"] else ""
    return Look(colour, bool(found["bold"]), bool(found["italic"]), bool(found["underline"]), background)


@lru_cache(maxsize=8)
def _style_class(style: str) -> Any:
    from pygments.styles import get_style_by_name
    from pygments.util import ClassNotFound

    try:
        return get_style_by_name(style)
    except ClassNotFound:
        return get_style_by_name("default")


def runs(tokens: Iterable[tuple[Any, str]], style: str) -> list[Run]:
    """Lexed tokens as runs of one look each (neighbours that look alike merged)."""
    out: list[Run] = []
    for ttype, value in tokens:
        if not value:
            continue
        look = _look(style, ttype)
        if out and out[-1][0] == look:
            out[-1] = (look, out[-1][1] + value)
        else:
            out.append((look, value))
    return out


def split_lines(pieces: list[Run]) -> list[list[Run]]:
    """Runs cut at newlines: one list per line (its newline dropped), so two highlightings compare by line."""
    lines: list[list[Run]] = [[]]
    for look, value in pieces:
        parts = value.split("\n")
        for index, part in enumerate(parts):
            if index:
                lines.append([])
            if part:
                lines[-1].append((look, part))
    return lines


class SlicedLex:
    """Lex ``code`` a slice at a time: ``step`` spends about ``budget_s`` and says whether it is done.

    Pygments lexes lazily (a generator), so a long fence can be highlighted
    in pieces between other events instead of in one stall.
    """

    def __init__(self, code: str, lexer: Any, style: str) -> None:
        self._tokens: Iterator[tuple[Any, str]] = iter(lexer.get_tokens(code))
        self._style = style
        self.result: list[Run] = []

    def step(self, budget_s: float) -> bool:
        end = time.perf_counter() + budget_s
        while True:
            chunk = list(islice(self._tokens, 16))
            if not chunk:
                return True
            merged = runs(chunk, self._style)
            if self.result and merged and self.result[-1][0] == merged[0][0]:
                self.result[-1] = (merged[0][0], self.result[-1][1] + merged[0][1])
                merged = merged[1:]
            self.result.extend(merged)
            if time.perf_counter() >= end:
                return False
