"""Redoing the last turn sends a cut history while the store keeps everything (engine/agent/history_cut.py)."""

from __future__ import annotations

import pytest

from relavium_desktop.engine.agent.history_cut import HistoryCut, cut_history
from relavium_desktop.engine.llm.messages import Message, TextPart


def said(text: str) -> Message:
    return Message("assistant", (TextPart(text),))


HISTORY = [Message.user("one"), said("first answer"), Message.user("two"), said("second answer")]


def texts(messages: list[Message]) -> list[str]:
    return [m.text for m in messages]


def test_regenerate_keeps_the_last_question_and_edit_drops_it() -> None:
    assert texts(cut_history(HISTORY, "keep_question")) == ["one", "first answer", "two"]
    assert texts(cut_history(HISTORY, "drop_question")) == ["one", "first answer"]
    assert texts(cut_history([said("hello")], "drop_question")) == ["hello"]  # no question: nothing to cut


class ListStore:
    """A plain in-memory store with the SessionStore and PartialAnswerStore methods the cut forwards."""

    def __init__(self) -> None:
        self.kept: dict[str, list[Message]] = {"s1": list(HISTORY), "s2": list(HISTORY)}
        self.partials: list[str] = []

    def messages(self, session_id: str) -> list[Message]:
        return list(self.kept[session_id])

    def append_message(self, session_id: str, message: Message) -> None:
        self.kept[session_id].append(message)

    def save_partial(self, session_id: str, text: str) -> None:
        self.partials.append(text)

    def keep_cut_off(self, session_id: str, text: str) -> None:
        self.kept[session_id].append(said(text))

    def __getattr__(self, name: str) -> object:
        raise AttributeError(name)


def test_the_cut_hides_the_old_turn_from_the_model_but_stores_every_new_message() -> None:
    store = ListStore()
    cut = HistoryCut(store, "s1", "keep_question")  # type: ignore[arg-type]
    assert texts(cut.messages("s1")) == ["one", "first answer", "two"]
    assert texts(cut.messages("s2")) == texts(HISTORY)  # another session is read as stored
    cut.save_partial("s1", "new ans")
    cut.append_message("s1", said("new answer"))
    assert store.partials == ["new ans"]
    assert texts(store.kept["s1"]) == [*texts(HISTORY), "new answer"]
    with pytest.raises(ValueError, match="unknown history cut"):
        HistoryCut(store, "s1", "everything")  # type: ignore[arg-type]
