"""What a tool call did, in one line a person reads: parsing results and naming outcomes.

A card sees a call's masked arguments and its result as the model saw it:
JSON text, clipped to ~1,000 characters in a live event (so a long file's
``sizeBytes`` may be cut off) and up to the bounding limits when read back
from stored history.  Parsing is therefore lenient: whole JSON when it is
whole, otherwise the scalar fields that survived, and a summary never
claims more than it knows ("14+ entries" when the list was cut).  No Qt.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from relavium_desktop.engine.display_text import one_spaced

_CLIP_MARK = re.compile(r"… \[[\d,]+ more characters\]$")
_SCALAR = r'"{key}"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*"|true|false|null)'

REASONS = {
    "not_granted": "This agent is not allowed to use this tool.",
    "provider_executed": "The provider tried to run the tool itself; only Relavium runs tools.",
    "command_not_allowed": "This command is not on the allowed list: allow it in Settings → Chat tools.",
    "commands_disabled": "Commands are off: allow this command in Settings → Chat tools.",
    "domain_not_allowed": "This host is not on the allowed list: allow it in Settings → Chat tools.",
    "egress_disabled": "Web access is off: allow the host in Settings → Chat tools.",
    "https_required": "Only https:// addresses may be fetched.",
    "ssrf_blocked": "The address points into this machine or the local network, which tools may not reach.",
    "outside_scope": "The path is outside the project folder.",
    "protected_path": "This path is protected (keys, secrets, system files); tools never touch it.",
    "unc_path": "Network (UNC) paths are not allowed.",
    "gate_required": "This action needs a person's approval at a gate.",
    "no_approval_hook": "Nobody was there to approve this action.",
    "media_scope_denied": "That image belongs to another chat or run.",
    "env_not_allowed": "The command asked for an environment variable that is not allowed.",
}
CODES = {
    "unknown_tool": "The model asked for a tool that does not exist.",
    "invalid_args": "The model's arguments did not fit the tool.",
    "tool_unavailable": "This tool is not available here.",
    "tool_failed": "The tool failed.",
    "cancelled": "Cancelled before it finished.",
    "tool_denied": "The call was refused.",
}


@dataclass
class Outcome:
    """One call as the card shows it."""

    tool_id: str
    args: dict[str, Any]
    ok: bool | None = None  # None: still running
    text: str = ""  # the result as the model saw it (or the error message)
    data: Any = None  # the parsed result, when the text was whole JSON
    code: str = ""
    reason: str = ""
    duration_ms: float | None = None
    clipped: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def field(self, key: str) -> Any:
        """A top-level result field, from the parsed JSON or, when that was cut, from the text."""
        if isinstance(self.data, dict):
            return self.data.get(key)
        match = re.search(_SCALAR.format(key=re.escape(key)), self.text)
        if match is None:
            return None
        try:
            return json.loads(match.group(1))
        except ValueError:
            return None

    def text_field(self, key: str) -> str | None:
        """A string field even when the JSON was cut inside it (the part that arrived)."""
        value = self.field(key)
        if isinstance(value, str):
            return value
        match = re.search(rf'"{re.escape(key)}"\s*:\s*"((?:[^"\\]|\\.)*)', self.text)
        return _decode_partial(match.group(1)) if match else None


def parse(text: str) -> tuple[Any, bool]:
    """The result's JSON (or None) and whether the text was clipped for the event."""
    clipped = bool(_CLIP_MARK.search(text))
    body = _CLIP_MARK.sub("", text) if clipped else text
    stripped = body.strip()
    if not stripped or stripped[0] not in "[{":
        return None, clipped
    try:
        return json.loads(stripped), clipped
    except ValueError:
        return None, True


ARG_KEYS = ("path", "command", "url", "method", "query", "server", "tool", "nodeId", "title", "subcommand",
            "handle", "message")


def args_from_preview(preview: str) -> dict[str, Any]:
    """Arguments too large for the event arrive as a clipped JSON preview: recover what names the target."""
    whole, _ = parse(preview)
    if isinstance(whole, dict):
        return whole
    found: dict[str, Any] = {"preview": preview}
    for key in ARG_KEYS:
        match = re.search(rf'"{key}"\s*:\s*"((?:[^"\\]|\\.)*)"', preview)
        if match:
            found[key] = _decode_partial(match.group(1))
    return found


def _decode_partial(raw: str) -> str:
    for cut in range(len(raw), max(len(raw) - 6, -1), -1):
        try:
            return str(json.loads(f'"{raw[:cut]}"'))
        except ValueError:
            continue
    return raw


def refusal_sentence(code: str, reason: str, message: str) -> str:
    """Why the call did not run, in words; a person's own refusal keeps the message it came with."""
    if reason == "user_rejected":
        return message or "You declined this action."
    if reason in REASONS:
        return REASONS[reason]
    if code == "tool_failed" and message:
        return message
    if code in CODES:
        return CODES[code]
    # The one sentence per code; the code itself stays in the card's details.
    from relavium_desktop.ui.error_text import error_words

    return error_words(code)


def human_bytes(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def human_duration(ms: float) -> str:
    if ms < 1000:
        return f"{round(ms)} ms"
    if ms < 60_000:
        return f"{ms / 1000:.1f} s"
    return f"{int(ms // 60_000)} min {int(ms % 60_000 // 1000)} s"


def line_count(text: str) -> int:
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)


def short(text: str, limit: int = 60) -> str:
    text = one_spaced(text)  # a CR stays, for the display rule to mark
    return text if len(text) <= limit else text[: limit - 1] + "…"
