"""Undo in the chat: a write card's real diff and Undo, and "Undo changes since this message".

Real parts throughout: the window's chat against the scripted provider (an
HTTP server speaking the OpenAI wire format), the real file host writing in
a temp project, checkpoints in the real history.db and media store under the
test's RELAVIUM_HOME.  The person's clicks go through pytest-qt.
"""

from __future__ import annotations

from pathlib import Path

from relavium_desktop.ui.chat.undo_sheet import UndoNote, UndoSheet
from relavium_desktop.ui.qt import Qt
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.ui.chat_driver import type_and_enter
from tests.ui.words import assert_words_for_people

LEFT = Qt.MouseButton.LeftButton


def _turn(qtbot, chat, text: str) -> None:
    with qtbot.waitSignal(chat.turn_finished, timeout=20_000):
        type_and_enter(qtbot, chat, text)


def _sheet(qtbot, chat) -> UndoSheet:
    qtbot.waitUntil(lambda: chat._undo_flow is not None and chat._undo_flow.sheet is not None, timeout=5_000)
    sheet = chat._undo_flow.sheet
    assert isinstance(sheet, UndoSheet)
    return sheet


def _offered(qtbot, *cards) -> None:
    """Wait for the cards' checkpoints, read in the background, to offer Undo (or Redo)."""
    qtbot.waitUntil(lambda: all(c.undo_button.isVisibleTo(c) for c in cards), timeout=5_000)


def _confirm(qtbot, sheet) -> None:
    """Press the sheet's primary button: the files are put back off the window's thread, then it closes."""
    with qtbot.waitSignal(sheet.finished, timeout=10_000):
        qtbot.mouseClick(sheet.undo_button, LEFT)


def _notes(chat) -> list[str]:
    return [b.text() for b in chat.transcript.blocks if isinstance(b, UndoNote)]


def test_a_write_over_a_two_line_file_shows_both_removed_lines_and_its_undo_puts_the_file_back(
    chat, qtbot, llm_server: ScriptedLLMServer, project: Path
) -> None:
    chat.window().context.set_mode("auto")
    notes = project / "notes.md"
    notes.write_bytes(b"first line\nsecond line\n")
    llm_server.script(
        Reply.call("write_file", {"path": "notes.md", "content": "hello\n"}), Reply.say("Done.")
    )
    _turn(qtbot, chat, "rewrite the notes")
    assert notes.read_bytes() == b"hello\n"

    (card,) = chat.transcript.cards()
    _offered(qtbot, card)
    # The line: an edit (the file was there), the exact counts, and an Undo in words.
    assert card.summary_text == "Edited notes.md · +1 −2 · 6 B"
    assert card.verb.text() == "Edited" and card.added.text() == "+1" and card.removed.text() == "−2"
    assert card.undo_button.isVisibleTo(card) and card.undo_button.text() == "Undo"
    # Expanded: the real diff, the two removed lines included, numbered.
    qtbot.mouseClick(card.chevron, LEFT)  # the diff is computed in the background, then drawn
    want = ["- first line", "- second line", "+ hello"]
    qtbot.waitUntil(lambda: card.result_view.toPlainText().splitlines() == want, timeout=5_000)

    qtbot.mouseClick(card.undo_button, LEFT)
    sheet = _sheet(qtbot, chat)
    assert sheet.headline.text() == f"Undo 1 change in {project.name}?"
    assert [(r.path, r.action, r.added, r.removed) for r in sheet.rows] == [("notes.md", "restore", 1, 2)]
    assert sheet.undo_button.text() == "Undo 1 change" and not sheet.overwrite.isVisibleTo(sheet)
    assert_words_for_people(sheet, "undo sheet")
    with qtbot.waitSignal(sheet.finished, timeout=10_000):
        qtbot.mouseClick(sheet.undo_button, LEFT)
        # While the file is put back (off the window's thread) the sheet says so and takes no other answer;
        # Esc does not close it under a running restore.
        assert sheet.working and sheet.undo_button.text() == "Undoing…"
        assert not sheet.undo_button.isEnabled() and not sheet.cancel_button.isEnabled()
        sheet.reject()
        assert sheet.isVisible()

    assert notes.read_bytes() == b"first line\nsecond line\n"  # byte for byte
    qtbot.waitUntil(lambda: _notes(chat) == ["Restored 1 file"], timeout=5_000)
    assert card.undone.isVisibleTo(card) and card.undo_button.text() == "Redo"

    # Redo (from the keyboard: the word takes the focus and Enter): the agent's content again.
    assert card.undo_button.accessibleName() == "Redo this change"
    card.undo_button.setFocus()
    qtbot.keyClick(card.undo_button, Qt.Key.Key_Return)
    redo = _sheet(qtbot, chat)
    assert redo.headline.text().startswith("Redo 1 change")
    _confirm(qtbot, redo)
    assert notes.read_bytes() == b"hello\n"
    qtbot.waitUntil(lambda: card.undo_button.text() == "Undo", timeout=5_000)
    assert not card.undone.isVisibleTo(card)


