"""Images pasted or dropped into the chat composer, through the real window to the scripted server.

Real parts end to end: the system clipboard (Xvfb) holds the pasted image,
a dropped PNG is a real file, the composer publishes to the real media
store under ``$RELAVIUM_HOME/media``, the provider request goes to the
scripted LLM server (which records its body) in each provider's wire form,
and the history is the real ``history.db``.  The drop itself is a
synthesised ``QDropEvent`` (no window system here can drag).
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from relavium_desktop.ui.chat.thumbnails import ImageViewer, ThumbnailRow
from relavium_desktop.ui.qt import (
    QColor,
    QDropEvent,
    QGuiApplication,
    QImage,
    QMimeData,
    QPointF,
    Qt,
    QUrl,
)
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.host.media.pictures import png
from tests.ui.chat_driver import type_and_enter


def _image(width: int, height: int) -> QImage:
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor(30, 120, 200))
    return image


def _sent_images(kind: str, body: dict[str, Any]) -> list[tuple[str, bytes]]:
    """(mime type, bytes) of every image the request body carries, in the provider's wire form."""
    found: list[tuple[str, bytes]] = []
    for m in body["messages"]:
        content = m.get("content")
        for part in content if isinstance(content, list) else []:
            if kind == "anthropic" and part.get("type") == "image":
                assert part["source"]["type"] == "base64"
                found.append((part["source"]["media_type"], base64.b64decode(part["source"]["data"])))
            elif kind == "openai" and part.get("type") == "image_url":
                head, data = part["image_url"]["url"].split(",", 1)
                assert head.startswith("data:") and head.endswith(";base64")
                found.append((head[5:-7], base64.b64decode(data)))
    return found


def _drop(composer, paths: list[Path]) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime,
                       Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    composer.dropEvent(event)
    assert event.isAccepted()


def _history_text(home: Path) -> str:
    import sqlite3

    conn = sqlite3.connect(home / "history.db")
    try:
        return "\n".join(r[0] for r in conn.execute("SELECT parts_json FROM chat_messages"))
    finally:
        conn.close()


def _thumbnails(block) -> list:
    row = block.attachments
    assert isinstance(row, ThumbnailRow)
    return row.thumbnails


def _use_anthropic(home: Path, server: ScriptedLLMServer) -> None:
    entries = json.loads((home / "providers.yaml").read_text())
    entries["providers"]["scripted-anthropic"] = {
        "kind": "anthropic", "base_url": server.base_url, "api_key": "env:RELAVIUM_TEST_KEY", "allow_local": True}
    (home / "providers.yaml").write_text(json.dumps(entries))


def test_a_pasted_screenshot_is_sent_as_an_openai_image_and_shown_as_a_thumbnail(
    chat, qtbot, llm_server: ScriptedLLMServer, relavium_home: Path
) -> None:
    QGuiApplication.clipboard().setImage(_image(64, 40))
    chat.composer.setFocus()
    qtbot.keyClick(chat.composer, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    assert chat.composer.toPlainText() == ""  # attached, not pasted as text
    qtbot.waitUntil(lambda: len(chat.attachments.items) == 1 and chat.attachments.items[0].ready)
    chip = chat.attachments.chips[0]
    size = chat.attachments.items[0].size
    assert chip.title.text() == "Pasted image" and chip.detail.text() == f"{size} B"  # a flat 64x40 PNG is small
    assert not chat.attachments.note.isVisible()

    llm_server.script(Reply.say("A blue rectangle."))
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000) as done:
        type_and_enter(qtbot, chat, "What is this?")
    assert done.args == ["completed"]
    assert chat.attachments.items == [] and not chat.attachments.isVisible()

    body = llm_server.requests[0].body
    [(mime, data)] = _sent_images("openai", body)
    assert mime == "image/png" and len(data) == size
    decoded = QImage.fromData(data)
    assert (decoded.width(), decoded.height()) == (64, 40)
    user = body["messages"][-1]
    assert {"type": "text", "text": "What is this?"} in user["content"]

    # The transcript shows the question with the image's thumbnail, which opens full size.
    question = chat.transcript.messages()[0]
    assert question.role == "user" and question.shown_text() == "What is this?"
    [thumb] = _thumbnails(question)
    assert thumb.loaded and not thumb.icon().isNull()
    thumb.click()
    qtbot.waitUntil(lambda: thumb.viewer is not None and thumb.viewer.isVisible())
    assert isinstance(thumb.viewer, ImageViewer)
    assert (thumb.viewer.image.width(), thumb.viewer.image.height()) == (64, 40)
    thumb.viewer.close()

    # history.db keeps the handle, never the bytes.
    stored = _history_text(relavium_home)
    assert "media://sha256-" in stored
    assert base64.b64encode(data).decode()[:40] not in stored

    # Reopened from history, the thumbnail is loaded from the store in the session's scope.
    session = chat.session_id
    chat.new_session()
    chat.open_session(session)
    chat.transcript.build_all()
    [again] = _thumbnails(chat.transcript.messages()[0])
    qtbot.waitUntil(lambda: again.loaded, timeout=5_000)
    assert again.failed is None


