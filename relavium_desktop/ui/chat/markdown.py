"""Model Markdown split into prose (HTML for a QTextDocument) and fenced code blocks.

The text comes from a model, so it is untrusted: raw HTML is escaped
(markdown-it with ``html`` off), link targets that could run something
(``javascript:``, ``file:``, ``data:``) are dropped by markdown-it's link
validation, and images are shown as their alt text -- a QTextBrowser would
otherwise load a local file named by the model.  Links that remain are only
opened by the transcript on click, and only for http(s).

Top-level fenced blocks become separate ``Code`` segments so the transcript
can give each one a highlighted block with its own Copy button; everything
between them is rendered as one ``Prose`` HTML string.  No Qt here.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from markdown_it import MarkdownIt


@dataclass(frozen=True, slots=True)
class Prose:
    html: str


@dataclass(frozen=True, slots=True)
class Code:
    code: str
    language: str  # the fence's info word, "" when none was given


Segment = Prose | Code

_PARSER: MarkdownIt | None = None


def _parser() -> MarkdownIt:
    """One shared parser, built on first use (markdown-it is not loaded before the first paint)."""
    global _PARSER  # noqa: PLW0603 -- a lazily built module singleton
    if _PARSER is None:
        from markdown_it import MarkdownIt

        parser = MarkdownIt("commonmark", {"html": False, "breaks": False}).enable(["table", "strikethrough"])
        parser.add_render_rule("image", _image_as_text)
        parser.add_render_rule("table_open", _table_open)
        _PARSER = parser
    return _PARSER


def _image_as_text(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    alt = self.renderInlineAsText(token.children or [], options, env)
    return html.escape(f"[image: {alt}]" if alt else "[image]")


def _table_open(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
    # QTextDocument draws no cell borders unless the table asks for them.
    return '<table border="1" cellspacing="0" cellpadding="4">\n'


def segments(text: str) -> list[Segment]:
    """The message as prose and code segments, in order."""
    parser = _parser()
    env: dict[str, Any] = {}
    tokens = parser.parse(text, env)
    out: list[Segment] = []
    start = 0
    for index, token in enumerate(tokens):
        if token.level != 0 or token.type not in ("fence", "code_block"):
            continue
        if index > start:
            out.append(Prose(parser.renderer.render(tokens[start:index], parser.options, env)))
        language = token.info.strip().split()[0] if token.type == "fence" and token.info.strip() else ""
        out.append(Code(token.content, language))
        start = index + 1
    if start < len(tokens):
        out.append(Prose(parser.renderer.render(tokens[start:], parser.options, env)))
    return out


def is_safe_link(url: str) -> bool:
    """Only web links are opened from a transcript; anything else stays text."""
    lowered = url.strip().lower()
    return lowered.startswith(("http://", "https://"))