def test_a_new_file_says_created_and_its_undo_deletes_it(
    chat, qtbot, llm_server: ScriptedLLMServer, project: Path
) -> None:
    chat.window().context.set_mode("auto")
    llm_server.script(Reply.call("write_file", {"path": "todo.md", "content": "a\nb\n"}), Reply.say("Done."))
    _turn(qtbot, chat, "make a todo")
    (card,) = chat.transcript.cards()
    _offered(qtbot, card)
    assert card.summary_text == "Created todo.md · +2 · 4 B" and not card.removed.isVisibleTo(card)
    qtbot.mouseClick(card.undo_button, LEFT)
    sheet = _sheet(qtbot, chat)
    assert sheet.action_labels[0].text() == "Deleted: the agent created it"
    _confirm(qtbot, sheet)
    assert not (project / "todo.md").exists()
    qtbot.waitUntil(lambda: _notes(chat) == ["Deleted 1 file the agent created"], timeout=5_000)


def test_undo_since_a_message_restores_every_later_write_byte_for_byte_and_the_reopened_chat_remembers(
    chat, qtbot, llm_server: ScriptedLLMServer, project: Path
) -> None:
    chat.window().context.set_mode("auto")
    original = b"keep\r\nthese \xe2\x9c\x93 bytes\n\x00tail"  # CRLF, UTF-8, a NUL: restored exactly
    (project / "data.bin").write_bytes(original)
    (project / "notes.md").write_text("one\ntwo\n")
    llm_server.script(Reply.call("write_file", {"path": "notes.md", "content": "ONE\n"}), Reply.say("First."))
    _turn(qtbot, chat, "first change")
    llm_server.script(
        Reply.call("write_file", {"path": "data.bin", "content": "replaced\n"}),
        Reply.call("write_file", {"path": "new.txt", "content": "made\n"}),
        Reply.say("Second."),
    )
    _turn(qtbot, chat, "second change")
    first_card, data_card, new_card = chat.transcript.cards()
    _offered(qtbot, first_card, data_card, new_card)

    users = [m for m in chat.transcript.messages() if m.role == "user"]
    second = users[1]
    assert second.undo_since_button.accessibleName() == "Undo changes since this message"
    assert second.undo_since_button.isVisibleTo(second)
    qtbot.mouseClick(second.undo_since_button, LEFT)
    sheet = _sheet(qtbot, chat)
    # Only the second turn's writes: the first turn's edit stays.
    assert sorted((r.path, r.action) for r in sheet.rows) == [("data.bin", "restore"), ("new.txt", "delete")]
    assert sheet.headline.text() == f"Undo 2 changes in {project.name}?"
    _confirm(qtbot, sheet)

    assert (project / "data.bin").read_bytes() == original
    assert not (project / "new.txt").exists()
    assert (project / "notes.md").read_text() == "ONE\n"
    qtbot.waitUntil(
        lambda: "Restored 1 file and deleted 1 file the agent created" in _notes(chat), timeout=5_000
    )
    assert data_card.undo_button.text() == "Redo" and new_card.undo_button.text() == "Redo"
    assert first_card.undo_button.text() == "Undo"

    # Nothing left since that message: the transcript says so, no sheet.
    qtbot.mouseClick(second.undo_since_button, LEFT)
    qtbot.waitUntil(lambda: any(n.startswith("Nothing to undo") for n in _notes(chat)), timeout=5_000)

    # Reopened from history: the undone writes still read Undone.
    session = chat.session_id
    chat.new_session()
    chat.open_session(session)
    cards = chat.transcript.cards()
    _offered(qtbot, *cards)
    assert [c.undo_button.text() for c in cards] == ["Undo", "Redo", "Redo"]
    assert [c.undone.isVisibleTo(c) for c in cards] == [False, True, True]


