"""stdout and stderr of the ``relavium`` command, masked at the stream.

Every text the command writes -- a JSON document, a text answer, an error
line, a streamed chat token -- passes :func:`mask_serialized` on its way to the
real stream, so no command can print a credential by forgetting to mask it
(an error echoing a key-shaped tool id, a server's error text, a file the
user asked to read).  Masking works per ``write`` call: ``print(x)`` is one
call for ``x``, so a message that carries a key split across lines is
masked whole.  Text streamed in pieces (a model's answer token by token) is
masked piece by piece; a credential the model spells across two pieces is
the one case this cannot see.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

from relavium_desktop.engine.tools.masking import mask_serialized


class MaskedStream:
    """A text stream that masks what is written and delegates everything else."""

    def __init__(self, wrapped: TextIO) -> None:
        self.wrapped = wrapped

    def write(self, text: str) -> int:
        self.wrapped.write(mask_serialized(text) if isinstance(text, str) else text)
        return len(text)  # what the caller handed over, as a TextIO reports it

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:  # flush, fileno, encoding, isatty, closed, ...
        return getattr(self.wrapped, name)


def unwrap(stream: Any) -> Any:
    """The real stream behind a :class:`MaskedStream` (or ``stream`` itself)."""
    return stream.wrapped if isinstance(stream, MaskedStream) else stream


def mask_std_streams() -> None:
    """Mask ``sys.stdout`` and ``sys.stderr`` for the rest of the process (the console script)."""
    if sys.stdout is not None and not isinstance(sys.stdout, MaskedStream):
        sys.stdout = MaskedStream(sys.stdout)
    if sys.stderr is not None and not isinstance(sys.stderr, MaskedStream):
        sys.stderr = MaskedStream(sys.stderr)


@contextlib.contextmanager
def masked_std_streams() -> Iterator[None]:
    """Mask ``sys.stdout`` and ``sys.stderr`` for the block; restored after unless replaced meanwhile."""
    out, err = sys.stdout, sys.stderr
    masked_out = MaskedStream(out) if out is not None and not isinstance(out, MaskedStream) else out
    masked_err = MaskedStream(err) if err is not None and not isinstance(err, MaskedStream) else err
    sys.stdout, sys.stderr = masked_out, masked_err
    try:
        yield
    finally:
        if sys.stdout is masked_out:
            sys.stdout = out
        if sys.stderr is masked_err:
            sys.stderr = err
