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

While an answer streams, ``top_blocks`` splits the not-yet-final tail of the
text into its top-level blocks (all but the last are final: Markdown never
reopens a block once the next one has begun) and ``hold_back`` trims the
open block to what already parses, so a half-typed marker (``**``, a
backtick, a fence line, a table row) is never painted raw.

Table cells and links carry placeholders (``style="--th;``, ``<a href=``) that
the view fills with palette colours (``paint``): no colour is spelled here.
"""

from __future__ import annotations

import html
import re
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

        # ``breaks``: a single newline in a chat answer is a line break, as people (and models) mean it.
        parser = MarkdownIt("commonmark", {"html": False, "breaks": True}).enable(["table", "strikethrough"])
        parser.add_render_rule("image", _image_as_text)
        parser.add_render_rule("table_open", _table_open)
        parser.add_render_rule("th_open", _cell_open)
        parser.add_render_rule("td_open", _cell_open)
        _PARSER = parser
    return _PARSER


def _image_as_text(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    alt = self.renderInlineAsText(token.children or [], options, env)
    return html.escape(f"[image: {alt}]" if alt else "[image]")


def _table_open(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
    # No grid: rows are told apart by a hairline under each cell (``paint`` fills it in).
    return '<table border="0" cellspacing="0" cellpadding="6">\n'


def _cell_open(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    align = token.attrGet("style") or ""
    return f'<{token.tag} style="--{token.tag};{align}">'


def paint(markup: str, *, link: str, muted: str, border: str) -> str:
    """Fill the placeholders of rendered HTML with palette colours (a QTextDocument bakes them in)."""
    line = f"border-bottom: 1px solid {border}"
    return (
        markup.replace("<a href=", f'<a style="color: {link}" href=')
        .replace('style="--th;', f'style="{line}; color: {muted}; font-weight: 600; text-align: left;')
        .replace('style="--td;', f'style="{line};')
    )


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
            out.append(Prose(parser.renderer.render(tokens[start:index], parser.options, env).strip()))
        language = token.info.strip().split()[0] if token.type == "fence" and token.info.strip() else ""
        out.append(Code(token.content, language))
        start = index + 1
    if start < len(tokens):
        out.append(Prose(parser.renderer.render(tokens[start:], parser.options, env).strip()))
    return out


@dataclass(frozen=True, slots=True)
class TopBlock:
    """One top-level Markdown block of a text: what it is, where it is, and how it renders.

    ``kind`` is ``code`` (a fence or an indented block), ``table``, ``paragraph``
    (also a setext heading) or ``other`` (lists, quotes, headings, rules).
    ``start``/``end`` are character offsets of its source lines; ``inline``
    is a paragraph's inline source (its lines, indentation stripped).
    """

    kind: str
    start: int
    end: int
    html: str = ""
    code: str = ""
    language: str = ""
    closed: bool = True  # a fence: its closing marker arrived
    inline: str = ""


def top_blocks(text: str) -> list[TopBlock]:
    """The top-level blocks of ``text`` in order, each rendered on its own."""
    parser = _parser()
    env: dict[str, Any] = {}
    tokens = parser.parse(text, env)
    starts = [0]
    for match in re.finditer("\n", text):
        starts.append(match.end())
    starts.append(len(text))

    def offset(line: int) -> int:
        return starts[min(line, len(starts) - 1)]

    out: list[TopBlock] = []
    index = 0
    while index < len(tokens):
        first = tokens[index]
        end = index
        if first.nesting == 1:
            depth = 0
            for end in range(index, len(tokens)):
                depth += tokens[end].nesting
                if depth == 0:
                    break
        group = tokens[index : end + 1]
        index = end + 1
        lines = first.map or (0, 0)
        start, stop = offset(lines[0]), offset(lines[1])
        if first.type in ("fence", "code_block"):
            info = first.info.strip() if first.type == "fence" else ""
            closed = first.type != "fence" or _fence_closed(text[start:stop], first.markup)
            out.append(
                TopBlock(
                    "code",
                    start,
                    stop,
                    code=first.content,
                    language=info.split()[0] if info else "",
                    closed=closed,
                )
            )
            continue
        markup = parser.renderer.render(group, parser.options, env).strip()
        if first.type == "table_open":
            out.append(TopBlock("table", start, stop, html=markup))
        elif first.type == "paragraph_open" or (first.type == "heading_open" and first.markup in ("=", "-")):
            inline = next((t.content for t in group if t.type == "inline"), "")
            out.append(TopBlock("paragraph", start, stop, html=markup, inline=inline))
        else:
            out.append(TopBlock("other", start, stop, html=markup))
    return out


def _fence_closed(source: str, marker: str) -> bool:
    lines = source.rstrip("\n").split("\n")
    if len(lines) < 2:
        return False
    last = lines[-1].strip()
    return last.startswith(marker) and set(last) == {marker[0]}


def render_blocks(text: str) -> str:
    """``text``'s blocks as HTML (not split, not held back): a finished open block."""
    return str(_parser().render(text)).strip()


def render_inline(text: str) -> str:
    """Inline Markdown (emphasis, code spans, links) as HTML, without a paragraph around it."""
    return str(_parser().renderInline(text)).strip()


# A last line that may still turn into a fence, a table row, a list item, a heading or a rule.
_MARKER_LINE = re.compile(r"[ ]{0,3}(?:`{1,2}$|~{1,2}$|`{3}|~{3}|\||[-*+>#=_]+\s*$|\d{1,9}[.)]?\s*$)")
_TABLE_LINE = re.compile(r"[ ]{0,3}\|")
_CODE_RUN = re.compile(r"`+")
_EMPHASIS = ("**", "__", "~~")
_TRAILING = re.compile(r"[*_~`\[!]+$")


def hold_back(text: str) -> str:
    """The longest start of ``text`` that can be painted now without showing a raw Markdown marker.

    A last line that could still become a fence, a table row or a list/heading
    marker is held; so are trailing lines that may be a table's header (they
    start with ``|``); so is everything from an unclosed inline marker (a code
    span, ``**``, ``*``, a link) to the end.  What is held shows once the
    text after it resolves it, or when the message is finished.
    """
    for _ in range(8):
        shorter = _hold_once(text)
        if shorter == text:
            return text
        text = shorter
    return text


def _hold_once(text: str) -> str:
    head, _, last = text.rpartition("\n")
    if last and _MARKER_LINE.match(last):
        return head + "\n" if head or text.startswith("\n") else ""
    lines = text.split("\n")
    while lines and lines[-1] == "":
        lines.pop()
    if lines and _TABLE_LINE.match(lines[-1]):
        return "\n".join(lines[:-1]) + ("\n" if len(lines) > 1 else "")
    cut = _open_inline(text)
    if cut is not None:
        return text[:cut]
    trailing = _TRAILING.search(text)
    if trailing:
        return text[: trailing.start()]
    return text


def _open_inline(text: str) -> int | None:
    """Where an inline marker opens that nothing has closed yet, if anywhere."""
    masked = list(text)
    position = 0
    while True:  # code spans: a run of n backticks closes only with a run of exactly n
        run = _CODE_RUN.search(text, position)
        if run is None:
            break
        closing = re.compile(f"(?<!`){run.group()}(?!`)").search(text, run.end())
        if closing is None:
            return run.start()
        for i in range(run.start(), closing.end()):
            masked[i] = " " if text[i] == "\n" else "x"
        position = closing.end()
    plain = "".join(masked)
    cuts: list[int] = []
    for marker in _EMPHASIS:
        found = [m.start() for m in re.finditer(re.escape(marker), plain)]
        if len(found) % 2:
            cuts.append(found[-1])
        for at in found:
            plain = plain[:at] + "xx" + plain[at + 2 :]
    for star in "*_":
        opened: list[int] = []
        for i, char in enumerate(plain):
            if char != star:
                continue
            before = plain[i - 1] if i else " "
            after = plain[i + 1] if i + 1 < len(plain) else " "
            if opened and not before.isspace():
                opened.pop()
            elif not after.isspace() and (star == "*" or not before.isalnum()):
                opened.append(i)
        if opened:
            cuts.append(opened[0])
    bracket = plain.rfind("[")
    if bracket >= 0:
        rest = plain[bracket:]
        close = rest.find("]")
        if (
            close < 0
            or close == len(rest) - 1
            or (rest[close + 1 : close + 2] == "(" and ")" not in rest[close:])
        ):
            cuts.append(bracket - 1 if bracket and plain[bracket - 1] == "!" else bracket)
    return min(cuts) if cuts else None


def is_safe_link(url: str) -> bool:
    """Only web links are opened from a transcript; anything else stays text."""
    lowered = url.strip().lower()
    return lowered.startswith(("http://", "https://"))
