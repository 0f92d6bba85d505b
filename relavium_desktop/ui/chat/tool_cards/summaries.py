"""The collapsed card's one line: a sentence saying what the agent did, and what came of it.

"Read src/pricing.py · 10 lines · 6 ms", "Ran pytest -q · exit 1 · 2.3 s",
"Listed src · 14 entries", "Not allowed to write notes.md — you declined".
Each tool has a verb (past tense when done, "-ing" while running, the bare
form for a refusal), a function naming its target from the masked arguments
and one naming the result's facts.  Tool ids, error codes and reason codes
never appear here: they belong to the expanded details.  No Qt.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from relavium_desktop.ui.chat.tool_cards.results import (
    Outcome,
    human_bytes,
    human_duration,
    line_count,
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


def host_and_path(url: str) -> str:
    """``api.example.com/v1/items`` for ``https://api.example.com/v1/items?x=1``: what a person recognises."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return url
    if not parts.netloc:
        return url
    return parts.netloc + (parts.path if parts.path not in ("", "/") else "")


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
        return short(host_and_path(_arg(o, "url")), 50)
    if tool == "web_search":
        return f"“{short(_arg(o, 'query'), 50)}”"
    if tool == "git_status":
        return ""  # the verb says it: "Checked git status", "Read git log"
    if tool == "git_commit":
        message = _arg(o, "message").strip().splitlines()
        return f"“{short(message[0], 50)}”" if message else ""
    if tool == "mcp_call":
        return _arg(o, "tool")
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
    if isinstance(o.field("media"), dict):
        return _media_facts(o.field("media"))
    content = o.text_field("content")
    if content is None:
        return []
    if o.clipped:  # only the start arrived: its size says more than a partial line count
        size = o.field("sizeBytes")
        approx = size if isinstance(size, int) else len(content.encode("utf-8", "surrogatepass"))
        return [human_bytes(approx) + ("" if isinstance(size, int) else "+")]
    lines = line_count(content)
    return [f"{lines:,} line{'s' if lines != 1 else ''}"]


def _run_command(o: Outcome) -> list[str]:
    code = o.field("exitCode")
    facts = [f"exit {code}"] if isinstance(code, int) else []
    if o.duration_ms is None and isinstance(o.field("durationMs"), int | float):
        facts.append(human_duration(float(o.field("durationMs"))))
    return facts


def added_lines(o: Outcome) -> int | None:
    """The lines a write put in the file (the design's green "+9"): the result's exact count, else
    (a result from before writes counted lines) the written content's lines."""
    if o.tool_id != "write_file":
        return None
    counted = o.field("linesAdded") if o.ok else None
    if isinstance(counted, int):
        return counted
    content = o.args.get("content")
    return line_count(content) if isinstance(content, str) else None


def removed_lines(o: Outcome) -> int | None:
    """The lines a write took out of the file (the design's red "−31"), from the result's exact count."""
    if o.tool_id != "write_file" or not o.ok:
        return None
    counted = o.field("linesRemoved")
    return counted if isinstance(counted, int) else None


def created(o: Outcome) -> bool | None:
    """Whether a finished write created its file (None: the result does not say).

    The card's checkpoint says it exactly (``o.extra["created"]``); without
    one, a replace that removed nothing and added every line it wrote
    started from no file (or an empty one, which reads the same).
    """
    known = o.extra.get("created")
    if isinstance(known, bool):
        return known
    added, removed = o.field("linesAdded"), o.field("linesRemoved")
    content = o.args.get("content")
    if not isinstance(added, int) or not isinstance(removed, int) or not isinstance(content, str):
        return None
    return removed == 0 and added == line_count(content)


def _write_file(o: Outcome) -> list[str]:
    facts: list[str] = []
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


# tool -> (bare form, -ing form, past tense): "Not allowed to read", "Reading", "Read".
VERBS: dict[str, tuple[str, str, str]] = {
    "read_file": ("read", "Reading", "Read"),
    "write_file": ("write", "Writing", "Wrote"),
    "list_directory": ("list", "Listing", "Listed"),
    "run_command": ("run", "Running", "Ran"),
    "http_request": ("fetch", "Fetching", "Fetched"),
    "web_search": ("search the web for", "Searching the web for", "Searched the web for"),
    "git_commit": ("commit", "Committing", "Committed"),
    "read_clipboard": ("read the clipboard", "Reading the clipboard", "Read the clipboard"),
    "notify": ("send the notification", "Sending the notification", "Notified"),
    "invoke_agent": ("ask the agent", "Asking the agent", "Asked the agent"),
    "read_media": ("look at", "Looking at", "Looked at"),
}
GIT_VERBS = {
    "status": ("check git status", "Checking git status", "Checked git status"),
    "log": ("read the git log", "Reading the git log", "Read the git log"),
    "diff": ("read the git diff", "Reading the git diff", "Read the git diff"),
}
# Why a call was refused, short enough for the line ("Not allowed to write notes.md — you declined");
# the full sentence and the codes are in the expanded details.
WHY = {
    "user_rejected": "you declined",
    "not_granted": "this agent may not use this tool",
    "provider_executed": "only Relavium runs tools",
    "command_not_allowed": "the command is not on the allowed list",
    "commands_disabled": "commands are off",
    "domain_not_allowed": "the host is not on the allowed list",
    "egress_disabled": "web access is off",
    "https_required": "only https:// addresses may be fetched",
    "ssrf_blocked": "the address is on this machine or the local network",
    "outside_scope": "it is outside the project folder",
    "protected_path": "the path is protected",
    "unc_path": "network paths are not allowed",
    "gate_required": "it needs a person's approval at a gate",
    "no_approval_hook": "nobody was there to approve it",
    "media_scope_denied": "it belongs to another chat or run",
    "env_not_allowed": "an environment variable is not allowed",
}
FAILED = {
    "unknown_tool": "the tool does not exist",
    "invalid_args": "the model's arguments did not fit the tool",
    "tool_unavailable": "the tool is not available here",
}


