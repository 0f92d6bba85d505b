"""The chat's model picker: grouped by provider, each provider's readiness, live lists, no clipped names.

Real parts: providers.yaml on disk, the scripted server's OpenAI-compatible
model list over real HTTP, a stopped server for "offline", the env key
resolver.  The keyring is the failing backend (no D-Bus in these tests).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from relavium_desktop.ui.chat.model_picker import REFRESH_LABEL, ROUTE_ROLE
from relavium_desktop.ui.qt import Qt
from tests.fixtures.llm_server import ScriptedLLMServer

LONG = "claude-3-7-sonnet-thinking-extended-context-preview-20250514"


@pytest.fixture(autouse=True)
def no_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")


@pytest.fixture
def three_providers(relavium_home: Path, llm_server: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch) -> str:
    dead = ScriptedLLMServer().start()
    dead_url = dead.base_url
    dead.stop()
    monkeypatch.delenv("RELAVIUM_NO_SUCH_KEY", raising=False)
    llm_server.models = ["llama3.2:3b", "qwen2.5-coder:7b", LONG]
    (relavium_home / "providers.yaml").write_text(json.dumps({"providers": {
        "local": {"kind": "openai", "base_url": llm_server.base_url + "/v1", "api_key": None, "allow_local": True},
        "cloud": {"kind": "anthropic", "base_url": "https://api.anthropic.com", "api_key": "env:RELAVIUM_NO_SUCH_KEY"},
        "gone": {"kind": "openai", "base_url": dead_url + "/v1", "api_key": None, "allow_local": True},
    }}))
    return dead_url


def rows(picker) -> list[tuple[str, str | None, bool]]:
    """(text, route, selectable) for every row of the open list."""
    model = picker.model()
    out = []
    for i in range(model.rowCount()):
        item = model.item(i)
        out.append((item.text().strip(), item.data(ROUTE_ROLE),
                    bool(item.flags() & Qt.ItemFlag.ItemIsSelectable)))
    return out


@pytest.fixture
def loaded(make_window, three_providers: str, qtbot):
    window = make_window()
    view = window.chat_view
    with qtbot.waitSignal(view.models.updated, timeout=20_000):
        view.ensure_loaded()
    return view


def test_models_are_grouped_under_providers_that_say_whether_they_are_ready(
    loaded, llm_server: ScriptedLLMServer
) -> None:
    listed = rows(loaded.model_combo)
    headings = [text for text, route, selectable in listed if route is None and text != REFRESH_LABEL]
    assert headings[:3] == ["local — ready", "cloud — no key", "gone — unreachable"]
    assert all(not sel for text, route, sel in listed if route is None and text != REFRESH_LABEL)
    local = [route for _t, route, _s in listed if route and route.startswith("local/")]
    assert local == ["local/llama3.2:3b", "local/qwen2.5-coder:7b", f"local/{LONG}"]  # the server's own list
    cloud = [route for _t, route, _s in listed if route and route.startswith("cloud/")]
    assert cloud and all(r.startswith("cloud/claude") for r in cloud)  # known models until a key is added
    assert listed[-1][0] == REFRESH_LABEL
    model = loaded.model_combo.model()
    gone = next(model.item(i) for i in range(model.rowCount()) if model.item(i).text().startswith("gone"))
    assert "Offline" in gone.toolTip()
    assert [r.dialect for r in llm_server.list_requests] == ["openai-models"]


def test_a_long_model_name_is_elided_in_the_middle_with_the_whole_route_as_tooltip(loaded, qtbot) -> None:
    picker = loaded.model_combo
    picker.set_route(f"local/{LONG}")
    picker.resize(220, picker.height())
    shown = picker.shown_text()
    assert "…" in shown and shown.startswith("local · ") and shown.endswith("20250514")
    assert picker.toolTip() == f"local/{LONG}"
    picker.resize(900, picker.height())
    assert picker.shown_text() == f"local · {LONG}"  # the chip names provider and model apart


def test_the_refresh_entry_asks_again_and_keeps_the_choice(loaded, qtbot, llm_server: ScriptedLLMServer) -> None:
    picker = loaded.model_combo
    picker.set_route("local/llama3.2:3b")
    llm_server.models = ["llama3.2:3b", "brand-new-model"]
    with qtbot.waitSignal(loaded.models.updated, timeout=20_000):
        picker.setCurrentIndex(picker.count() - 1)
    assert picker.route() == "local/llama3.2:3b"
    assert "local/brand-new-model" in picker.routes()
    assert len(llm_server.list_requests) == 2


def test_a_provider_added_to_the_file_appears_without_a_restart(loaded, qtbot, relavium_home: Path,
                                                              llm_server: ScriptedLLMServer) -> None:
    from relavium_desktop.providers.config import ProviderEntry

    store = loaded.context.provider_store()
    with qtbot.waitSignal(loaded.models.updated, timeout=20_000):
        store.add("second", ProviderEntry(kind="openai", base_url=llm_server.base_url + "/v1", allow_local=True))
        loaded.context.check_providers()
    assert any(r.startswith("second/") for r in loaded.model_combo.routes())


def test_a_route_no_provider_lists_is_kept_under_other(loaded) -> None:
    loaded.set_route("somewhere/custom-model")
    assert loaded.model_combo.route() == "somewhere/custom-model"
    texts = [text for text, _r, _s in rows(loaded.model_combo)]
    assert texts.index("other — not in any provider's list") < texts.index("somewhere/custom-model")
    assert texts[-1] == REFRESH_LABEL


def test_with_no_model_chosen_the_picker_moves_off_a_provider_that_is_not_ready(
    make_window, qtbot, relavium_home: Path, llm_server: ScriptedLLMServer,
) -> None:
    """Only a local server is set up: the built-in agent's cloud route would fail, so a ready model is picked."""
    llm_server.models = ["llama3.2:3b"]
    (relavium_home / "providers.yaml").write_text(json.dumps({"providers": {
        "anthropic": {"kind": "anthropic", "base_url": "https://api.anthropic.com",
                      "api_key": "env:RELAVIUM_NO_SUCH_KEY"},
        "local": {"kind": "openai", "base_url": llm_server.base_url + "/v1", "api_key": None, "allow_local": True},
    }}))
    view = make_window().chat_view
    with qtbot.waitSignal(view.models.updated, timeout=20_000):
        view.ensure_loaded()
    assert view.model_combo.route() == "local/llama3.2:3b"
    # The app's default model, where `relavium chat` reads it too.
    assert json.loads((relavium_home / "defaults.json").read_text())["model"] == "local/llama3.2:3b"


