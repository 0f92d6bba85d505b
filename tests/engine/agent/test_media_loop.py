"""read_file → read_media → the image in the next request, in each provider's real wire form.

Real parts end to end: the scripted LLM server speaking each provider's
dialect records the request bodies, the real host assembly publishes the
PNG to the media store on disk, and the stored history goes through the
real SQLite session store.  What must never happen is asserted too: the
base64 of the image in an event or in history.db.
"""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from relavium_desktop.engine.agent.loop import AgentLoop
from relavium_desktop.engine.llm.messages import MediaPart, Message, NoticePart
from relavium_desktop.store.db import history_db_path, open_db
from relavium_desktop.store.sessions import SqliteSessionStore
from tests.engine.agent.conftest import Rig
from tests.fixtures.llm_server import Reply
from tests.host.media.pictures import pdf, png

SHOT = png(9, 4)
SHOT_B64 = base64.b64encode(SHOT).decode()
HANDLE = "media://sha256-" + hashlib.sha256(SHOT).hexdigest()
TOOLS = ["read_file", "read_media"]
MODELS = {"anthropic": "claude-sonnet-4-5", "openai": "gpt-4o-mini", "gemini": "gemini-2.5-flash"}


def _loop(rig: Rig, provider: str, model: str) -> AgentLoop:
    return rig.loop(tools=TOOLS, chat=True, provider=provider, model=model)


def _image_in(kind: str, body: dict[str, Any]) -> list[tuple[str, str]]:
    """(mime type, base64) of every image/document the request body carries, in wire form."""
    found: list[tuple[str, str]] = []
    if kind == "anthropic":
        for m in body["messages"]:
            for block in m["content"] if isinstance(m["content"], list) else []:
                if block.get("type") in ("image", "document"):
                    assert block["source"]["type"] == "base64"
                    found.append((block["source"]["media_type"], block["source"]["data"]))
    elif kind == "openai":
        for m in body["messages"]:
            for part in m["content"] if isinstance(m.get("content"), list) else []:
                if part.get("type") == "image_url":
                    head, data = part["image_url"]["url"].split(",", 1)
                    assert head.startswith("data:") and head.endswith(";base64")
                    found.append((head[5:-7], data))
    else:
        for c in body["contents"]:
            for part in c["parts"]:
                if "inline_data" in part:
                    found.append((part["inline_data"]["mime_type"], part["inline_data"]["data"]))
    return found


@pytest.mark.parametrize("kind", ["anthropic", "openai", "gemini"])
async def test_the_next_request_carries_the_image_in_the_providers_wire_form(
    rig: Rig, kind: str, relavium_home: Path
) -> None:
    (rig.workspace / "shot.png").write_bytes(SHOT)
    rig.server.script(
        Reply.call("read_file", {"path": "shot.png"}),
        Reply.call("read_media", {"handle": HANDLE}),
        Reply.say("The screenshot shows a disk-full dialog."),
    )
    sessions = SqliteSessionStore(open_db(history_db_path(relavium_home)))
    sid = sessions.create(title="shot", agent_id="tester", mode="chat").id
    loop = _loop(rig, kind, MODELS[kind])
    loop.on_message = lambda m: sessions.append_message(sid, m)
    history = [Message.user("what is in shot.png?")]
    sessions.append_message(sid, history[0])

    result = await loop.run(history)
    assert result.status == "completed", result.failure
    reqs = rig.server.requests
    assert len(reqs) == 3
    # The handle reached the model through read_file's result; no image rode along yet.
    assert HANDLE in json.dumps(reqs[1].body) and _image_in(kind, reqs[1].body) == []
    assert _image_in(kind, reqs[2].body) == [("image/png", SHOT_B64)]

    # The synthesised message follows the final tool result and says the app wrote it.
    synthesized = history[-2]
    assert synthesized.role == "user" and history[-3].role == "tool"
    assert isinstance(synthesized.parts[0], NoticePart) and "not written by the user" in synthesized.parts[0].text
    assert synthesized.parts[1:] == (MediaPart(HANDLE, "image/png"),)
    assert synthesized.text == ""  # the transcript shows no user words for it

    # Events and stored history carry the handle, never the bytes.
    wire_events = json.dumps(rig.events)
    assert HANDLE in wire_events and SHOT_B64[:40] not in wire_events
    stored = sessions.messages(sid)
    assert [type(p) for p in stored[-2].parts] == [NoticePart, MediaPart]
    db_bytes = b"".join(p.read_bytes() for p in relavium_home.glob("history.db*"))
    assert HANDLE.encode() in db_bytes and SHOT_B64[:40].encode() not in db_bytes


