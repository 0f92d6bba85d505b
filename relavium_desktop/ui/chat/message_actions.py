"""Edit-and-resend and Regenerate: redoing the last turn without rewriting stored history.

The session store is append-only, so neither action deletes anything.  What
the model is sent is cut instead: ``HistoryCut`` stands in for the store in
the one ChatSession that redoes the turn, and hides the turn being replaced
from the model while every new message is still stored.

- Regenerate keeps the history up to and including the last question and
  asks again without a new user message: the old answer stays stored after
  the question and the new one follows it.
- Edit and resend hides the last question and everything after it, and the
  edited text is sent as a new message: the old question and its answer stay
  stored before the new ones.

The transcript shows only the new turn; a session opened again later shows
the stored history, old turn included, and later turns send it to the model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from relavium_desktop.engine.agent.session import SessionStore
    from relavium_desktop.engine.llm.messages import Message

Cut = Literal["keep_question", "drop_question"]


def cut_history(messages: list[Message], cut: Cut) -> list[Message]:
    """``messages`` up to the last question (kept or dropped); all of them when there is none."""
    last = next((i for i in range(len(messages) - 1, -1, -1)
                 if messages[i].role == "user" and messages[i].text), None)
    if last is None:
        return list(messages)
    return list(messages[: last + 1 if cut == "keep_question" else last])


class HistoryCut:
    """The real store, except that ``messages`` reads a cut history for the session being redone."""

    def __init__(self, store: SessionStore, session_id: str, cut: Cut) -> None:
        self._store = store
        self._session_id = session_id
        self._cut: Cut = cut

    def messages(self, session_id: str) -> list[Message]:
        stored = self._store.messages(session_id)
        return cut_history(stored, self._cut) if session_id == self._session_id else stored

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)
