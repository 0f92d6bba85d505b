"""Which tool call the host is serving right now: the run, the node and the call id.

A host capability (the file host keeping a checkpoint before a write) needs
to know whose write it is -- the chat or run, and the model's tool-call id --
but its method signatures are the tool's arguments only.  The registry sets
this context variable around the one host call of each dispatch
(:func:`calling`); asyncio copies it into the worker thread the host runs in,
so concurrent calls never see each other's origin.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CallOrigin:
    run_id: str  # "chat-<session>", "tool-<id>" (one ``relavium tool call``) or a workflow run id
    node_id: str
    tool_id: str
    tool_call_id: str | None = None


_CURRENT: ContextVar[CallOrigin | None] = ContextVar("relavium_call_origin", default=None)


def current_call() -> CallOrigin | None:
    """The call being dispatched in this task (None outside a registry dispatch)."""
    return _CURRENT.get()


@contextmanager
def calling(origin: CallOrigin) -> Iterator[None]:
    token = _CURRENT.set(origin)
    try:
        yield
    finally:
        _CURRENT.reset(token)
