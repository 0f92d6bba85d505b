"""How each provider reads the harder parts of its wire format, against the scripted local server.

Real sockets on 127.0.0.1, real httpx, real SSE (tests/fixtures/llm_server.py):
usage as each format totals it (Anthropic's cumulative ``message_delta``,
OpenAI's final usage chunk, Gemini's ``usageMetadata``, cache tokens), a
complete JSON reply to a streaming request, an error event in the middle of
a stream, a cut stream that keeps its text, the server's own message in an
error, an auth failure sent as a 400, and a key pasted with a newline.
"""

from __future__ import annotations

import json
import socket
from typing import Any

import pytest

from relavium_desktop.engine.llm import (
    Message,
    ProviderError,
    ProviderErrorCode,
    StopEvent,
    StreamCutError,
    TextDelta,
    ToolCallEvent,
    ToolCallPart,
    UsageEvent,
)
from relavium_desktop.providers.config import ProviderEntry, basic_validate_base_url, env_resolver
from relavium_desktop.providers.factory import make_provider
from relavium_desktop.providers.http_base import HttpProvider
from relavium_desktop.providers.openai_compat import to_wire_messages
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.providers.test_wire_providers import KEY, KINDS, READ_SPEC, collect, provider, req


def _usage(events: list[Any]) -> UsageEvent:
    usage = [e for e in events if isinstance(e, UsageEvent)]
    assert len(usage) == 1, usage  # one total per reply: never summed twice
    return usage[0]


async def _fails(p: HttpProvider) -> tuple[ProviderError, list[Any]]:
    seen: list[Any] = []
    with pytest.raises(ProviderError) as info:
        async for ev in p.stream(req()):
            seen.append(ev)
    return info.value, seen


async def test_anthropic_cumulative_usage_in_message_delta_wins_over_message_start(
    llm_server: ScriptedLLMServer,
) -> None:
    # LiteLLM and other Anthropic-format servers send input_tokens: 0 in message_start.
    llm_server.script(Reply(text="Counted right", usage=(321, 45), cumulative_usage=True))
    usage = _usage(await collect(provider(llm_server, "anthropic"), req()))
    assert (usage.input_tokens, usage.output_tokens) == (321, 45)


@pytest.mark.parametrize("kind", KINDS)
async def test_cache_tokens_are_counted_inside_the_input(llm_server: ScriptedLLMServer, kind: str) -> None:
    write = 100 if kind == "anthropic" else 0  # only Anthropic reports cache writes
    llm_server.script(Reply(text="cached", usage=(1_000, 20), cache=(600, write)))
    usage = _usage(await collect(provider(llm_server, kind), req()))
    assert usage.input_tokens == 1_000 and usage.output_tokens == 20
    assert usage.cache_read_tokens == 600 and usage.cache_write_tokens == write


async def test_openai_asks_for_the_final_usage_chunk(llm_server: ScriptedLLMServer) -> None:
    llm_server.script(Reply.say("hi", usage=(9, 3)))
    usage = _usage(await collect(provider(llm_server, "openai"), req()))
    assert (usage.input_tokens, usage.output_tokens) == (9, 3)
    assert llm_server.requests[0].body["stream_options"] == {"include_usage": True}


@pytest.mark.parametrize("kind", KINDS)
async def test_a_complete_json_reply_to_a_streaming_request_is_accepted(
    llm_server: ScriptedLLMServer, kind: str
) -> None:
    llm_server.script(Reply(text="Whole answer at once", usage=(30, 5), json_reply=True),
                      Reply(calls=Reply.call("read_file", {"path": "a.txt"}).calls, json_reply=True))
    p = provider(llm_server, kind)
    events = await collect(p, req())
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Whole answer at once"
    usage = _usage(events)
    assert (usage.input_tokens, usage.output_tokens) == (30, 5)
    assert [e.reason for e in events if isinstance(e, StopEvent)] == ["end_turn"]
    calls = [e for e in await collect(p, req(tools=(READ_SPEC,))) if isinstance(e, ToolCallEvent)]
    assert [(c.name, c.args) for c in calls] == [("read_file", {"path": "a.txt"})]


