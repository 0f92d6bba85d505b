"""Syntax highlighting as QTextDocument-ready HTML, through Pygments.

The colours come from the Pygments style the theme names for its palette
(``pygments_style_name``), emitted as inline styles because a
QTextDocument has no stylesheet classes.  Pygments is imported on first
use: nothing here runs before a code block or a file is shown.
"""

from __future__ import annotations

import html
from functools import lru_cache
from typing import Any

MAX_HIGHLIGHT_CHARS = 200_000  # past this, plain text: a lexer on megabytes would stall the window


def highlight_html(code: str, language: str = "", *, style: str, filename: str = "", colour: str = "") -> str:
    """``code`` as ``<pre>`` HTML coloured for ``language`` (or the file's type, or not at all).

    ``colour`` is the palette's text colour for the code surface: the
    default for tokens the style leaves uncoloured, and for plain code.
    """
    pre = f'<pre style="color: {colour}">' if colour else "<pre>"
    lexer = _lexer(language.lower(), filename) if len(code) <= MAX_HIGHLIGHT_CHARS else None
    if lexer is None:
        return f"{pre}{html.escape(code.rstrip(chr(10)))}</pre>"
    from pygments import highlight

    body = highlight(code, lexer, _formatter(style))
    return f"{pre}{body.rstrip(chr(10))}</pre>"


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
