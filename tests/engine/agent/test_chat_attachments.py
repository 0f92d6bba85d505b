"""A user's own attachments in a chat turn: admitted to the chat's scope, sent in each wire form, stored as handles.

Real parts: the media store on disk (published through ``services.media_host``
as the composer does), the scripted LLM server recording the request
bodies, and the real history.db.
"""

from __future__ import annotations

import base64
import sqlite3
from pathlib import Path

import pytest

from relavium_desktop.application.providers import media_host
from relavium_desktop.application.stores import session_store
from relavium_desktop.application.tools import tool_registry
from relavium_desktop.engine.agent.chat import ChatSession, attachment_problem, cannot_take, chat_media_scope
from relavium_desktop.engine.agent.mode_ids import ChatMode
from relavium_desktop.engine.agent.modes import SessionApprovals
from relavium_desktop.engine.agent.spec import AgentSpec
from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.llm.messages import MediaPart
from relavium_desktop.store.sessions import SqliteSessionStore
from tests.engine.agent.conftest import Rig
from tests.engine.agent.test_media_loop import _image_in
from tests.fixtures.llm_server import Reply
from tests.host.media.pictures import pdf, png

SHOT = png(7, 5)
MODELS = {"anthropic": "claude-sonnet-4-5", "openai": "gpt-4o-mini", "gemini": "gemini-2.5-flash"}


@pytest.fixture
def store(relavium_home: Path) -> SqliteSessionStore:
    return session_store(relavium_home)


def _session(rig: Rig, store: SqliteSessionStore, provider: str = "openai", model: str = "gpt-4o-mini") -> ChatSession:
    spec = AgentSpec.model_validate({"id": "chat", "provider": provider, "model": model,
                                     "system_prompt": "You help.", "tools": []})
    info = store.create(title="t", agent_id="chat", mode="auto")
    # No project: the registry carries only the media store (ChatBackend.no_project_registry).
    registry = tool_registry(ToolHost(media=media_host(rig.home)), home=rig.home)
    return ChatSession(session_id=info.id, spec=spec, providers=rig.providers(), registry=registry,
                       store=store, approvals=SessionApprovals(ChatMode.AUTO, None), emit=rig.record)


def _attach(rig: Rig, data: bytes, mime: str, name: str) -> MediaPart:
    described = media_host(rig.home).publish_bytes(data, mime)
    return MediaPart(str(described["handle"]), str(described["mimeType"]), name)


@pytest.mark.parametrize("kind", ["anthropic", "openai", "gemini"])
async def test_an_attached_image_reaches_each_provider_in_its_wire_form(
    rig: Rig, store: SqliteSessionStore, kind: str
) -> None:
    rig.server.script(Reply.say("a tiny picture"))
    session = _session(rig, store, kind, MODELS[kind])
    part = _attach(rig, SHOT, "image/png", "shot.png")
    result = await session.send("what is this?", [part])
    assert result.status == "completed", result.failure
    assert _image_in(kind, rig.server.requests[0].body) == [("image/png", base64.b64encode(SHOT).decode())]
    [user] = [m for m in store.messages(session.session_id) if m.role == "user"]
    assert user.parts[0] == part and user.text == "what is this?"
    # The grant is the chat's: the transcript can load the thumbnail in this session's scope.
    blob = await media_host(rig.home).load(part.handle, chat_media_scope(session.session_id))
    assert blob.data == SHOT
    conn = sqlite3.connect(rig.home / "history.db")
    stored = "\n".join(r[0] for r in conn.execute("SELECT parts_json FROM chat_messages"))
    conn.close()
    assert part.handle in stored and base64.b64encode(SHOT).decode() not in stored


async def test_a_text_only_model_refuses_the_send_before_anything_is_stored(
    rig: Rig, store: SqliteSessionStore
) -> None:
    session = _session(rig, store, "openai", "llama3.1:8b")
    with pytest.raises(ValueError, match=r"llama3\.1:8b cannot take images"):
        await session.send("look", [_attach(rig, SHOT, "image/png", "shot.png")])
    assert store.messages(session.session_id) == [] and rig.server.requests == []


async def test_pdf_goes_to_anthropic_but_not_to_an_openai_model(rig: Rig, store: SqliteSessionStore) -> None:
    doc = pdf("invoice")
    rig.server.script(Reply.say("an invoice"))
    result = await _session(rig, store, "anthropic", "claude-sonnet-4-5").send(
        "summarise", [_attach(rig, doc, "application/pdf", "invoice.pdf")])
    assert result.status == "completed"
    assert _image_in("anthropic", rig.server.requests[0].body) == [
        ("application/pdf", base64.b64encode(doc).decode())]
    with pytest.raises(ValueError, match="cannot take PDF documents"):
        await _session(rig, store).send("summarise", [_attach(rig, doc, "application/pdf", "invoice.pdf")])


async def test_a_handle_this_process_never_published_is_refused(rig: Rig, store: SqliteSessionStore) -> None:
    session = _session(rig, store)
    forged = MediaPart("media://sha256-" + "ab" * 32, "image/png", "guess.png")
    with pytest.raises(ValueError, match=r"guess\.png was not added"):
        await session.send("look", [forged])
    assert rig.server.requests == []


def test_the_limits_name_the_size_and_the_limit() -> None:
    assert attachment_problem("image/png", 5 * 1024 * 1024) is None
    too_big = attachment_problem("image/png", 6 * 1024 * 1024)
    assert too_big is not None and "6.0 MiB" in too_big and "at most 5.0 MiB" in too_big
    pdf_big = attachment_problem("application/pdf", 11 * 1024 * 1024)
    assert pdf_big is not None and "at most 10.0 MiB" in pdf_big
    assert "only images" in (attachment_problem("video/mp4", 10) or "")
    assert cannot_take("m", {"image"}, frozenset({"image", "pdf"})) is None
    assert "m cannot take images or PDF documents" in (cannot_take("m", {"image", "pdf"}, frozenset()) or "")