@pytest.mark.parametrize("kind", KINDS)
async def test_an_error_event_mid_stream_surfaces_with_its_message(llm_server: ScriptedLLMServer, kind: str) -> None:
    llm_server.script(Reply.broken("Half an answer, then"))
    error, seen = await _fails(provider(llm_server, kind))
    assert "mid-stream" in error.message  # the server's own words
    if kind == "anthropic":
        assert error.status == 529  # overloaded_error: the status it stands for
    assert "cut off" in error.message
    assert error.code is ProviderErrorCode.UNAVAILABLE
    shown = "".join(e.text for e in seen if isinstance(e, TextDelta))
    assert shown and error.partial_text == shown
    assert not any(isinstance(e, StopEvent) for e in seen)


@pytest.mark.parametrize("kind", KINDS)
async def test_a_stream_cut_midway_is_its_own_error_and_keeps_the_text(
    llm_server: ScriptedLLMServer, kind: str
) -> None:
    llm_server.script(Reply.disconnect("The first words of an answer that never"))
    error, seen = await _fails(provider(llm_server, kind))
    assert isinstance(error, StreamCutError)
    assert error.code is ProviderErrorCode.UNAVAILABLE and not error.transient
    shown = "".join(e.text for e in seen if isinstance(e, TextDelta))
    assert error.partial_text == shown
    if shown:
        assert "the answer was cut off" in error.message
    assert "unreachable" not in error.message.lower() and not error.unreached


@pytest.mark.parametrize("kind", KINDS)
async def test_an_error_status_carries_the_servers_own_message_bounded_and_masked(
    llm_server: ScriptedLLMServer, kind: str
) -> None:
    said = "Invalid model name passed in model=nope. " + "x" * 600 + f" key={KEY}"
    llm_server.script(Reply.error(400, message=said))
    error, _ = await _fails(provider(llm_server, kind))
    assert error.code is ProviderErrorCode.VALIDATION
    assert error.message.startswith(f"{provider(llm_server, kind).name}: HTTP 400: the provider rejected the request")
    assert "The server said: Invalid model name passed in model=nope." in error.message
    assert KEY not in error.message and KEY[:12] not in error.message
    assert len(error.message) < 450


@pytest.mark.parametrize("kind", KINDS)
async def test_a_400_that_says_the_key_is_invalid_is_auth(llm_server: ScriptedLLMServer, kind: str) -> None:
    llm_server.script(Reply.error(400, message="API key not valid. Please pass a valid API key."))
    error, _ = await _fails(provider(llm_server, kind))
    assert error.code is ProviderErrorCode.AUTH
    assert "API key not valid" in error.message


@pytest.mark.parametrize(("status", "words"), [
    (500, "the server failed"), (502, "the server is unavailable"), (529, "the server is overloaded")])
async def test_server_failures_say_what_failed_and_are_transient(
    llm_server: ScriptedLLMServer, status: int, words: str
) -> None:
    llm_server.script(Reply.error(status))
    error, _ = await _fails(provider(llm_server, "openai"))
    assert f"HTTP {status}: {words}" in error.message
    assert error.transient and not error.unreached


@pytest.mark.parametrize(("header", "value", "expected"), [
    ("Retry-After", "3", 3.0),
    ("llm_provider-retry-after", "4", 4.0),
    ("retry-after-ms", "1500", 1.5),
])
async def test_retry_after_in_each_form(
    llm_server: ScriptedLLMServer, header: str, value: str, expected: float
) -> None:
    llm_server.script(Reply.error(429, retry_after=value, header=header))
    error, _ = await _fails(provider(llm_server, "anthropic"))
    assert error.code is ProviderErrorCode.RATE_LIMIT and error.retry_after == expected and error.transient


async def test_retry_after_as_an_http_date(llm_server: ScriptedLLMServer) -> None:
    import email.utils
    import time

    when = email.utils.formatdate(time.time() + 30, usegmt=True)
    llm_server.script(Reply.error(429, retry_after=when))
    error, _ = await _fails(provider(llm_server, "gemini"))
    assert error.retry_after is not None and 25 <= error.retry_after <= 31


async def test_a_slow_model_is_a_timeout_not_unreachable(llm_server: ScriptedLLMServer) -> None:
    llm_server.script(Reply.stall("thinking"))
    entry = ProviderEntry(kind="openai", base_url=llm_server.base_url + "/v1", api_key="env:K", allow_local=True,
                          timeout_s=1.0)
    p = make_provider("slow", entry, resolve_secret=env_resolver({"K": KEY}),
                      validate_base_url=basic_validate_base_url)
    error, _ = await _fails(p)
    assert isinstance(error, StreamCutError) and "no more text came within 1 s" in error.message
    assert not error.unreached


