"""The collapsed card's one line: the tool, what it acted on, and what came of it.

"read_file src/pricing.py · 100 B · 6 ms", "run_command pytest -q · exit 1 ·
2.3 s", "list_directory src · 14 entries".  Each tool has a function naming
its target (from the masked arguments) and its result facts (from the
result); a failed call ends with the reason in words instead.  No Qt.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from relavium_desktop.ui.chat.tool_cards.results import (
    Outcome,
    human_bytes,
    human_duration,
    line_count,
    refusal_sentence,
    short,
)

SEP = " · "
ICONS = {
    "read_file": "file", "write_file": "edit", "list_directory": "folder", "run_command": "terminal",
    "http_request": "globe", "web_search": "search", "git_status": "git", "git_commit": "git",
    "read_clipboard": "clipboard", "notify": "bell", "mcp_call": "plug", "invoke_agent": "agent",
    "read_media": "image",
}


def icon_name(tool_id: str) -> str:
    return ICONS.get(tool_id, "tool")


def _arg(o: Outcome, key: str, default: str = "") -> str:
    value = o.args.get(key, default)
    return value if isinstance(value, str) else default if value is None else str(value)


def target(o: Outcome) -> str:
    """What the call acted on, from its (masked) arguments."""
    a = o.args
    if set(a) == {"preview"}:  # nothing recognisable survived the clipping
        return short(str(a["preview"]), 50)
    tool = o.tool_id
    if tool in ("read_file", "write_file"):
        return _arg(o, "path")
    if tool == "list_directory":
        return _arg(o, "path", ".") or "."
    if tool == "run_command":
        argv = a.get("args")
        words = [str(x) for x in argv] if isinstance(argv, list) else []
        return short(" ".join([_arg(o, "command"), *words]), 60)
    if tool == "http_request":
        return f"{_arg(o, 'method', 'GET') or 'GET'} {short(_arg(o, 'url'), 50)}"
    if tool == "web_search":
        return f"“{short(_arg(o, 'query'), 50)}”"
    if tool == "git_status":
        sub = _arg(o, "subcommand", "status")
        return "" if sub == "status" else sub
    if tool == "mcp_call":
        return f"{_arg(o, 'server')}/{_arg(o, 'tool')}"
    if tool == "invoke_agent":
        return _arg(o, "nodeId")
    if tool == "read_media":
        handle = _arg(o, "handle")
        return handle[:22] + "…" if len(handle) > 23 else handle
    if tool == "notify":
        return f"“{short(_arg(o, 'title'), 40)}”"
    return ""


def _read_file(o: Outcome) -> list[str]:
    files = o.field("files")
    if isinstance(files, list):
        return [f"{len(files)} file{'s' if len(files) != 1 else ''}"]
    size = o.field("sizeBytes")
    if isinstance(size, int):
        return [human_bytes(size)]
    content = o.text_field("content")
    if content is None:
        return []
    approx = len(content.encode("utf-8", "surrogatepass"))
    return [f"{human_bytes(approx)}+" if o.clipped else human_bytes(approx)]


def _run_command(o: Outcome) -> list[str]:
    code = o.field("exitCode")
    facts = [f"exit {code}"] if isinstance(code, int) else []
    if o.duration_ms is None and isinstance(o.field("durationMs"), int | float):
        facts.append(human_duration(float(o.field("durationMs"))))
    return facts


def _write_file(o: Outcome) -> list[str]:
    content = o.args.get("content")
    facts: list[str] = []
    if isinstance(content, str):
        prefix = "appended +" if o.args.get("append") else "+"
        facts.append(f"{prefix}{line_count(content)}")
    written = o.field("bytesWritten")
    if isinstance(written, int):
        facts.append(human_bytes(written))
    return facts


def _list_directory(o: Outcome) -> list[str]:
    entries = o.field("entries")
    if isinstance(entries, list):
        more = "+" if o.field("truncated") else ""
        return [f"{len(entries)}{more} entr{'y' if len(entries) == 1 else 'ies'}"]
    seen = len(re.findall(r'"name"\s*:', o.text))
    return [f"{seen}+ entries"] if seen else []


def _http_request(o: Outcome) -> list[str]:
    status = o.field("status")
    facts = [str(status)] if isinstance(status, int) else []
    body = o.text_field("body")
    if body is not None:
        facts.append(human_bytes(len(body.encode("utf-8", "surrogatepass"))) + ("+" if o.clipped else ""))
    return facts + _media_facts(o.field("media"))


def _web_search(o: Outcome) -> list[str]:
    results = o.field("results")
    if isinstance(results, list):
        return [f"{len(results)} result{'s' if len(results) != 1 else ''}"]
    seen = len(re.findall(r'"url"\s*:', o.text))
    return [f"{seen}+ results"] if seen else []


def _git_status(o: Outcome) -> list[str]:
    out = o.text_field("stdout") or ""
    sub = _arg(o, "subcommand", "status")
    lines = [line for line in out.splitlines() if line.strip()]
    if sub == "log":
        commits = sum(1 for line in lines if line.startswith("commit ")) or len(lines)
        return [f"{commits} commit{'s' if commits != 1 else ''}"]
    if sub == "diff":
        files = sum(1 for line in lines if line.startswith("diff --git"))
        return [f"{files} file{'s' if files != 1 else ''}"]
    changed = sum(1 for line in lines if line.startswith("\t") or re.match(r"^[ MADRCU?!]{2} \S", line))
    return ["clean" if changed == 0 and "nothing to commit" in out else f"{changed} changed"]


def _git_commit(o: Outcome) -> list[str]:
    out = o.text_field("stdout") or ""
    match = re.search(r"\[[^\]]*?([0-9a-f]{7,40})\]", out)
    if match:
        return [match.group(1)[:7]]
    code = o.field("exitCode")
    return [f"exit {code}"] if isinstance(code, int) else []


def _media_facts(media: Any) -> list[str]:
    """A media handle's type, size and dimensions (a copied image, a binary download)."""
    if not isinstance(media, dict):
        return []
    facts = [str(media["mimeType"])] if isinstance(media.get("mimeType"), str) else []
    if isinstance(media.get("width"), int) and isinstance(media.get("height"), int):
        facts.append(f"{media['width']}×{media['height']}")
    if isinstance(media.get("sizeBytes"), int):
        facts.append(human_bytes(media["sizeBytes"]))
    return facts


