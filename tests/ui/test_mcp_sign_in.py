"""Signing in to a remote MCP server from the app, end to end.

Real parts: the window on the qasync loop; ``tests/fixtures/mcp_oauth_server.py``
(the SDK's MCP server behind a 401 challenge, with its own authorization
server: discovery, dynamic registration, PKCE, refresh); a scripted browser
started through ``$BROWSER`` exactly as a person's browser would be
(``tests/conformance/browser.py``, following the redirect back to the app's
loopback listener); gnome-keyring on a private session bus; the scripted LLM
server for the chat turn.  Nothing is mocked.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from relavium_desktop.application.secrets import SecretStore
from relavium_desktop.ui import app_settings as keys
from relavium_desktop.ui.mcp.sign_in import WAITING, server_needing_sign_in
from tests.fixtures.desktop_bus import desktop_bus_env_fixture, desktop_bus_fixture  # noqa: F401
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.fixtures.mcp_oauth_process import OAuthMcpProcess
from tests.ui.chat_driver import ROUTE, type_and_enter

pytestmark = pytest.mark.spawns  # the keyring daemon, the OAuth server, the scripted browser

BROWSER = Path(__file__).resolve().parents[1] / "conformance" / "browser.py"
SERVICE = "relavium-mcp-oauth"  # the keyring service the sign-in store writes
WAIT_MS = 60_000


TTL_S = 4  # an access token's life where a test lets it expire (indirect parameter of ``oauth_server``)


@pytest.fixture
def oauth_server(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[OAuthMcpProcess]:
    server = OAuthMcpProcess(tmp_path, ttl_s=getattr(request, "param", None))
    server.start()
    yield server
    server.stop()


@pytest.fixture
def browser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``$BROWSER`` is the scripted browser; each page it opened appends its final HTTP status to the log."""
    log = tmp_path / "browser.log"
    monkeypatch.setenv("BROWSER", f"{sys.executable} {BROWSER} %s")
    monkeypatch.setenv("SCRIPTED_BROWSER_LOG", str(log))
    return log


@pytest.fixture
def tracker(relavium_home: Path, oauth_server: OAuthMcpProcess, project: Path) -> OAuthMcpProcess:
    """mcp.yaml names the OAuth-protected server 'tracker'; the project was chosen before the window opened."""
    (relavium_home / "mcp.yaml").write_text(
        f"servers:\n  tracker:\n    transport: http\n    url: http://127.0.0.1:{oauth_server.port}/mcp\n"
        "    allowLocal: true\n"
    )
    settings = keys.ui_settings(relavium_home)
    settings.setValue(keys.KEY_PROJECT, str(project))
    settings.sync()
    return oauth_server


@pytest.fixture
def masked_logs() -> Iterator[None]:
    """Log records masked as the app's entry point masks them (app.py's configure_logging), then undone."""
    from relavium_desktop.application.logs import configure_logging

    factory = logging.getLogRecordFactory()
    configure_logging({})
    yield
    logging.setLogRecordFactory(factory)


def stored() -> str | None:
    return SecretStore().get_item(SERVICE, "tracker")


def discovered(qtbot, view, count: int) -> None:
    qtbot.waitUntil(lambda: view.mcp is not None and view.mcp.discoveries >= count and not view.mcp.running,
                    timeout=WAIT_MS)


def open_chat(make_window, qtbot):
    """The window shown, its chat on the scripted model in Auto mode, after the first MCP discovery."""
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    view = window.chat_view
    qtbot.waitUntil(lambda: view.backend is not None)
    view.set_route(ROUTE)
    window.context.set_mode("auto")
    discovered(qtbot, view, 1)
    return window, view


def settings_page(qtbot, window):
    page = window.show_settings("mcp").mcp
    qtbot.waitUntil(lambda: page.auth_reads >= 1 and "tracker" in page.auth_states, timeout=WAIT_MS)
    page.select("tracker")
    return page


