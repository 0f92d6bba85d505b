"""Model-facing result bounding: preview + marker + spill path.

Only the copy that re-enters the next model request is bounded; the full
result still reaches ``output_mapping``.  Structured results are rendered as
compact JSON, and a newline inside a string value counts as a line because
that is what the model reads: a 3,000-line file inside ``{"content": …}`` is
3,000 lines, not one.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from relavium_desktop.engine.host import SpillInfo
from relavium_desktop.engine.tools.masking import outside_credentials
from relavium_desktop.engine.tools.tooldef import ResultLimits

# A real LF, or a JSON "\n" escape not itself escaped (an even run of
# backslashes before it belongs to literal backslashes).
_BREAK_RE = re.compile(r"\n|(?<!\\)(?:\\\\)*\\n")

DEFAULT_LIMITS = ResultLimits()


def render_for_model(result: Any) -> str:
    if isinstance(result, str):
        return result
    return json.dumps(result, ensure_ascii=False, default=str)


def _break_ends(text: str) -> list[int]:
    """Offsets just past each line break."""
    return [m.end() for m in _BREAK_RE.finditer(text)]


def _utf8_prefix(text: str, max_bytes: int) -> str:
    raw = text.encode("utf-8", "surrogatepass")
    if len(raw) <= max_bytes:
        return text
    return raw[:max_bytes].decode("utf-8", "ignore")


def _utf8_suffix(text: str, max_bytes: int) -> str:
    raw = text.encode("utf-8", "surrogatepass")
    if len(raw) <= max_bytes:
        return text
    return raw[len(raw) - max_bytes :].decode("utf-8", "ignore")


@dataclass(frozen=True, slots=True)
class Measured:
    text: str
    bytes: int
    lines: int

    @classmethod
    def of(cls, text: str) -> Measured:
        size = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
        # Without a backslash there is no JSON escape to look at.
        breaks = text.count("\n") if "\\" not in text else len(_BREAK_RE.findall(text))
        return cls(text, size, breaks + 1)


def needs_bounding(m: Measured, limits: ResultLimits) -> bool:
    return m.bytes > limits.max_bytes or m.lines > limits.max_lines


def _marker(m: Measured, head: str, tail: str, spill: SpillInfo | None) -> str:
    head_bytes = len(head.encode("utf-8", "surrogatepass"))
    tail_bytes = len(tail.encode("utf-8", "surrogatepass"))
    omitted_bytes = m.bytes - head_bytes - tail_bytes
    # The omission starts on the line the head stops in and ends on the line
    # the tail starts in (either may be a partial line after a byte cut).
    first_line = len(_break_ends(head)) + 1
    last_line = m.lines - len(_break_ends(tail))
    span = (
        f"line {first_line:,}" if first_line == last_line else f"lines {first_line:,}-{last_line:,}"
    )
    where = (
        f"full output ({m.bytes:,} bytes) saved to {spill.path}"
        if spill
        else "full output was not saved (no output store)"
    )
    return (
        f"\n[... truncated: omitted {omitted_bytes:,} of {m.bytes:,} bytes, "
        f"{span} of {m.lines:,}; {where} ...]\n"
    )


# Room reserved inside the ceiling for the marker itself.
_MARKER_RESERVE = 400


def preview(m: Measured, limits: ResultLimits, spill: SpillInfo | None) -> str:
    """Head + marker + tail, together within both ceilings."""
    text = m.text
    budget = max(limits.max_bytes - _MARKER_RESERVE, 0)
    half_bytes = budget // 2
    half_lines = max((limits.max_lines - 2) // 2, 0)

    breaks = _break_ends(text)
    # Head: at most half_lines lines, then at most half_bytes bytes.
    head = text[: breaks[half_lines - 1]] if half_lines and len(breaks) >= half_lines else text
    if half_lines == 0:
        head = ""
    head = _utf8_prefix(head, half_bytes)
    # Tail: the last half_lines lines, then at most half_bytes bytes.
    if half_lines and len(breaks) >= half_lines:
        tail = text[breaks[-half_lines] :]
    else:
        tail = text
    if half_lines == 0:
        tail = ""
    tail = _utf8_suffix(tail, half_bytes)
    if len(head) + len(tail) >= len(text):
        # Only possible with tiny limits; keep the head and drop the tail.
        tail = ""
    # Never cut through a credential: a tail starting mid-key is a key no mask
    # recognises any more, wherever this preview is shown or stored.
    head_end, tail_start = outside_credentials(text, len(head), len(text) - len(tail))
    head, tail = text[:head_end], (text[tail_start:] if tail else "")
    return head + _marker(m, head, tail, spill) + tail
