"""The quick panel with an image on the clipboard: image actions, the permission prompt first, the image sent.

Real parts: the Qt clipboard (``setImage``, as a screenshot tool does), the
window's own permission dialog, the media store under ``$RELAVIUM_HOME``, and
the scripted LLM server (real HTTP, OpenAI streaming format) scripting the
model's tool calls.  The handle the model asks read_media for is the sha256
of the PNG the desktop encodes from the clipboard; the test computes it from
the same clipboard image with the same encoder before the read is allowed.
"""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QImage

from relavium_desktop.ui.clipboard_access import encode_png
from relavium_desktop.ui.permission_dialog import PermissionDialog
from tests.fixtures.llm_server import Reply, ScriptedLLMServer

KEY = "sk-test-QUICKPANELIMG0123456789abcdefgh"
ANSWER = "A blue error dialog: the disk is full; free some space and retry."


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


def _copy_screenshot(qapp) -> str:
    """Put a 23x17 image on the clipboard; the sha256 of the PNG the desktop will encode from it."""
    image = QImage(23, 17, QImage.Format.Format_RGB32)
    image.fill(QColor(30, 90, 220))
    qapp.clipboard().setImage(image)
    return hashlib.sha256(encode_png(qapp.clipboard().image())).hexdigest()


def _open_panel(window, qtbot):
    window.process_clipboard()
    qtbot.waitUntil(lambda: window.quick_panel is not None and window.quick_panel.isVisible())
    return window.quick_panel


def _run(panel, title: str) -> None:
    """Click the tile of the action titled ``title`` (a tile runs its action)."""
    titles = [panel.action_list.item(i).text() for i in range(panel.action_list.count())]
    panel.action_list.item(titles.index(title)).click()


def _image_parts(body: dict) -> list[str]:
    urls = []
    for message in body["messages"]:
        content = message.get("content")
        if isinstance(content, list):
            urls += [p["image_url"]["url"] for p in content if p.get("type") == "image_url"]
    return urls


def test_an_image_action_asks_before_reading_and_sends_the_image(
    window, qtbot, qapp, relavium_home: Path, llm_server: ScriptedLLMServer
) -> None:
    sha = _copy_screenshot(qapp)
    panel = _open_panel(window, qtbot)
    assert panel.has_image and panel.text == ""
    titles = [panel.action_list.item(i).text() for i in range(panel.action_list.count())]
    assert titles == ["Explain this screenshot", "Extract the text"]
    assert "holds an image" in panel.preview.placeholderText()
    assert panel.kind_label.text() == "You copied · an image"
    assert not panel.image_note.isVisibleTo(panel)  # gpt-4o-mini sees images: nothing to explain

    handle = f"media://sha256-{sha}"
    llm_server.script(Reply.call("read_clipboard", {"content": "image"}),
                      Reply.call("read_media", {"handle": handle}), Reply.say(ANSWER))
    opened: list[PermissionDialog] = []
    window.context.approvals.dialog_opened.connect(opened.append)
    store_object = relavium_home / "media" / "objects" / sha[:2] / sha
    with qtbot.waitSignal(panel.finished_run, timeout=20_000) as done:
        _run(panel, "Explain this screenshot")
        qtbot.waitUntil(lambda: bool(opened), timeout=15_000)
        # The prompt is up and nothing was read yet: no image in the store, one request so far.
        assert opened[0].request.tool_id == "read_clipboard"
        assert not store_object.exists()
        assert len(llm_server.requests) == 1
        opened[0].allow_button.click()
    assert done.args == ["explain-screenshot"]
    assert panel.result_view.toPlainText() == ANSWER
    assert store_object.exists()

    # The model was given the tools, not the image; the image went as OpenAI's own image part, once read_media asked.
    first = llm_server.requests[0].body
    assert sorted(t["function"]["name"] for t in first["tools"]) == ["read_clipboard", "read_media"]
    assert _image_parts(first) == [] and _image_parts(llm_server.requests[1].body) == []
    assert handle in json.dumps(llm_server.requests[1].body)  # the tool result named the handle
    urls = _image_parts(llm_server.requests[2].body)
    assert len(urls) == 1 and urls[0].startswith("data:image/png;base64,")
    sent = base64.b64decode(urls[0].split(",", 1)[1])
    assert hashlib.sha256(sent).hexdigest() == sha
    decoded = QImage.fromData(sent, "PNG")
    assert (decoded.width(), decoded.height()) == (23, 17)


def test_a_denied_read_leaves_the_image_unread(
    window, qtbot, qapp, relavium_home: Path, llm_server: ScriptedLLMServer
) -> None:
    sha = _copy_screenshot(qapp)
    panel = _open_panel(window, qtbot)
    llm_server.script(Reply.call("read_clipboard", {"content": "image"}), Reply.say("should not be asked"))
    opened: list[PermissionDialog] = []
    window.context.approvals.dialog_opened.connect(opened.append)
    _run(panel, "Extract the text")
    qtbot.waitUntil(lambda: bool(opened), timeout=15_000)
    opened[0].reject()  # Esc, Deny and closing all deny
    qtbot.waitUntil(lambda: "failed" in panel.status.text(), timeout=15_000)
    assert "tool_denied" in panel.status.text()
    assert not (relavium_home / "media" / "objects" / sha[:2] / sha).exists()
    assert len(llm_server.requests) == 1  # the denial ends the run; the model is not asked again
    assert panel.action_list.isEnabled() and not panel.chat_button.isEnabled()


def test_a_text_only_model_gets_no_image_actions_and_a_capable_configured_model_is_named(
    window, qtbot, qapp, llm_server: ScriptedLLMServer
) -> None:
    llm_server.models = ["gpt-3.5-turbo", "gpt-4o-mini"]
    window.chat_view.models.refresh(force=True)
    qtbot.waitUntil(lambda: "scripted-openai" in window.chat_view.models.lists, timeout=15_000)
    window.chat_view.set_route("scripted-openai/gpt-3.5-turbo")
    _copy_screenshot(qapp)
    panel = _open_panel(window, qtbot)
    assert panel.action_list.count() == 0  # no image action to offer a model that cannot see
    assert panel.image_note.isVisibleTo(panel)
    assert panel.image_note.text().startswith("Image actions need a model that can see images — e.g. ")
    assert "scripted-openai/gpt-4o-mini" in panel.image_note.text()
    assert llm_server.requests == []


def test_with_text_copied_the_text_actions_are_offered_as_before(window, qtbot, qapp) -> None:
    qapp.clipboard().setText("plain words")
    panel = _open_panel(window, qtbot)
    titles = [panel.action_list.item(i).text() for i in range(panel.action_list.count())]
    assert not panel.has_image
    assert "Explain this screenshot" not in titles and "Summarize" in titles
