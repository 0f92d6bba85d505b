""""Process what I copied" runs a clipboard action against the configured provider.

The provider is the scripted local server (real HTTP, OpenAI streaming
format), configured like the CLI: ``$RELAVIUM_HOME/providers.yaml`` with the
local endpoint opted in explicitly.  The second launch is a real
``python -m relavium_desktop --process-clipboard`` process forwarding to this
test's window over the single-instance socket; the notification goes to a
real dunst on the private test bus.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from relavium_desktop.ui.qt import QWidget
from relavium_desktop.ui.shell import NAV_CHAT
from relavium_desktop.ui.single_instance import InstanceServer, server_name
from tests.fixtures.desktop_bus import desktop_bus  # noqa: F401
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.fixtures.notifications import NotificationDaemon, notification_daemon, notifications  # noqa: F401

KEY = "sk-test-QUICKPANEL0123456789abcdefghij"
NOTES = "Meeting notes: ship v2 on Friday; Ana owns the release checklist."
CHECKLIST = "- [ ] Ship v2 on Friday\n- [ ] Ana: release checklist"


@pytest.fixture
def window(make_window, relavium_home: Path, llm_server: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("RELAVIUM_TEST_KEY", KEY)
    (relavium_home / "providers.yaml").write_text(json.dumps({"providers": {"scripted-openai": {
        "kind": "openai", "base_url": llm_server.base_url + "/v1", "api_key": "env:RELAVIUM_TEST_KEY",
        "allow_local": True,
    }}}))
    w = make_window()
    w.chat_view.ensure_loaded()
    w.chat_view.set_route("scripted-openai/gpt-4o-mini")
    return w


def run(panel, title: str) -> None:
    """Click the tile of the action titled ``title`` (a tile runs its action)."""
    titles = [panel.action_list.item(i).text() for i in range(panel.action_list.count())]
    panel.action_list.item(titles.index(title)).click()


def test_forwarded_process_clipboard_opens_the_panel_and_runs_an_action(
    window, qtbot, qapp, relavium_home: Path, llm_server: ScriptedLLMServer
) -> None:
    qapp.clipboard().setText(NOTES)
    server = InstanceServer(server_name(relavium_home))
    assert server.listen()
    server.command_received.connect(window.handle_instance_command)
    try:
        env = dict(os.environ, RELAVIUM_HOME=str(relavium_home), QT_QPA_PLATFORM="offscreen")
        proc = subprocess.Popen([sys.executable, "-m", "relavium_desktop", "--process-clipboard"],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        qtbot.waitUntil(lambda: proc.poll() is not None, timeout=30_000)
        assert proc.returncode == 0, proc.stderr.read().decode() if proc.stderr else ""
        qtbot.waitUntil(lambda: window.quick_panel is not None and window.quick_panel.isVisible())
    finally:
        server.close()
    panel = window.quick_panel
    assert panel.text == NOTES
    assert panel.kind_label.text() == "You copied · 1 line of text"

    llm_server.script(Reply.say(CHECKLIST))
    with qtbot.waitSignal(panel.finished_run, timeout=15_000) as done:
        run(panel, "Turn into a checklist")
    assert done.args == ["checklist"]
    # Rendered Markdown: the list's items, without the "- " the model wrote.
    shown = panel.result_view.toPlainText()
    assert "Ship v2 on Friday" in shown and "Ana: release checklist" in shown and "- [" not in shown
    assert panel.status.text() == "“Turn into a checklist” finished."
    # The provider got the action's prompt around the copied text, and no tool to act with.
    body = llm_server.requests[0].body
    sent = body["messages"][-1]["content"]
    assert NOTES in sent and sent != NOTES
    assert not body.get("tools")
    assert llm_server.requests[0].headers["authorization"] == f"Bearer {KEY}"

    # Copy puts the result on the clipboard.
    assert panel.copy_button.isEnabled()
    panel.copy_button.click()
    assert qapp.clipboard().text() == CHECKLIST

    # Continue in chat: a new session holding the prompt and the answer, shown in the Chat page.
    panel.chat_button.click()
    assert not panel.isVisible()
    chat = window.chat_view
    assert window.nav.currentRow() == NAV_CHAT
    assert chat.session_id is not None
    shown = [m.shown_text() for m in chat.transcript.messages()]
    assert NOTES in shown[0]
    assert "Ship v2 on Friday" in shown[1] and "Ana: release checklist" in shown[1]
    stored = chat.backend.store.messages(chat.session_id)
    assert [m.role for m in stored] == ["user", "assistant"]
    # Titled by the action and the first words copied, not by the rendered prompt around them.
    title = chat.backend.store.get(chat.session_id).title
    assert title.startswith("Turn into a checklist: ") and NOTES.split(maxsplit=1)[0] in title and len(title) <= 60


def test_a_provider_error_is_explained_in_the_panel(window, qtbot, qapp, llm_server: ScriptedLLMServer) -> None:
    qapp.clipboard().setText(NOTES)
    window.process_clipboard()
    qtbot.waitUntil(lambda: window.quick_panel is not None and window.quick_panel.isVisible())
    panel = window.quick_panel
    llm_server.script(Reply.error(401))
    panel.action_list.item(0).click()
    qtbot.waitUntil(lambda: "failed" in panel.status.text(), timeout=15_000)
    assert "provider_auth" in panel.status.text()
    assert KEY not in panel.status.text()
    assert panel.action_list.isEnabled() and not panel.copy_button.isEnabled()


def test_a_finished_action_notifies_when_the_panel_is_not_focused(
    window, qtbot, qapp, llm_server: ScriptedLLMServer, notifications: NotificationDaemon,  # noqa: F811
) -> None:
    qapp.clipboard().setText(NOTES)
    window.process_clipboard()
    qtbot.waitUntil(lambda: window.quick_panel is not None and window.quick_panel.isVisible())
    panel = window.quick_panel
    # The user went elsewhere: another window has the focus.
    elsewhere = QWidget()
    qtbot.addWidget(elsewhere)
    elsewhere.show()
    elsewhere.activateWindow()
    qtbot.waitUntil(lambda: not panel.isActiveWindow())

    llm_server.script(Reply.say("A short summary."))
    run(panel, "Summarize")
    qtbot.waitUntil(lambda: panel.last_notification_id is not None, timeout=15_000)
    notifications.close_all()
    latest = notifications.history()[0]
    assert latest["summary"] == "“Summarize” is ready"
    assert NOTES not in latest["body"]  # the copied text never goes to the notification
    assert panel.result_view.toPlainText() == "A short summary."
