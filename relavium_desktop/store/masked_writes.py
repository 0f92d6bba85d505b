"""What history.db stores is masked: the text parameters of every write.

The one choke point of the history channel (:class:`~relavium_desktop.store.db.HistoryConnection`
calls :func:`masked_params` for every statement): each ``INSERT``/``UPDATE``/
``REPLACE`` any store issues has its text parameters passed through
:func:`mask_serialized`, so a run's events, checkpoint and error, a chat message, a
grant or a consent's command line can never put a credential on disk,
whichever store (or future store) wrote it.  Reads are untouched.  Masking
what is already masked changes nothing, so stores that mask for their own
reasons (chat search) stay as they are.  A checkpoint keeps a key-shaped
value as ``***``: a run resumed from it sees the mask, as every display of it
does.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from relavium_desktop.engine.tools.masking import mask_serialized

_WRITE_VERBS = ("INSERT", "UPDATE", "REPLACE", "WITH")


def writes(sql: str) -> bool:
    """Whether ``sql`` stores rows (a ``WITH ... INSERT`` included)."""
    return sql.lstrip().upper().startswith(_WRITE_VERBS)


def _masked(value: Any) -> Any:
    return mask_serialized(value) if isinstance(value, str) else value


def masked_params(params: Any) -> Any:
    """One statement's parameters, every text one masked (named or positional)."""
    if isinstance(params, Mapping):
        return {k: _masked(v) for k, v in params.items()}
    return tuple(_masked(v) for v in params)


def masked_rows(rows: Iterable[Any]) -> list[Any]:
    return [masked_params(p) for p in rows]
