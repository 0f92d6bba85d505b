"""Chat: "Allow a folder outside the project…" after an outside_scope refusal.

Real parts: the scripted provider server, the real file host of the chat
(rebuilt with the granted folder as an extra root), history.db.  The native
folder dialog is replaced by the folder-picker test double (tests/ui/conftest.py)
-- a native dialog cannot be driven by a test.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from relavium_desktop.ui.chat.folder_access import ALLOW_LABEL
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.ui.chat_driver import type_and_enter

NOTES = "meeting notes: ship on friday\n"
SSH_KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAAfolderGrantSecretKey\n"
ENV_SECRET = "API_TOKEN=folder-grant-env-secret-value\n"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    (folder / ".ssh").mkdir(parents=True)
    (folder / "notes.txt").write_text(NOTES)
    (folder / ".ssh" / "id_ed25519").write_text(SSH_KEY)
    (folder / ".env").write_text(ENV_SECRET)
    secret = tmp_path / "not-granted"
    secret.mkdir()
    (secret / "data.txt").write_text("not granted data\n")
    (folder / "link").symlink_to(secret)  # a symlink out of the granted folder
    return folder


def ask(qtbot, chat, llm_server: ScriptedLLMServer, text: str, *replies: Reply,
        outcome: str = "completed"):
    llm_server.script(*replies)
    before = len(chat.transcript.cards())
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000) as done:
        type_and_enter(qtbot, chat, text)
    assert done.args == [outcome]
    return chat.transcript.cards()[before:]


def read(path: Path | str) -> Reply:
    return Reply.call("read_file", {"path": str(path)})


def test_granting_an_outside_folder_lets_the_retry_succeed_and_revoking_removes_it(
    chat, qtbot, llm_server: ScriptedLLMServer, folder_picker, project: Path, outside: Path,
    make_window,
) -> None:
    window = chat.window()
    window.context.set_mode("confirm")
    offer = chat.folder_offer

    # 1. Refused: outside the project.  The chat offers the folder grant.
    (card,) = ask(qtbot, chat, llm_server, "read my notes", read(outside / "notes.txt"), Reply.say("I can't."))
    assert card.status == "failed" and "outside_scope" in card.details_text
    assert offer.isVisibleTo(chat) and offer.allow_button.text() == ALLOW_LABEL
    assert "outside the project folder" in offer.label.text()

    # A cancelled folder dialog changes nothing; a folder inside the project or "/" is refused.
    calls = folder_picker.calls
    offer.allow_button.click()
    assert folder_picker.calls == calls + 1 and window.context.grants.folders.list() == []
    folder_picker.answers += [str(project / "src"), "/"]
    offer.allow_button.click()
    assert "inside the project already" in offer.label.text()
    offer.allow_button.click()
    assert "whole file system" in offer.label.text()
    assert window.context.grants.folders.list() == []

    # 2. Allow the folder (the picker double answers); remembered for this project in history.db.
    folder_picker.answers.append(str(outside))
    offer.allow_button.click()
    (grant,) = window.context.grants.folders.list()
    assert grant.project == os.path.realpath(project) and grant.folder == os.path.realpath(outside)
    assert "Allowed for this project" in offer.label.text() and offer.retry_button.isVisibleTo(chat)

    # 3. "Continue" asks again (the refused turn ended with an answer); the folder is now a root.
    llm_server.script(read(outside / "notes.txt"), Reply.say("Friday."))
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000):
        offer.retry_button.click()
    card = chat.transcript.cards()[-1]
    assert card.status == "done" and "ship on friday" in card.result_view.toPlainText()
    assert not offer.isVisibleTo(chat)

    # 4. Never lifts floors: .ssh and .env inside the granted folder stay refused; a symlink
    #    out of it is judged by where it leads.
    # A protected path is a hard refusal (the turn stops); leaving the roots is fed back.
    (key_card,) = ask(qtbot, chat, llm_server, "read the key", read(outside / ".ssh" / "id_ed25519"),
                      outcome="failed")
    (env_card,) = ask(qtbot, chat, llm_server, "read the env", read(outside / ".env"), outcome="failed")
    (link_card,) = ask(qtbot, chat, llm_server, "read via the link", read(outside / "link" / "data.txt"),
                       Reply.say("Refused."))
    for refused in (key_card, env_card):
        assert refused.status == "failed" and "tool_denied" in refused.details_text
        assert "outside_scope" not in refused.details_text  # the floor refused it, not the scope
    assert link_card.status == "failed" and "outside_scope" in link_card.details_text
    sent = json.dumps([r.body for r in llm_server.requests])
    assert "folderGrantSecretKey" not in sent and "folder-grant-env-secret-value" not in sent
    assert "not granted data" not in sent

    # 5. It survives a restart, is per project, and Settings → Permissions lists and revokes it.
    again = make_window()
    again.context.ensure_services()
    assert [g.folder for g in again.context.grants.folders.list(str(project))] == [os.path.realpath(outside)]
    assert again.context.grants.folders.roots(str(outside)) == ()  # another project has no such grant
    page = window.show_settings("permissions").permissions
    texts = [[page.table.item(r, c).text() for c in range(3)] for r in range(page.table.rowCount())]
    assert texts == [[os.path.realpath(project), "File tools",
                      f"files under {os.path.realpath(outside)} (outside the project)"]]
    page.table.selectRow(0)
    page.revoke_button.click()
    assert page.table.rowCount() == 0 and window.context.grants.folders.list() == []

    # 6. Revoked: the next turn's host no longer has the root.
    window.nav.setCurrentRow(0)
    (card,) = ask(qtbot, chat, llm_server, "read my notes again", read(outside / "notes.txt"), Reply.say("No."))
    assert card.status == "failed" and "outside_scope" in card.details_text


def test_folder_grants_are_keyed_by_canonical_paths(tmp_path: Path, outside: Path, project: Path) -> None:
    """A symlinked spelling of the project or the folder is the same grant, never a second one."""
    from relavium_desktop.host.fs.preview import HOST_GRANT_PATHS
    from relavium_desktop.store.grants import GrantStore

    (tmp_path / "project-link").symlink_to(project)
    (tmp_path / "outside-link").symlink_to(outside)
    store = GrantStore.open(tmp_path / "home", HOST_GRANT_PATHS)
    try:
        first = store.folders.add(str(tmp_path / "project-link"), str(tmp_path / "outside-link"))
        second = store.folders.add(str(project), str(outside))
        assert first == second
        assert first.project == os.path.realpath(project) and first.folder == os.path.realpath(outside)
        assert store.folders.roots(str(project)) == (Path(os.path.realpath(outside)),)
        # A link inside the project that points out of it is judged by its target: a real grant.
        (project / "peek").symlink_to(outside)
        assert store.folders.add(str(project), str(project / "peek")) == first
        with pytest.raises(ValueError, match="does not exist"):
            store.folders.add(str(project), str(tmp_path / "missing"))
        assert store.folders.revoke(first.id) and not store.folders.revoke(first.id)
        assert store.folders.roots(str(project)) == ()
    finally:
        store.close()
