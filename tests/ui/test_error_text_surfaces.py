"""Error text on real app surfaces never shows a piece of a key (ui/error_text.py, the one choke point).

Real parts: the window, providers.yaml on disk, the ``keyring`` library
loading a backend (a stand-in that echoes what it was given, see
``echoing_keyring.py``), and a real MCP server over stdio
(``tests/fixtures/mcp_leaky_server.py``) whose prompt fails echoing its
argument.  Each assertion is on the label a person reads.  Last, the chat
transcript of a key the scripted model server streams in pieces (the hold-back
in ``engine/agent/held_stream.py``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from relavium_desktop.ui.qt import Qt
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.ui.chat_driver import type_and_enter

KEY = "sk-ant-api03-Hq7Wn2Lp9Rt4Yv6Bm1Zx8Cs3Dk5Fj0GgQ"
LEAKY = str(Path(__file__).resolve().parents[1] / "fixtures" / "mcp_leaky_server.py")


def pieces_shown(secret: str, shown: str) -> list[str]:
    return [secret[i : i + 8] for i in range(len(secret) - 7) if secret[i : i + 8] in shown]


def test_a_key_pasted_into_providers_yaml_is_masked_in_the_settings_error(make_window, relavium_home: Path) -> None:
    # The key pasted one level too far left: it becomes a provider name, which the error names.
    (relavium_home / "providers.yaml").write_text(f"providers:\n  {KEY}: {{kind: nope, base_url: https://a}}\n")
    page = make_window().show_settings("providers").providers
    shown = page.file_error.text()
    assert page.file_error.isVisibleTo(page)
    assert "providers.yaml" in shown and "***" in shown and "kind" in shown
    assert pieces_shown(KEY, shown) == [], shown


def test_a_keyring_error_that_echoes_the_key_is_masked_in_the_providers_banner(
    make_window, relavium_home: Path, qtbot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "tests.ui.echoing_keyring.EchoingKeyring")
    (relavium_home / "providers.yaml").write_text(
        "providers:\n  claude:\n    kind: anthropic\n    base_url: https://api.anthropic.com\n"
        "    api_key: secret:claude-key\n"
    )
    page = make_window().show_settings("providers").providers
    with qtbot.waitSignal(page.changed, timeout=15_000):
        pass  # the first read of the keyring, started when the tab was shown, has finished
    row = page.rows["claude"]
    row.key_edit.setText(KEY)
    page.save_key("claude")
    qtbot.waitUntil(lambda: "helper rejected" in page.banner.text(), timeout=15_000)
    shown = page.banner.text()
    assert "API keys can't be saved" in shown and "helper rejected" in shown and "***" in shown
    assert pieces_shown(KEY, shown) == [], shown
    assert "dbus-run-session" in shown  # the keyring's own setup help is not clipped away
    assert row.key_edit.text() == ""


def test_an_mcp_prompt_error_that_echoes_the_key_is_masked_in_the_composer_status(
    make_window, folder_picker, project: Path, providers: None, relavium_home: Path, qtbot
) -> None:
    from relavium_desktop.ui.chat.mcp_composer import PromptArgsDialog

    (relavium_home / "mcp.yaml").write_text(json.dumps(
        {"servers": {"leaky": {"transport": "stdio", "command": sys.executable, "args": [LEAKY]}}}
    ))
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    folder_picker.answers.append(str(project))
    window.project_button.click()
    view = window.chat_view
    qtbot.waitUntil(lambda: view.backend is not None)
    qtbot.waitUntil(lambda: view.mcp is not None and bool(view.mcp.prompts()), timeout=30_000)
    view.composer.setFocus()
    qtbot.keyClicks(view.composer, "/")
    qtbot.keyClick(view.composer, Qt.Key.Key_Return)
    dialog = view.slash_prompts.dialog
    assert isinstance(dialog, PromptArgsDialog)
    dialog.fields["text"].setText(KEY)
    dialog.ok_button.click()
    status = view.slash_prompts.status
    qtbot.waitUntil(lambda: "cannot build the prompt" in status.text(), timeout=15_000)
    shown = status.text()
    assert "/leaky:leak" in shown and "***" in shown
    assert pieces_shown(KEY, shown) == [], shown


def test_a_key_the_model_streams_in_pieces_never_shows_in_the_chat_transcript(
    chat, qtbot, llm_server: ScriptedLLMServer
) -> None:
    before, after = "Here it is: ", " -- rotate it now, it was pasted into a chat."
    llm_server.script(Reply(text=before + KEY + after, pieces=24))
    streamed: list[str] = []
    chat.transcript.flushed.connect(lambda _n: streamed.append(chat.transcript.messages()[-1].shown_text()))
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000) as done:
        type_and_enter(qtbot, chat, "What is my key?")
    assert done.args == ["completed"]
    final = chat.transcript.messages()[-1].shown_text()
    assert streamed and [s for s in streamed if pieces_shown(KEY, s)] == []
    assert pieces_shown(KEY, final) == [], final
    assert final.strip() == (before + "***" + after).strip()


def test_the_chat_error_banner_marks_control_characters_a_server_put_in_its_error(qtbot) -> None:
    from relavium_desktop.ui.chat.banner import ErrorBanner

    banner = ErrorBanner()
    qtbot.addWidget(banner)
    banner.show_error({"code": "provider_unavailable",
                       "message": f"upstream said \u202egpj.sh\u202c with {KEY}\x1b[2J"})
    shown = banner.details.text()  # the engine's message sits in the banner's details
    assert "⟦U+202E RLO⟧" in shown and "⟦\\x1b⟧" in shown and "\x1b" not in shown and "\u202e" not in shown
    assert pieces_shown(KEY, shown) == [], shown
