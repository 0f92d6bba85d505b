"""Streamed text for ``agent:token`` events, held back only where a key may be arriving in pieces.

A model streams its answer a few characters at a time, so a key it repeats
(``sk-ant-api03-...``) can be cut across two events, and neither half alone
is recognisable to the masking rule.  :class:`HeldStream` sits at the one
place streamed text becomes events (``routing._stream_once``): it holds back
the trailing run of unbroken text while that run could still be the start of
a credential (a token family's prefix, a family prefix followed by its
characters, or the start of a secret known by value --
:func:`~relavium_desktop.engine.tools.masking.may_begin_credential`), and
releases it masked once whitespace or a character the key cannot contain
ends it.  Text that cannot begin a key is released at once, so ordinary
prose still renders as it arrives; at most :data:`HOLD_LIMIT` characters are
ever held, and everything left is released when the stream ends.

Only the events are affected: the assistant message kept for the next
request is assembled from the raw text, as the model wrote it.
"""

from __future__ import annotations

import re

from relavium_desktop.engine.tools.masking import mask_text, may_begin_credential

HOLD_LIMIT = 256  # longer than any supported key family, short enough to never look stalled
_RUN_RE = re.compile(r"\S*\Z")
_LEADING_RUN_RE = re.compile(r"\S*")
# One line break (a wrapped key continues across it) right before a position; not a blank line.
_SINGLE_BREAK_BEFORE_RE = re.compile(r"(?<![\r\n\t])(?:\r\n|[\n\r\t])\Z")
_TAIL_CHARS_RE = re.compile(r"[A-Za-z0-9_\-.]*")  # what a key family's continuation may contain
_MAX_WRAPPED_LINES = 16


class HeldStream:
    """Feed streamed pieces in order; emit what :meth:`feed` and finally :meth:`flush` return."""

    def __init__(self, limit: int = HOLD_LIMIT) -> None:
        self._limit = limit
        self._held = ""
        # After a forced release of a held key, the rest of that unbroken run is the key's tail:
        # it was already shown as the mask and is dropped up to the next whitespace.
        self._in_masked_key = False

    @property
    def held(self) -> str:
        return self._held

    def feed(self, text: str) -> str:
        """The text that may be shown now (masked); may be empty while a possible key is held."""
        if self._in_masked_key:
            tail = _LEADING_RUN_RE.match(text)
            cut = tail.end() if tail else 0
            if cut < len(text):
                self._in_masked_key = False
            text = text[cut:]
            if not text:
                return ""
        buffer = self._held + text
        start = self._hold_start(buffer)
        out, self._held = buffer[:start], buffer[start:]
        if len(self._held) > self._limit:
            released = mask_text(self._held)
            self._in_masked_key = released != self._held and released.endswith("***")
            out, self._held = mask_text(out) + released, ""
            return out
        return mask_text(out) if out else ""

    def flush(self) -> str:
        """Everything still held (the stream ended): masked."""
        out, self._held, self._in_masked_key = self._held, "", False
        return mask_text(out) if out else ""

    def _hold_start(self, buffer: str) -> int:
        """Where the held part of ``buffer`` begins: the earliest point of its last run that may begin a key."""
        run = _RUN_RE.search(buffer)
        end = len(buffer)
        if run is None:
            return end
        # Only what is held and the new piece are scanned (released text is gone), so this stays bounded.
        for pos in range(run.start(), end):
            # A partial prefix counts only where a key could start; a whole prefix counts anywhere
            # ("idxoxb-..." is masked too), so the ends of ordinary words ("there") are never held.
            at_boundary = pos == run.start() or not buffer[pos - 1].isalnum()
            if may_begin_credential(buffer[pos:], partial=at_boundary):
                return pos
        return self._wrapped_key_start(buffer, run.start())

    def _wrapped_key_start(self, buffer: str, run_start: int) -> int:
        """Where a key wrapped across single line breaks and still arriving begins, else ``len(buffer)``.

        The masking rule reads a key across one TAB, CR, LF or CRLF at a time
        (a wrapped paste); so while the lines before the last run are a
        family-prefixed key, each after a single break and all of the key's
        characters, the whole key stays held.  A space or a blank line ends it.
        """
        end = len(buffer)
        if not _TAIL_CHARS_RE.fullmatch(buffer, run_start, end):
            return end
        seg_end = run_start
        for _ in range(_MAX_WRAPPED_LINES):
            brk = _SINGLE_BREAK_BEFORE_RE.search(buffer, 0, seg_end)
            if brk is None:
                return end
            seg = _RUN_RE.search(buffer, 0, brk.start())
            if seg is None or seg.start() == brk.start():
                return end
            for pos in range(seg.start(), brk.start()):
                if may_begin_credential(buffer[pos : brk.start()], partial=False):
                    return pos
            if not _TAIL_CHARS_RE.fullmatch(buffer, seg.start(), brk.start()):
                return end
            seg_end = seg.start()
        return end