@dataclass(frozen=True, slots=True)
class Sentence:
    """The card's line in parts, so the view can set the verb, the target and the facts apart."""

    state: str  # running | ok | warning | danger | cancelled: the status dot
    verb: str
    target: str = ""
    why: str = ""  # a refusal's or failure's reason in words (text from the tool or the person: untrusted)
    facts: tuple[str, ...] = ()
    added: int | None = None  # lines a write put in
    removed: int | None = None  # lines a write took out (known from the result's exact count)

    @property
    def counts(self) -> str:
        """ "+9 −31" (the removed count only when the result gave it and it is not zero)."""
        if self.added is None:
            return ""
        return f"+{self.added:,}" + (f" −{self.removed:,}" if self.removed else "")

    @property
    def text(self) -> str:
        head = " ".join(p for p in (self.verb, self.target) if p)
        if self.state == "running":
            head += "…"
        if self.why:
            head += f" — {self.why}"
        facts = ([self.counts] if self.counts else []) + list(self.facts)
        return SEP.join([head, *facts])


def _verbs(o: Outcome) -> tuple[str, str, str]:
    if o.tool_id == "git_status":
        return GIT_VERBS.get(_arg(o, "subcommand", "status"), GIT_VERBS["status"])
    if o.tool_id == "write_file" and o.args.get("append"):
        return "append to", "Appending to", "Appended to"
    if o.tool_id == "write_file" and o.ok:
        made = created(o)
        if made is not None:  # the design's "Edited src/pricing.py", or "Created" for a new file
            return "write", "Writing", "Created" if made else "Edited"
    if o.tool_id == "http_request":
        method = (_arg(o, "method", "GET") or "GET").upper()
        if method not in ("GET", "HEAD"):
            return f"send {method} to", f"Sending {method} to", f"Sent {method} to"
    if o.tool_id == "mcp_call":
        server = _arg(o, "server") or "the server"
        return f"ask {server} for", f"Asking {server} for", f"Asked {server} for"
    found = VERBS.get(o.tool_id)
    if found is not None:
        return found
    return "use", "Using", "Used"  # a tool this version has no words for: named by its target


def _first_line(text: str, limit: int = 80) -> str:
    line = next((s.strip() for s in text.splitlines() if s.strip()), "")
    return short(line.rstrip("."), limit)


def sentence(o: Outcome) -> Sentence:
    """What the card's line says about ``o``."""
    bare, doing, done = _verbs(o)
    what = target(o) or (o.tool_id if o.tool_id not in VERBS and o.tool_id not in ("git_status", "mcp_call") else "")
    if o.ok is None:
        return Sentence("running", doing, what)
    if not o.ok:
        if o.code == "cancelled":
            return Sentence("cancelled", f"Stopped before it could {bare}", what)
        if o.code == "tool_denied" or o.reason:
            return Sentence("danger", f"Not allowed to {bare}", what, _why_refused(o))
        why = FAILED.get(o.code) or _first_line(o.text) or "it failed"
        return Sentence("danger", f"Could not {bare}", what, why)
    describe = FACTS.get(o.tool_id)
    facts: list[Any] = describe(o) if describe is not None else []
    if o.duration_ms is not None and o.tool_id in ("read_file", "run_command", "http_request", "web_search",
                                                    "git_status", "git_commit", "mcp_call", "invoke_agent"):
        facts.append(human_duration(o.duration_ms))
    return Sentence(_done_state(o), done, what, facts=tuple(facts), added=added_lines(o), removed=removed_lines(o))


def _why_refused(o: Outcome) -> str:
    """A mode's refusal shares the person's reason code (a fixed contract); its message names the mode."""
    if o.reason == "user_rejected":
        mode = re.search(r"not available in (.{1,40}?) mode", o.text)
        if mode is not None:
            return f"{mode.group(1)} mode does not allow it"
    return WHY.get(o.reason, "it was refused")


def _done_state(o: Outcome) -> str:
    """A call that ran but did not go well (a command's non-zero exit, an HTTP error) is a warning."""
    code = o.field("exitCode")
    if o.tool_id in ("run_command", "git_commit") and isinstance(code, int) and code != 0:
        return "warning"
    status = o.field("status")
    if o.tool_id == "http_request" and isinstance(status, int) and status >= 400:
        return "warning"
    return "ok"


def summary_line(o: Outcome) -> str:
    """The card's line as one string (copy, search, tests)."""
    return sentence(o).text