async def test_a_pdf_is_never_inlined_by_read_media_even_for_a_model_that_reads_documents(rig: Rig) -> None:
    doc = pdf("quarterly numbers")
    (rig.workspace / "report.pdf").write_bytes(doc)
    handle = "media://sha256-" + hashlib.sha256(doc).hexdigest()
    rig.server.script(Reply.call("read_file", {"path": "report.pdf"}), Reply.call("read_media", {"handle": handle}),
                      Reply.say("ok"))
    result = await _loop(rig, "anthropic", MODELS["anthropic"]).run([Message.user("read report.pdf")])
    assert result.status == "completed", result.failure
    last = rig.server.requests[2].body
    assert [b for b in last["messages"][-1]["content"] if b["type"] == "document"] == []
    text = _last_tool_result("anthropic", last)
    assert "invalid_args" in text and "a PDF is never inlined" in text
    assert base64.b64encode(doc).decode()[:40] not in json.dumps(last)


async def test_a_text_only_model_refuses_the_turn(rig: Rig) -> None:
    (rig.workspace / "shot.png").write_bytes(SHOT)
    rig.server.script(Reply.call("read_file", {"path": "shot.png"}), Reply.call("read_media", {"handle": HANDLE}),
                      Reply.say("never asked"))
    result = await _loop(rig, "openai", "llama3.1:8b").run([Message.user("look at shot.png")])
    assert result.status == "failed" and result.failure is not None
    assert result.failure.code == "tool_unavailable"
    assert "llama3.1:8b does not accept image" in result.failure.message
    assert len(rig.server.requests) == 2  # never handed a descriptor of an image it did not receive


def _refused_then(rig: Rig, name: str, data: bytes, provider: str, model: str) -> tuple[AgentLoop, str]:
    (rig.workspace / name).write_bytes(data)
    handle = "media://sha256-" + hashlib.sha256(data).hexdigest()
    rig.server.script(Reply.call("read_file", {"path": name}), Reply.call("read_media", {"handle": handle}),
                      Reply.say("understood"))
    return _loop(rig, provider, model), handle


def _last_tool_result(kind: str, body: dict[str, Any]) -> str:
    if kind == "openai":
        return str([m for m in body["messages"] if m["role"] == "tool"][-1]["content"])
    return json.dumps(body["messages"][-1]["content"])


@pytest.mark.parametrize(("name", "data", "provider", "needle"), [
    ("clip.mp4", b"\x00\x00\x00\x18ftypmp42" + bytes(64), "anthropic", "a video"),
    ("report.pdf", pdf(), "openai", "a PDF document"),
    ("huge.png", png(2, 2) + bytes(5 * 1024 * 1024), "anthropic", "over the 5242880-byte limit"),
])
async def test_correctable_refusals_are_fed_back_and_nothing_is_attached(
    rig: Rig, name: str, data: bytes, provider: str, needle: str
) -> None:
    model = MODELS[provider] if provider != "openai" else "gpt-4o"
    loop, _ = _refused_then(rig, name, data, provider, model)
    result = await loop.run([Message.user(f"look at {name}")])
    assert result.status == "completed", result.failure
    last = rig.server.requests[2].body
    text = _last_tool_result(provider, last)
    assert "invalid_args" in text and needle in text
    assert _image_in(provider, last) == []