@pytest.mark.parametrize("oauth_server", [TTL_S], indirect=True)
def test_sign_in_from_settings_then_a_chat_turn_uses_the_token_and_sign_out_removes_it(
    desktop_bus_env: dict[str, str], make_window, qtbot, relavium_home: Path, tracker: OAuthMcpProcess,
    browser: Path, providers: None, llm_server: ScriptedLLMServer, caplog: pytest.LogCaptureFixture,
    masked_logs: None,
) -> None:
    caplog.set_level(logging.DEBUG)
    window, view = open_chat(make_window, qtbot)
    # Before signing in, the chat's MCP status says so, and the offer under it signs in.
    assert "'tracker' needs you to sign in" in view.mcp_status.full_text()
    offer = view.sign_in_offer
    assert offer.isVisible() and "“tracker” needs you to sign in" in offer.label.text()
    assert offer.sign_in_button.isVisible() and offer.sign_in_button.text() == "Sign in to tracker"
    assert view.mcp.tool_ids() == []

    page = settings_page(qtbot, window)
    panel = page.sign_in_panel
    assert panel.isVisible()
    assert panel.state_label.text() == "Needs sign-in"
    assert panel.sign_in_button.isVisible() and panel.sign_in_button.property("variant") == "primary"
    assert not panel.sign_out_button.isVisible()
    assert "needs sign-in" in page.server_list.currentItem().text()
    with qtbot.waitSignal(page.tested, timeout=WAIT_MS):  # Test says so in words too, not as a failure
        page.test_button.click()
    assert page.health.text().startswith("Needs sign-in") and page.health.property("tone") == "warning"

    with qtbot.waitSignal(page.sign_in.finished, timeout=WAIT_MS) as done:
        panel.sign_in_button.click()
        assert panel.cancel_button.isVisible() and panel.note.text() == WAITING  # progress, and a way out
    assert done.args[1] is True, done.args
    assert browser.read_text().splitlines() == ["200"]  # the browser came back to the app's listener
    record = stored()  # the real keyring holds the tokens
    assert record is not None and any(token in record for token in tracker.tokens())
    qtbot.waitUntil(lambda: panel.state_label.text().startswith("Signed in as ada@example.test · until "),
                    timeout=WAIT_MS)
    assert panel.sign_out_button.isVisible() and not panel.sign_in_button.isVisible()
    assert panel.note.isHidden()  # the state line says it; no second line repeating it
    assert "signed in" in page.server_list.currentItem().text()

    # The chat heard of the sign-in, discovered again, and a turn calls the server's tool with the token.
    qtbot.waitUntil(lambda: "mcp_tracker_echo" in view.mcp.tool_ids(), timeout=WAIT_MS)
    window.pages.setCurrentWidget(view)
    assert not offer.isVisible()  # signed in elsewhere: the chat's offer is withdrawn
    llm_server.script(Reply.call("mcp_tracker_echo", {"text": "hi"}), Reply.say("It said hi."))
    with qtbot.waitSignal(view.turn_finished, timeout=WAIT_MS) as turn:
        type_and_enter(qtbot, view, "Echo hi")
    assert turn.args == ["completed"]
    assert "echo: hi" in json.dumps(llm_server.requests[1].body["messages"])

    # The access token expires (after 4 s here): the next turn's call refreshes it -- no prompt, no
    # browser, no offer -- and the refreshed token is what the keyring holds.
    issued = len(tracker.tokens())
    qtbot.wait((TTL_S + 1) * 1000)
    llm_server.script(Reply.call("mcp_tracker_echo", {"text": "later"}), Reply.say("It said later."))
    with qtbot.waitSignal(view.turn_finished, timeout=WAIT_MS) as later:
        type_and_enter(qtbot, view, "Echo later")
    assert later.args == ["completed"]
    assert "echo: later" in json.dumps(llm_server.requests[-1].body["messages"])
    assert len(tracker.tokens()) > issued  # a new access token was issued...
    assert browser.read_text().splitlines() == ["200"]  # ...without a second sign-in
    assert not offer.isVisible()
    refreshed = stored()
    assert refreshed is not None and tracker.tokens()[-1] in refreshed

    page = settings_page(qtbot, window)
    reads = page.auth_reads
    page.sign_in_panel.sign_out_button.click()
    qtbot.waitUntil(lambda: page.auth_reads > reads and panel.state_label.text() == "Needs sign-in",
                    timeout=WAIT_MS)
    assert stored() is None  # the keyring holds nothing for it any more
    assert panel.note.text() == "Signed out of tracker."
    assert panel.sign_in_button.isVisible()

    tokens = tracker.tokens()
    assert len(tokens) >= 2
    leaked = [str(p) for p in relavium_home.rglob("*") if p.is_file()
              for t in tokens if t.encode() in p.read_bytes()]
    assert leaked == []  # every file under RELAVIUM_HOME: history.db (the chat's events), settings, logs
    events = json.dumps([repr(m) for m in view.transcript.messages()] + [c.tool_id for c in view.transcript.cards()])
    assert not [t for t in tokens if t in events]
    assert not [t for t in tokens if t in caplog.text]