async def test_nothing_listening_is_the_only_unreached(llm_server: ScriptedLLMServer) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    entry = ProviderEntry(kind="openai", base_url=f"http://127.0.0.1:{port}/v1", allow_local=True)
    p = make_provider("gone", entry, resolve_secret=env_resolver({}), validate_base_url=basic_validate_base_url)
    error, _ = await _fails(p)
    assert error.unreached and not error.transient


@pytest.mark.parametrize("kind", KINDS)
async def test_a_key_with_a_trailing_newline_is_sent_without_it(llm_server: ScriptedLLMServer, kind: str) -> None:
    # Keys pasted from a file or a terminal often end in a newline: the whitespace around a key is never part of it.
    base = llm_server.base_url + ("/v1" if kind == "openai" else "")
    entry = ProviderEntry(kind=kind, base_url=base, api_key="env:K", allow_local=True)
    p = make_provider(kind, entry, resolve_secret=env_resolver({"K": KEY + "\n"}),
                      validate_base_url=basic_validate_base_url)
    llm_server.script(Reply.say("fine"))
    await collect(p, req())
    header = {"anthropic": "x-api-key", "openai": "authorization", "gemini": "x-goog-api-key"}[kind]
    assert llm_server.requests[0].headers[header].endswith(KEY)


async def test_a_key_with_a_line_break_inside_says_so(llm_server: ScriptedLLMServer) -> None:
    entry = ProviderEntry(kind="openai", base_url=llm_server.base_url + "/v1", api_key="env:K", allow_local=True)
    p = make_provider("x", entry, resolve_secret=env_resolver({"K": KEY[:10] + "\n" + KEY[10:]}),
                      validate_base_url=basic_validate_base_url)
    error, _ = await _fails(p)
    assert error.code is ProviderErrorCode.AUTH and "contains a line break" in error.message
    assert KEY[:10] not in error.message and llm_server.requests == []


def test_an_empty_assistant_answer_is_never_sent_back_without_content() -> None:
    history = [Message.user("hi"), Message("assistant", ()), Message.user("again"),
               Message("assistant", (ToolCallPart("c1", "read_file", {"path": "a"}),))]
    wire = to_wire_messages(None, history)
    assistants = [m for m in wire if m["role"] == "assistant"]
    assert len(assistants) == 1 and assistants[0]["tool_calls"]
    assert all(m.get("content") is not None or m.get("tool_calls") for m in wire)
    assert json.dumps(wire).count('"content": null') == 1  # only beside tool_calls


async def test_a_model_that_never_answers_is_a_timeout_naming_the_limit() -> None:
    # A real listening socket that accepts the request and never answers: the server was reached.
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        port = listener.getsockname()[1]
        entry = ProviderEntry(kind="anthropic", base_url=f"http://127.0.0.1:{port}", api_key="env:K",
                              allow_local=True, timeout_s=1.0)
        p = make_provider("silent", entry, resolve_secret=env_resolver({"K": KEY}),
                          validate_base_url=basic_validate_base_url)
        error, _ = await _fails(p)
    assert error.code is ProviderErrorCode.UNAVAILABLE and not error.unreached and not error.transient
    assert "the model did not answer within 1 s" in error.message


@pytest.mark.parametrize("kind", KINDS)
async def test_a_connection_reset_before_the_answer_is_retried_by_the_turn(
    llm_server: ScriptedLLMServer, kind: str
) -> None:
    from relavium_desktop.engine.agent.routing import stream_turn
    from relavium_desktop.engine.agent.spec import AgentSpec

    llm_server.script(Reply(drop=True), Reply.say("after the reset"))
    p = provider(llm_server, kind)
    spec = AgentSpec.model_validate({"id": "a", "provider": kind, "model": "m"})
    waits: list[float] = []
    events: list[Any] = []

    async def record(seconds: float) -> None:
        waits.append(seconds)

    turn = await stream_turn(spec, lambda name: p, [Message.user("hi")], [], emit=events.append, node_id="n",
                             sleep=record)
    assert turn.message.text == "after the reset" and len(llm_server.requests) == 2
    assert len(waits) == 1 and 0.5 <= waits[0] <= 1.0
    retrying = [e for e in events if type(e).__name__ == "AgentRetrying"]
    assert retrying[0].message.startswith("the connection was reset, retrying in")