def test_a_dropped_png_goes_to_anthropic_as_an_image_block(
    chat, qtbot, llm_server: ScriptedLLMServer, relavium_home: Path, tmp_path: Path
) -> None:
    _use_anthropic(relavium_home, llm_server)
    chat.refresh_models()
    chat.set_route("scripted-anthropic/claude-sonnet-4-5")
    shot = tmp_path / "error-dialog.png"
    shot.write_bytes(png(12, 7))
    _drop(chat.composer, [shot])
    qtbot.waitUntil(lambda: chat.attachments.items and chat.attachments.items[0].ready)
    assert chat.attachments.chips[0].title.text() == "error-dialog.png"

    llm_server.script(Reply.say("It is a small picture."))
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000) as done:
        type_and_enter(qtbot, chat, "Explain this screenshot")
    assert done.args == ["completed"]
    request = llm_server.requests[0]
    assert request.path.endswith("/v1/messages")
    assert _sent_images("anthropic", request.body) == [("image/png", png(12, 7))]
    [thumb] = _thumbnails(chat.transcript.messages()[0])
    assert thumb.loaded and thumb.name == "error-dialog.png"
    assert base64.b64encode(png(12, 7)).decode() not in _history_text(relavium_home)


def test_an_oversized_image_is_refused_with_its_size_and_the_limit(
    chat, qtbot, llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    big = tmp_path / "huge.png"
    big.write_bytes(png(4, 4) + b"\0" * (6 * 1024 * 1024))
    _drop(chat.composer, [big])
    qtbot.waitUntil(lambda: chat.attachments.items and chat.attachments.items[0].problem is not None)
    detail = chat.attachments.chips[0].detail.text()
    assert "6.0 MiB" in detail and "at most 5.0 MiB" in detail, detail
    assert chat.attachments.items[0].handle is None  # never stored

    type_and_enter(qtbot, chat, "Look at this")
    assert not chat.busy and llm_server.requests == []
    assert "huge.png cannot be sent" in chat.status.text() and "Remove it" in chat.status.text()
    assert chat.composer.toPlainText() == "Look at this"  # nothing the user wrote is lost

    chat.attachments.chips[0].remove_button.click()
    assert chat.attachments.items == []
    llm_server.script(Reply.say("No picture this time."))
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000):
        qtbot.keyClick(chat.composer, Qt.Key.Key_Return)
    assert llm_server.requests[0].body["messages"][-1]["content"] == "Look at this"


def test_a_text_only_model_is_named_before_sending(chat, qtbot, llm_server: ScriptedLLMServer,
                                                    tmp_path: Path) -> None:
    chat.set_route("scripted-openai/llama3.1:8b")
    shot = tmp_path / "shot.png"
    shot.write_bytes(png(5, 5))
    _drop(chat.composer, [shot])
    qtbot.waitUntil(lambda: chat.attachments.items and chat.attachments.items[0].ready)
    qtbot.waitUntil(chat.attachments.note.isVisible)
    assert "llama3.1:8b cannot take images" in chat.attachments.note.text()

    type_and_enter(qtbot, chat, "What is in it?")
    assert not chat.busy and llm_server.requests == []
    assert "cannot take images" in chat.status.text()

    chat.set_route("scripted-openai/gpt-4o-mini")  # a model that can see: the note goes
    assert not chat.attachments.note.isVisible()


def test_a_dropped_file_that_is_not_media_is_shown_refused(chat, qtbot, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("hello")
    _drop(chat.composer, [notes])
    qtbot.waitUntil(lambda: chat.attachments.items and chat.attachments.items[0].problem is not None)
    assert "only images" in chat.attachments.chips[0].detail.text()


def test_an_image_alone_is_sent_without_a_project_and_titles_the_chat(
    make_window, providers: None, qtbot, llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    assert window.context.project == ""  # no project: no tools, but the user's own images still go
    view = window.chat_view
    qtbot.waitUntil(lambda: view.backend is not None)
    view.set_route("scripted-openai/gpt-4o-mini")
    shot = tmp_path / "build-log.png"
    shot.write_bytes(png(6, 3))
    _drop(view.composer, [shot])
    qtbot.waitUntil(lambda: view.attachments.items and view.attachments.items[0].ready)
    llm_server.script(Reply.say("A build log."))
    with qtbot.waitSignal(view.turn_finished, timeout=15_000) as done:
        view.composer.setFocus()
        qtbot.keyClick(view.composer, Qt.Key.Key_Return)  # no words: Enter sends the image alone
    assert done.args == ["completed"]
    user = llm_server.requests[0].body["messages"][-1]
    assert [p["type"] for p in user["content"]] == ["image_url"]
    assert _sent_images("openai", llm_server.requests[0].body) == [("image/png", png(6, 3))]
    assert view.sessions.titles()[0] == "build-log.png"
    question = view.transcript.messages()[0]
    assert question.role == "user" and [t.name for t in _thumbnails(question)] == ["build-log.png"]


def test_the_composers_attach_button_picks_an_image_to_send(chat, qtbot, tmp_path: Path) -> None:
    """The paperclip opens a file dialog (Qt's own, offscreen); a picked image waits as a chip, as a drop does."""
    from relavium_desktop.ui.qt import QFileDialog

    shot = tmp_path / "picked.png"
    shot.write_bytes(png(8, 8))
    assert chat.attach_files_button.accessibleName() == "Attach a file or image"
    chat.attach_files_button.click()
    dialog = chat._file_dialog
    assert isinstance(dialog, QFileDialog) and dialog.isVisible()
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
    dialog.setDirectory(str(tmp_path))
    dialog.selectFile(str(shot))
    dialog.accept()
    qtbot.waitUntil(lambda: chat.attachments.items and chat.attachments.items[0].ready)
    assert chat.attachments.chips[0].title.text() == "picked.png"