def test_cancel_stops_waiting_for_the_browser_and_stores_nothing(
    desktop_bus_env: dict[str, str], make_window, qtbot, tracker: OAuthMcpProcess, monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    # A browser that never comes back: it writes that it was asked, then nothing.
    asked = tmp_path / "asked"
    monkeypatch.setenv("BROWSER", f"touch {asked}")
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    page = settings_page(qtbot, window)
    panel = page.sign_in_panel
    panel.sign_in_button.click()
    qtbot.waitUntil(asked.exists, timeout=WAIT_MS)  # the sign-in page was opened; the listener waits
    assert panel.cancel_button.isVisible()
    with qtbot.waitSignal(page.sign_in.finished, timeout=WAIT_MS) as done:
        panel.cancel_button.click()
    assert done.args[1] is False
    assert "cancelled" in panel.note.text() and panel.note.property("tone") == "danger"
    assert stored() is None or "access_token" not in (stored() or "")
    assert panel.sign_in_button.isVisible() and not panel.cancel_button.isVisible()


def test_an_error_that_asks_for_a_sign_in_names_the_server() -> None:
    said = "could not connect to MCP server 'tracker' (MCP server 'tracker' needs you to sign in: sign in with …)"
    assert server_needing_sign_in(said) == "tracker"
    assert server_needing_sign_in("MCP server 'tracker': calling 'echo' failed (timeout)") is None
    assert server_needing_sign_in(None) is None


def test_a_call_refused_mid_chat_offers_sign_in_in_place_and_continue_carries_the_turn_on(
    desktop_bus_env: dict[str, str], make_window, qtbot, tracker: OAuthMcpProcess, browser: Path,
    providers: None, llm_server: ScriptedLLMServer,
) -> None:
    _window, view = open_chat(make_window, qtbot)
    offer = view.sign_in_offer
    # Signing in from the chat's own offer: progress and a Cancel, then its tools are offered.
    with qtbot.waitSignal(offer.controller.finished, timeout=WAIT_MS) as done:
        offer.sign_in_button.click()
        assert offer.cancel_button.isVisible() and not offer.sign_in_button.isVisible()
    assert done.args[1] is True, done.args
    assert "Signed in to tracker as ada@example.test" in offer.label.text()
    qtbot.waitUntil(lambda: "mcp_tracker_echo" in view.mcp.tool_ids(), timeout=WAIT_MS)
    llm_server.script(Reply.call("mcp_tracker_echo", {"text": "one"}), Reply.say("It said one."))
    with qtbot.waitSignal(view.turn_finished, timeout=WAIT_MS):
        type_and_enter(qtbot, view, "Echo one")
    assert "echo: one" in json.dumps(llm_server.requests[-1].body["messages"])

    # The server forgets every token (a revoked sign-in): the next call is refused mid-chat.
    tracker.restart()
    llm_server.script(Reply.call("mcp_tracker_echo", {"text": "two"}),
                      Reply.call("mcp_tracker_echo", {"text": "two"}), Reply.say("It said two."))
    with qtbot.waitSignal(view.turn_finished, timeout=WAIT_MS) as stopped:
        type_and_enter(qtbot, view, "Echo two")
    assert stopped.args == ["failed"]  # a host failure ends the turn; the offer says how to go on
    card = view.transcript.cards()[-1]
    assert card.tool_id == "mcp_tracker_echo" and card.status != "done"
    assert offer.isVisible() and offer.mid_turn
    assert "“tracker” asked you to sign in again" in offer.label.text()
    assert offer.sign_in_button.isVisible() and offer.sign_in_button.property("variant") == "primary"
    assert not view.banner.isVisible()  # the offer says what happened; no bare error on top

    with qtbot.waitSignal(offer.controller.finished, timeout=WAIT_MS) as done:
        offer.sign_in_button.click()
    assert done.args[1] is True, done.args
    assert offer.retry_button.isVisible() and offer.retry_button.text() == "Continue"
    assert "Continue to let the agent try again" in offer.label.text()
    with qtbot.waitSignal(view.turn_finished, timeout=WAIT_MS) as again:
        offer.retry_button.click()
    assert again.args == ["completed"]
    assert not offer.isVisible()
    assert "echo: two" in json.dumps(llm_server.requests[-1].body["messages"])
    assert [m.shown_text().strip() for m in view.transcript.messages()][-1] == "It said two."
    assert [m.shown_text() for m in view.transcript.messages()].count("Echo two") == 1  # resumed, not re-asked
    assert browser.read_text().splitlines() == ["200", "200"]  # two sign-ins, each through the browser

    # Refused once more, and this time the person asks something else instead of signing in: the
    # Continue would re-run a turn that is no longer the last, so the bar goes with the new message.
    tracker.restart()
    llm_server.script(Reply.call("mcp_tracker_echo", {"text": "three"}))
    with qtbot.waitSignal(view.turn_finished, timeout=WAIT_MS):
        type_and_enter(qtbot, view, "Echo three")
    assert offer.isVisible() and offer.mid_turn
    llm_server.script(Reply.say("Sure, no tools needed."))
    with qtbot.waitSignal(view.turn_finished, timeout=WAIT_MS) as other:
        type_and_enter(qtbot, view, "Never mind, what is 2 + 2?")
    assert other.args == ["completed"]
    assert not offer.isVisible() and not offer.retry_button.isVisible()
