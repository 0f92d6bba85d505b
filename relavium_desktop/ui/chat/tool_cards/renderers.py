"""The expanded card: each tool's result shown the way a person reads that kind of thing.

A file is highlighted by its type, a command's output sits in a terminal
block with its exit code, write_file is a diff (from the write's checkpoint,
removed lines included; without one, the written text as added lines), an HTTP answer is
its status line and headers then the body, a listing is a tree, and
anything else a key/value view -- never escaped JSON.  A renderer is built
only when the card is first expanded, so a long history costs one line per
call.  ``toPlainText()`` is what the renderer shows, as text.  Everything in a result came from a
model, a file or a server, so it is shown by the one display rule (``engine/display_text.py``):
controls and bidi or invisible characters appear as styled markers, never raw.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from typing import Any

from relavium_desktop.engine.display_text import Mode, show, show_block, show_line
from relavium_desktop.ui.chat import look
from relavium_desktop.ui.chat.code_block import CodeBlock
from relavium_desktop.ui.chat.rich_text import FittedText
from relavium_desktop.ui.chat.tool_cards.results import Outcome, refusal_sentence
from relavium_desktop.ui.qt import QFrame, QLabel, Qt, QVBoxLayout, QWidget
from relavium_desktop.ui.theme.fonts import mono_font
from relavium_desktop.ui.untrusted import marked_html, set_shown

MAX_SHOWN_CHARS = 20_000


class ResultView(QFrame):
    """A column of parts with the plain text they show, for copy and for tests."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("toolResult")
        self.setProperty("details", True)  # the expanded detail: where ids and codes may be read
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 4, 0, 0)
        self._layout.setSpacing(4)
        self._text: list[str] = []

    def add(self, widget: QWidget, text: str) -> None:
        self._layout.addWidget(widget)
        self._text.append(text)

    def toPlainText(self) -> str:  # reads like the Qt text views it stands in for
        return "\n".join(t for t in self._text if t)


def _clip(text: str) -> str:
    return text if len(text) <= MAX_SHOWN_CHARS else text[:MAX_SHOWN_CHARS] + "\n…"


def _html(text: str, theme: Any, mode: Mode = "block") -> str:
    """Untrusted text as rich text: escaped, with its markers styled."""
    return marked_html(show(text, mode), look.palette_of(theme))


def _label(text: str, tone: str | None = None, theme: Any = None) -> QLabel:
    label = QLabel()
    set_shown(label, text, look.palette_of(theme), "block")
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    if tone:
        look.tone(label, tone)
    return label


def _terminal(text: str, theme: Any) -> QWidget:
    frame = QFrame()
    look.surface(frame, "terminal")
    view = FittedText(wrap=False)
    view.setObjectName("terminalText")
    colour = look.palette_of(theme)["terminal_text"]
    view.setHtml(f'<pre style="color: {colour}">{_html(text, theme)}</pre>')
    layout = QVBoxLayout(frame)
    layout.setContentsMargins(8, 6, 8, 6)
    layout.addWidget(view)
    return frame


def _read_file(o: Outcome, view: ResultView, theme: Any) -> None:
    files = o.field("files")
    items = files if isinstance(files, list) else [None]
    for item in items:
        content = (item.get("content") if isinstance(item, dict) else o.text_field("content")) or ""
        path = str(item.get("path", "")) if isinstance(item, dict) else str(o.args.get("path", ""))
        view.add(CodeBlock(show_block(_clip(content)), theme=theme, filename=show_line(path)), show_block(content))


def _run_command(o: Outcome, view: ResultView, theme: Any) -> None:
    out = o.text_field("stdout") or ""
    err = o.text_field("stderr") or ""
    code = o.field("exitCode")
    shown = "$ " + " ".join(_argv(o)) + "\n"
    shown += out + (("\n" if out and not out.endswith("\n") else "") + err if err else "")
    view.add(_terminal(_clip(shown.rstrip("\n")), theme), show_block(shown))
    if isinstance(code, int):
        view.add(_label(f"exit {code}", "success" if code == 0 else "danger"), f"exit {code}")
    note = o.text_field("sandbox")  # unconfined by opt-in, or the sandbox rule that stopped it
    if note:
        view.add(_label(show_line(note), "warning", theme), show_line(note))