def test_a_model_the_user_chose_is_never_switched(make_window, qtbot, three_providers: str,
                                                  relavium_home: Path) -> None:
    (relavium_home / "defaults.json").write_text(json.dumps({"model": "cloud/claude-sonnet-4"}))
    window = make_window()
    view = window.chat_view
    with qtbot.waitSignal(view.models.updated, timeout=20_000):
        view.ensure_loaded()
    assert view.model_combo.route() == "cloud/claude-sonnet-4"  # no key yet, but the user's choice
    assert json.loads((relavium_home / "defaults.json").read_text())["model"] == "cloud/claude-sonnet-4"


def test_the_picked_model_and_agent_are_the_apps_defaults(loaded, relavium_home: Path) -> None:
    """What the window's pickers choose is written to defaults.json, which `relavium chat` reads."""
    from relavium_desktop.ui.chat.backend import AgentChoice

    picker = loaded.model_combo
    picker.set_route("local/qwen2.5-coder:7b")
    assert json.loads((relavium_home / "defaults.json").read_text()) == {"model": "local/qwen2.5-coder:7b"}
    # defaults.json is the one copy: the window keeps none in its own settings for a reader to trust instead.
    assert loaded.context.settings.value("chat/model") is None
    # Another agent starts on its own route: the picked model is no longer the default.
    spec = loaded.agents[0].spec.model_copy(update={"id": "reviewer", "provider": "local", "model": "llama3.2:3b"})
    loaded.agents.append(AgentChoice(spec, "reviewer.agent.yaml"))
    loaded.agent_combo.addItem("reviewer", "reviewer")
    loaded.agent_combo.setCurrentIndex(1)
    assert json.loads((relavium_home / "defaults.json").read_text()) == {"agent": "reviewer"}
    assert picker.route() == "local/llama3.2:3b"


def test_the_open_list_is_wide_enough_for_its_headings(loaded, qtbot) -> None:
    """The closed chip is narrow; the list it opens shows each provider's heading unelided."""
    picker = loaded.model_combo
    picker.resize(120, picker.height())
    picker.showPopup()
    view = picker.view()
    qtbot.waitUntil(view.isVisible)
    widest = max(view.sizeHintForColumn(0), 0)
    assert view.width() >= min(widest, 760) > picker.width()
    picker.hidePopup()