async def test_at_most_twelve_attachments_per_response(rig: Rig) -> None:
    (rig.workspace / "shot.png").write_bytes(SHOT)
    rig.server.script(Reply.call("read_file", {"path": "shot.png"}),
                      Reply.multi(*[("read_media", {"handle": HANDLE})] * 13),
                      Reply.say("ok"))
    result = await _loop(rig, "openai", "gpt-4o").run([Message.user("look hard")])
    assert result.status == "completed", result.failure
    body = rig.server.requests[2].body
    assert len(_image_in("openai", body)) == 12
    results = [m["content"] for m in body["messages"] if m["role"] == "tool"]
    assert "at most 12 media" in results[-1] and sum("attached" in r for r in results[-13:-1]) == 12
    # The one user message with the images comes after all thirteen tool results.
    assert body["messages"][-1]["role"] == "user" and body["messages"][-15]["role"] == "assistant"
    assert all(m["role"] == "tool" for m in body["messages"][-14:-1])


async def test_a_handle_from_another_scope_is_refused_and_fed_back(rig: Rig) -> None:
    rig.server.script(Reply.call("read_media", {"handle": HANDLE}), Reply.say("I cannot see it"))
    result = await _loop(rig, "openai", "gpt-4o").run([Message.user("look at " + HANDLE)])
    assert result.status == "completed", result.failure
    text = _last_tool_result("openai", rig.server.requests[1].body)
    assert "tool_denied" in text and "not produced or received in this chat" in text and HANDLE not in text
    assert rig.of_type("agent:tool_result")[-1]["error"]["reason"] == "media_scope_denied"


async def test_an_attachment_gone_from_the_store_becomes_a_placeholder_not_a_dead_chat(
    rig: Rig, relavium_home: Path
) -> None:
    from relavium_desktop.host.media import MediaStore, parse_handle

    (rig.workspace / "shot.png").write_bytes(SHOT)
    rig.server.script(Reply.call("read_file", {"path": "shot.png"}), Reply.call("read_media", {"handle": HANDLE}),
                      Reply.say("a dialog"), Reply.say("still here"))
    loop = _loop(rig, "gemini", MODELS["gemini"])
    history = [Message.user("what is in shot.png?")]
    assert (await loop.run(history)).status == "completed"
    assert MediaStore(relavium_home / "media").delete(parse_handle(HANDLE))  # e.g. `relavium media gc`
    history.append(Message.user("and now?"))
    result = await loop.run(history)
    assert result.status == "completed", result.failure
    body = rig.server.requests[3].body
    assert _image_in("gemini", body) == []
    assert f"attachment {HANDLE} (image/png) is not included" in json.dumps(body)


@pytest.mark.spawns  # starts the stdio MCP server fixture: kept out of the fast lane
async def test_an_image_from_a_real_mcp_server_can_be_looked_at_in_the_same_chat(rig: Rig) -> None:
    """MCP host (real SDK server over stdio) → media handle in the result → read_media → Anthropic image block."""
    import dataclasses

    from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS
    from relavium_desktop.engine.tools.mcp_tools import make_mcp_tool
    from relavium_desktop.engine.tools.registry import ToolRegistry
    from relavium_desktop.host.assembly import HostSettings, build_host, close_host
    from tests.fixtures.mcp_server import PNG as MCP_PNG
    from tests.host.mcp.conftest import make_host, stdio_entry

    handle = "media://sha256-" + hashlib.sha256(MCP_PNG).hexdigest()
    host = build_host(HostSettings(workspace=rig.workspace, home=rig.home, surface="chat"))
    host = dataclasses.replace(host, mcp=make_host(rig.home, {"fx": stdio_entry()}))
    image_tool = make_mcp_tool("fx", "image", "A small PNG image.", {"type": "object", "properties": {}})
    base = rig.loop(tools=[*TOOLS, image_tool.id], chat=True, provider="anthropic", model=MODELS["anthropic"])
    loop = dataclasses.replace(base, registry=ToolRegistry([*BUILTIN_TOOLS, image_tool], host))
    rig.server.script(Reply.call(image_tool.id, {}), Reply.call("read_media", {"handle": handle}), Reply.say("a logo"))
    try:
        result = await loop.run([Message.user("show me the server's image")])
    finally:
        await close_host(host)
    assert result.status == "completed", result.failure
    assert handle in json.dumps(rig.server.requests[1].body)
    assert _image_in("anthropic", rig.server.requests[2].body) == [
        ("image/png", base64.b64encode(MCP_PNG).decode())]