def _argv(o: Outcome) -> list[str]:
    a = o.args
    if o.tool_id == "git_status":
        flags = a.get("flags")
        return ["git", str(a.get("subcommand", "status")), *(str(f) for f in flags or [] if isinstance(flags, list))]
    if o.tool_id == "git_commit":
        return ["git", "commit", "-m", repr(str(a.get("message", "")))]
    argv = a.get("args")
    return [str(a.get("command", "")), *(str(x) for x in (argv if isinstance(argv, list) else []))]


def _write_file(o: Outcome, view: ResultView, theme: Any) -> None:
    diff = o.extra.get("diff")
    if diff is not None and (diff.lines or diff.sentence):
        _checkpoint_diff(diff, view, theme)
        return
    content = o.args.get("content")
    if not isinstance(content, str):
        _key_values(o, view, theme)
        return
    palette = look.palette_of(theme)
    add_bg, add_fg = palette["diff_add_bg"], palette["diff_add_text"]
    rows = "".join(
        f'<tr><td style="background:{add_bg}; color:{add_fg}">+ {_html(line, theme)}</td></tr>'
        for line in _lines(_clip(content)) or [""]
    )
    diff = FittedText(wrap=False)
    diff.setObjectName("diffText")
    diff.setFont(mono_font())  # the shipped mono face, ligatures off: "->" stays two characters
    diff.setHtml(f'<table width="100%" cellspacing="0" cellpadding="1">'
                 f"{rows}</table>")
    view.add(diff, "\n".join("+ " + show_block(line) for line in _lines(content)))


def _checkpoint_diff(diff: Any, view: ResultView, theme: Any) -> None:
    """The write's real change from its checkpoint (``application.undo.DiffText``): removed lines
    too, each with its old or new line number, a gap between two hunks shown as ``⋯``."""
    if not diff.lines:
        view.add(_label(diff.sentence, "muted", theme), diff.sentence)
        return
    palette = look.palette_of(theme)
    colours = {
        "added": (palette["diff_add_bg"], palette["diff_add_text"], "+"),
        "removed": (palette["diff_remove_bg"], palette["diff_remove_text"], "-"),
        "context": ("transparent", palette["code_text"], " "),
        "hunk": ("transparent", palette["info"], ""),
    }
    faint = palette["faint"]
    rows, text = [], []
    shown_chars = 0
    for position, line in enumerate(diff.lines):
        if line.kind == "hunk" and position == 0:
            continue  # the line numbers say where the change starts
        bg, fg, mark = colours[line.kind]
        number = line.new_no if line.kind == "added" else line.old_no
        body = "⋯" if line.kind == "hunk" else mark + " " + line.text  # a gap between two hunks
        if shown_chars <= MAX_SHOWN_CHARS:
            rows.append(
                f'<tr><td width="1%" align="right" style="color:{faint}; padding-right:8px">{number or ""}</td>'
                f'<td style="background:{bg}; color:{fg}">{_html(body, theme)}</td></tr>'
            )
        shown_chars += len(body)
        text.append(show_block(body))
    table = FittedText(wrap=False)
    table.setObjectName("diffText")
    table.setFont(mono_font())  # the shipped mono face, ligatures off
    table.setHtml(f'<table width="100%" cellspacing="0" cellpadding="1">'
                  f"{''.join(rows)}</table>")
    view.add(table, "\n".join(text))


def _lines(text: str) -> list[str]:
    """Lines split on newlines only: a CR or U+2028 stays in its line, to be shown as a marker."""
    return text.removesuffix("\n").split("\n") if text else []


def _http_request(o: Outcome, view: ResultView, theme: Any) -> None:
    status = o.field("status")
    headers = o.field("headers")
    lines = [f"HTTP {status}  {o.field('url') or o.args.get('url', '')}"]
    if isinstance(headers, dict):
        lines += [f"{k}: {v}" for k, v in headers.items()]
    view.add(_label("\n".join(lines), "muted", theme), show_block("\n".join(lines)))
    body = o.text_field("body") or ""
    kind = next((str(v) for k, v in headers.items() if str(k).lower() == "content-type"), "") \
        if isinstance(headers, dict) else ""
    language = "json" if "json" in kind else "html" if "html" in kind else ""
    view.add(CodeBlock(show_block(_clip(body)), language, theme=theme), show_block(body))