def test_a_file_changed_since_the_agent_wrote_it_is_a_conflict_kept_unless_the_person_ticks_overwrite(
    chat, qtbot, llm_server: ScriptedLLMServer, project: Path
) -> None:
    chat.window().context.set_mode("auto")
    notes = project / "notes.md"
    notes.write_text("mine\n")
    llm_server.script(
        Reply.call("write_file", {"path": "notes.md", "content": "agent's\n"}), Reply.say("Done.")
    )
    _turn(qtbot, chat, "write it")
    notes.write_text("changed by me afterwards\n")  # the person edits the file after the agent did
    (card,) = chat.transcript.cards()
    _offered(qtbot, card)

    qtbot.mouseClick(card.undo_button, LEFT)
    sheet = _sheet(qtbot, chat)
    assert [r.action for r in sheet.rows] == ["conflict"]
    assert sheet.action_labels[0].text() == "Changed since the agent wrote it"
    # The primary button alone does not overwrite: nothing to do until the box is ticked.
    assert sheet.overwrite.isVisibleTo(sheet) and not sheet.overwrite.isChecked()
    assert not sheet.undo_button.isEnabled() and sheet.undo_button.text() == "Nothing to undo"
    sheet.overwrite.setChecked(True)
    assert sheet.undo_button.isEnabled() and sheet.undo_button.text() == "Undo 1 change"
    sheet.overwrite.setChecked(False)
    qtbot.mouseClick(sheet.cancel_button, LEFT)
    assert notes.read_text() == "changed by me afterwards\n"

    # Confirmed: overwritten, and the person's version kept -- the undo can itself be undone.
    qtbot.mouseClick(card.undo_button, LEFT)
    sheet = _sheet(qtbot, chat)
    sheet.overwrite.setChecked(True)
    _confirm(qtbot, sheet)
    assert notes.read_text() == "mine\n"
    qtbot.waitUntil(lambda: card.undo_button.text() == "Redo", timeout=5_000)
    qtbot.mouseClick(card.undo_button, LEFT)
    redo = _sheet(qtbot, chat)
    _confirm(qtbot, redo)
    assert notes.read_text() == "changed by me afterwards\n"  # nothing was lost


def test_the_sheet_is_planned_off_the_window_thread_and_a_second_click_meanwhile_opens_no_second_sheet(
    chat, qtbot, llm_server: ScriptedLLMServer, project: Path, monkeypatch
) -> None:
    """The plan hashes each file (up to 25 MiB each) to find conflicts; the window must not wait on it.

    The real plan runs; the wrapper only holds it until the test lets go, to see the window meanwhile."""
    import threading

    from relavium_desktop.application.undo import UndoService

    chat.window().context.set_mode("auto")
    llm_server.script(Reply.call("write_file", {"path": "a.md", "content": "x\n"}), Reply.say("Done."))
    _turn(qtbot, chat, "write a")
    (card,) = chat.transcript.cards()
    _offered(qtbot, card)

    real_plan = UndoService.plan
    release = threading.Event()
    planned_on: list[str] = []

    def held_plan(self, checkpoints):
        planned_on.append(threading.current_thread().name)
        release.wait(10)
        return real_plan(self, checkpoints)

    monkeypatch.setattr(UndoService, "plan", held_plan)
    qtbot.mouseClick(card.undo_button, LEFT)
    qtbot.waitUntil(lambda: bool(planned_on), timeout=5_000)  # the window's loop runs while the plan is held
    assert planned_on == [planned_on[0]] and planned_on[0] != threading.main_thread().name
    qtbot.mouseClick(card.undo_button, LEFT)  # pressed again while planning: no second plan, no second sheet
    assert chat._undo_flow.sheet is None
    release.set()
    sheet = _sheet(qtbot, chat)
    assert [r.path for r in sheet.rows] == ["a.md"] and len(planned_on) == 1
    _confirm(qtbot, sheet)
    assert not (project / "a.md").exists()