def _read_clipboard(o: Outcome) -> list[str]:
    media = o.field("media")
    if isinstance(media, dict):
        return _media_facts(media)
    return [f"{len(o.text):,} chars" + ("+" if o.clipped else "")]


def _notify(o: Outcome) -> list[str]:
    return ["sent"]


def _read_media(o: Outcome) -> list[str]:
    facts = []
    for key in ("mimeType", "name"):
        value = o.field(key)
        if isinstance(value, str) and value:
            facts.append(value)
    return facts


FACTS: dict[str, Callable[[Outcome], list[str]]] = {
    "read_file": _read_file, "run_command": _run_command, "write_file": _write_file,
    "list_directory": _list_directory, "http_request": _http_request, "web_search": _web_search,
    "git_status": _git_status, "git_commit": _git_commit, "read_clipboard": _read_clipboard,
    "notify": _notify, "read_media": _read_media,
}


def summary_line(o: Outcome) -> str:
    head = " ".join(p for p in (o.tool_id, target(o)) if p)
    if o.ok is None:
        return head
    if not o.ok:
        return head + SEP + refusal_sentence(o.code, o.reason, o.text)
    describe = FACTS.get(o.tool_id)
    facts: list[Any] = describe(o) if describe is not None else []
    if o.duration_ms is not None and o.tool_id in ("read_file", "run_command", "http_request", "web_search",
                                                    "git_status", "git_commit", "mcp_call", "invoke_agent"):
        facts.append(human_duration(o.duration_ms))
    return SEP.join([head, *facts])