def _list_directory(o: Outcome, view: ResultView, theme: Any) -> None:
    entries = o.field("entries")
    if not isinstance(entries, list):
        _key_values(o, view, theme)
        return
    lines = tree_lines([(str(e.get("name", "")), str(e.get("type", ""))) for e in entries if isinstance(e, dict)])
    text = show_block("\n".join(lines))
    block = FittedText(wrap=False)
    block.setObjectName("treeText")
    block.setFont(mono_font())  # indents line up
    block.setPlainText(text)
    view.add(block, text)


def tree_lines(entries: list[tuple[str, str]]) -> list[str]:
    """``a/b.txt``-style names as an indented tree, folders marked with a slash."""
    lines: list[str] = []
    for name, kind in sorted(entries):
        parts = name.strip("/").split("/")
        lines.append("    " * (len(parts) - 1) + parts[-1] + ("/" if kind in ("dir", "directory") else ""))
    return lines


def _web_search(o: Outcome, view: ResultView, theme: Any) -> None:
    results = o.field("results")
    if not isinstance(results, list):
        _key_values(o, view, theme)
        return
    from relavium_desktop.ui.chat.markdown import is_safe_link

    parts, plain = [], []
    for r in results:
        if not isinstance(r, dict):
            continue
        title, url, snippet = (str(r.get(k) or "") for k in ("title", "url", "snippet"))
        head = (f'<a href="{html.escape(url, quote=True)}">{_html(title or url, theme, "line")}</a>'
                if is_safe_link(url) else _html(title or url, theme, "line"))
        parts.append(f"<p><b>{head}</b><br>{_html(url, theme, 'line')}<br>{_html(snippet, theme)}</p>")
        plain.append(show_block(f"{show_line(title)}\n{show_line(url)}\n{snippet}"))
    block = FittedText()
    block.setHtml("".join(parts))
    view.add(block, "\n\n".join(plain))


def _key_values(o: Outcome, view: ResultView, theme: Any) -> None:
    data = o.data if o.data is not None else None
    if isinstance(data, dict):
        rows = [(str(k), _readable(v)) for k, v in data.items()]
        block = FittedText()
        block.setHtml("<table cellpadding='2'>" + "".join(
            f"<tr><td valign='top'><b>{_html(k, theme, 'line')}</b></td><td>{_html(v, theme)}</td></tr>"
            for k, v in rows) + "</table>")
        view.add(block, "\n".join(f"{show_line(k)}: {show_block(v)}" for k, v in rows))
        return
    text = _readable(data) if data is not None else o.text
    block = FittedText()
    block.setHtml(_html(_clip(text), theme))
    view.add(block, show_block(text))


def _readable(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str | int | float) for v in value):
        return ", ".join(str(v) for v in value)
    return json.dumps(value, ensure_ascii=False, indent=2)


RENDERERS: dict[str, Callable[[Outcome, ResultView, Any], None]] = {
    "read_file": _read_file, "run_command": _run_command, "git_status": _run_command,
    "git_commit": _run_command, "write_file": _write_file, "http_request": _http_request,
    "list_directory": _list_directory, "web_search": _web_search,
}


def render(o: Outcome, theme: Any) -> ResultView:
    """The expanded view of a finished call (or of its arguments while it runs)."""
    view = ResultView()
    if o.ok is False:
        sentence = refusal_sentence(o.code, o.reason, o.text)
        view.add(_label(sentence, "danger", theme), show_block(sentence))
        if o.text and o.text != sentence:
            view.add(_label(o.text, "muted", theme), show_block(o.text))
        # The codes, for a bug report or the docs: here, never on the card's line.
        code = f"{o.code} ({o.reason})" if o.reason else o.code
        view.add(_label(f"Tool {o.tool_id} · {code}", "muted", theme), show_block(f"Tool {o.tool_id} · {code}"))
        return view
    if o.ok is None:
        args = Outcome(o.tool_id, o.args, data=o.args)
        _key_values(args, view, theme)
        return view
    try:
        RENDERERS.get(o.tool_id, _key_values)(o, view, theme)
    except (AttributeError, TypeError, ValueError):
        view = ResultView()  # a result in a shape this version does not know: show it as it came
        _key_values(o, view, theme)
    return view
