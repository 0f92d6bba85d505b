"""The welcome flow's key step against a real Secret Service (gnome-keyring on a private bus).

The provider is the scripted server (real HTTP, OpenAI wire format) set up as
an OpenAI-compatible entry whose key reference is ``secret:``: the pasted key
must land in the keyring only, be used for the test request, and appear in no
file, setting or label.
"""

from __future__ import annotations

import json
from pathlib import Path

from relavium_desktop.host.egress.local_servers import LocalServerKind
from relavium_desktop.host.secrets import SERVICE
from relavium_desktop.ui import app_settings as keys
from relavium_desktop.ui.welcome import STEP_KEY, STEP_MODEL
from tests.fixtures.desktop_bus import desktop_bus, desktop_bus_env  # noqa: F401
from tests.fixtures.fresh_keyring import FreshKeyring, fresh_keyring  # noqa: F401
from tests.fixtures.llm_server import Reply, ScriptedLLMServer

KEY = "sk-test-WELCOMEKEY0123456789abcdefghij"


def test_the_pasted_key_goes_to_the_keyring_and_is_tested(
    desktop_bus_env: dict[str, str],  # noqa: F811
    make_window, qtbot, relavium_home: Path, llm_server: ScriptedLLMServer,
) -> None:
    import keyring.backend

    if "saved_result" in vars(keyring.backend.get_all_keyring):  # an earlier test probed without a bus
        keyring.backend.get_all_keyring.reset()
    (relavium_home / "providers.yaml").write_text(json.dumps({"providers": {"work": {
        "kind": "openai", "base_url": llm_server.base_url + "/v1", "api_key": "secret:WORK_API_KEY",
        "allow_local": True}}}))
    window = make_window(welcome=True)
    window.after_first_paint()
    qtbot.waitUntil(lambda: window.welcome_view is not None, timeout=15_000)  # the key is not there yet
    welcome = window.welcome_view
    welcome.provider = "work"  # as if picked in step 1
    welcome.go(STEP_KEY)
    assert welcome.steps.currentIndex() == STEP_KEY
    assert welcome.step_label.text() == "Step 1 of 3 · Add your API key"
    assert not welcome.next_button.isEnabled()  # no key saved yet: nothing to go on with
    assert welcome.test_button.property("variant") == "primary"  # the step's one primary
    assert welcome.next_button.property("variant") == "secondary"

    llm_server.script(Reply.say("ok"))
    qtbot.keyClicks(welcome.key_edit, KEY)
    welcome.test_button.click()
    assert welcome.key_edit.text() == ""
    qtbot.waitUntil(lambda: not welcome.key_status.text().startswith("Saving"), timeout=20_000)
    assert welcome.key_status.text().startswith("Connected"), welcome.key_status.text()
    assert welcome.key_status.property("tone") == "success"
    assert llm_server.requests[-1].headers["authorization"] == f"Bearer {KEY}"
    assert window.context.settings.value(keys.KEY_WELCOME_DONE) == "done"

    import keyring.backends.SecretService

    assert keyring.backends.SecretService.Keyring().get_password(SERVICE, "WORK_API_KEY") == KEY
    window.context.settings.sync()
    for path in relavium_home.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path.name
    assert KEY not in welcome.key_status.text()
    welcome.next_button.click()
    assert welcome.steps.currentIndex() == STEP_MODEL


def test_running_the_flow_again_with_a_stored_key_lets_the_user_go_on(
    desktop_bus_env: dict[str, str],  # noqa: F811
    make_window, qtbot, relavium_home: Path, llm_server: ScriptedLLMServer,
) -> None:
    import keyring.backend

    from relavium_desktop.host.secrets import SecretStore

    if "saved_result" in vars(keyring.backend.get_all_keyring):
        keyring.backend.get_all_keyring.reset()
    SecretStore().set("AGAIN_API_KEY", KEY)
    try:
        (relavium_home / "providers.yaml").write_text(json.dumps({"providers": {"work": {
            "kind": "openai", "base_url": llm_server.base_url + "/v1", "api_key": "secret:AGAIN_API_KEY",
            "allow_local": True}}}))
        window = make_window()
        welcome = window.show_welcome()  # Settings → Providers → "Run the setup guide again"
        welcome.provider = "work"
        welcome.go(STEP_KEY)
        qtbot.waitUntil(welcome.next_button.isEnabled, timeout=15_000)
        assert welcome.key_status.text().startswith("A key is already stored")
        assert KEY not in welcome.key_status.text()
        welcome.next_button.click()
        assert welcome.steps.currentIndex() == STEP_MODEL
    finally:
        SecretStore().delete("AGAIN_API_KEY")

def test_a_fresh_desktop_keyring_is_not_created_by_launch_or_the_local_server_path(
    fresh_keyring: FreshKeyring,  # noqa: F811
    make_window, qtbot, relavium_home: Path, llm_server: ScriptedLLMServer,
) -> None:
    """Launching on a new desktop account must not pop gnome-keyring's "Choose password for new keyring".

    The measurable signal: gnome-keyring shows that dialog only for a ``CreateCollection`` call (and a
    password dialog only for ``Unlock``); either then runs a ``Prompt`` object.  ``fresh_keyring``
    records those calls with dbus-monitor on the private bus, and its ``default`` alias stays ``"/"``
    while no keyring was created.  Before the fix, provider readiness read the default cloud providers'
    keys through keyring's ``get_password``, which creates the default collection: exactly the calls
    recorded here.  Presence is now a Secret Service search, which creates and unlocks nothing.
    """
    import keyring.backend

    if "saved_result" in vars(keyring.backend.get_all_keyring):  # an earlier test probed another bus
        keyring.backend.get_all_keyring.reset()
    llm_server.models = ["llama3.2:3b"]
    port = int(llm_server.base_url.rsplit(":", 1)[1])
    window = make_window(welcome=True, local_servers=[LocalServerKind("Ollama", "ollama", port)])
    window.show()
    qtbot.waitExposed(window)
    window.after_first_paint()
    welcome = window.welcome_view
    assert welcome is not None

    welcome.look_button.click()
    qtbot.waitUntil(lambda: welcome.local_list.count() == 1, timeout=10_000)
    welcome.pick_local(0)
    assert welcome.steps.currentIndex() == STEP_MODEL
    qtbot.waitUntil(lambda: welcome.model_list.currentRow() == 0, timeout=10_000)  # the sole model, preselected
    welcome.next_button.click()
    welcome.next_button.click()  # "Start chatting"
    assert window.welcome_view is None
    # The chat's model picker checks every configured provider's key (the default cloud ones need one).
    models = window.chat_view.models
    qtbot.waitUntil(lambda: models.statuses.get("anthropic") is not None, timeout=30_000)
    status = models.statuses["anthropic"]
    assert status.key_state == "missing", status.detail
    assert models.statuses["ollama"].key_state == "none_needed"
    qtbot.waitUntil(lambda: not models.busy, timeout=20_000)

    assert fresh_keyring.calls() == []
    assert fresh_keyring.default_collection() == "/"
