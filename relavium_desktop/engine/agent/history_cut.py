"""Edit-and-resend and Regenerate: redoing the last turn without rewriting stored history.

The session store is append-only, so neither action deletes anything.  What
the model is sent is cut instead: :class:`HistoryCut` stands in for the store
in the one turn that redoes the last one, and hides the turn being replaced
from the model while every new message is still stored.

- ``keep_question`` (Regenerate) keeps the history up to and including the
  last question and asks again without a new user message: the old answer
  stays stored after the question and the new one follows it.
- ``drop_question`` (Edit and resend) hides the last question and everything
  after it; the edited text is sent as a new message.

A session opened again later shows the stored history, old turn included,
and later turns send it to the model.  Shared by every surface through
``application/chat.py``.
"""

from __future__ import annotations

from typing import Literal

from relavium_desktop.engine.agent.outcome import UsageRecord
from relavium_desktop.engine.agent.session import PartialAnswerStore, SessionInfo, SessionStore
from relavium_desktop.engine.llm.messages import Message

Cut = Literal["keep_question", "drop_question"]
CUTS: tuple[Cut, ...] = ("keep_question", "drop_question")


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
        if cut not in CUTS:
            raise ValueError(f"unknown history cut {cut!r}; expected one of {', '.join(CUTS)}")
        self._store = store
        self._session_id = session_id
        self._cut: Cut = cut

    def messages(self, session_id: str) -> list[Message]:
        stored = self._store.messages(session_id)
        return cut_history(stored, self._cut) if session_id == self._session_id else stored

    def create(self, *, title: str, agent_id: str, mode: str) -> SessionInfo:
        return self._store.create(title=title, agent_id=agent_id, mode=mode)

    def get(self, session_id: str) -> SessionInfo | None:
        return self._store.get(session_id)

    def list_sessions(self) -> list[SessionInfo]:
        return self._store.list_sessions()

    def rename(self, session_id: str, title: str) -> bool:
        return self._store.rename(session_id, title)

    def delete(self, session_id: str) -> bool:
        return self._store.delete(session_id)

    def append_message(self, session_id: str, message: Message) -> None:
        self._store.append_message(session_id, message)

    def record_usage(self, session_id: str, usage: UsageRecord) -> None:
        self._store.record_usage(session_id, usage)

    def save_partial(self, session_id: str, text: str) -> None:
        if isinstance(self._store, PartialAnswerStore):
            self._store.save_partial(session_id, text)

    def keep_cut_off(self, session_id: str, text: str) -> None:
        if isinstance(self._store, PartialAnswerStore):
            self._store.keep_cut_off(session_id, text)
