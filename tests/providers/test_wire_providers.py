"""Each provider's real streaming code against a local server speaking its wire format.

Real sockets on 127.0.0.1 (allow_local=True, said explicitly), real httpx,
real SSE: text streaming, a tool-call round trip with arguments split across
chunks, malformed tool-argument JSON, 401, 429 + Retry-After, a mid-stream
disconnect, and fallback from one provider to another.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from relavium_desktop.engine.llm import (
    ChatRequest,
    Message,
    ProviderError,
    ProviderErrorCode,
    StopEvent,
    TextDelta,
    ToolCallEvent,
    ToolCallPart,
    ToolResultPart,
    ToolSpec,
    UsageEvent,
)
from relavium_desktop.providers.config import ProviderEntry, basic_validate_base_url, env_resolver
from relavium_desktop.providers.factory import make_provider
from relavium_desktop.providers.http_base import HttpProvider
from relavium_desktop.providers.wiring import host_validate_base_url
from tests.fixtures.llm_server import Reply, ScriptedLLMServer

KEY = "sk-test-PROVIDERKEY0123456789abcdef"
KINDS = ["anthropic", "openai", "gemini"]
READ_SPEC = ToolSpec("read_file", "Read a file.", {
    "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"],
    "additionalProperties": False})


def provider(server: ScriptedLLMServer, kind: str) -> HttpProvider:
    base = server.base_url + ("/v1" if kind == "openai" else "")
    entry = ProviderEntry(kind=kind, base_url=base, api_key="env:TEST_LLM_KEY", allow_local=True)
    return make_provider(kind, entry, resolve_secret=env_resolver({"TEST_LLM_KEY": KEY}),
                         validate_base_url=basic_validate_base_url)


async def collect(p: HttpProvider, request: ChatRequest) -> list[Any]:
    return [ev async for ev in p.stream(request)]


def req(*messages: Message, tools: tuple[ToolSpec, ...] = ()) -> ChatRequest:
    return ChatRequest(model="gpt-4o-mini", messages=list(messages) or [Message.user("hi")],
                       system="Be brief.", tools=tools)


@pytest.mark.parametrize("kind", KINDS)
async def test_text_streams_in_deltas_with_usage(llm_server: ScriptedLLMServer, kind: str) -> None:
    llm_server.script(Reply.say("Hello from the scripted model", usage=(21, 9)))
    events = await collect(provider(llm_server, kind), req())
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert len(deltas) >= 3 and "".join(deltas) == "Hello from the scripted model"
    usage = [e for e in events if isinstance(e, UsageEvent)]
    assert sum(u.input_tokens for u in usage) == 21 and sum(u.output_tokens for u in usage) == 9
    assert [e.reason for e in events if isinstance(e, StopEvent)] == ["end_turn"]
    sent = llm_server.requests[0]
    assert sent.dialect == kind
    # The key travels in the provider's own auth header and nowhere in the body.
    assert KEY not in json.dumps(sent.body)
    header = {"anthropic": "x-api-key", "openai": "authorization", "gemini": "x-goog-api-key"}[kind]
    assert KEY in sent.headers[header]


@pytest.mark.parametrize("kind", KINDS)
async def test_tool_call_round_trip(llm_server: ScriptedLLMServer, kind: str) -> None:
    llm_server.script(Reply.call("read_file", {"path": "notes/todo.txt"}), Reply.say("It says: buy milk."))
    p = provider(llm_server, kind)
    first = await collect(p, req(tools=(READ_SPEC,)))
    calls = [e for e in first if isinstance(e, ToolCallEvent)]
    assert [(c.name, c.args, c.args_error) for c in calls] == [("read_file", {"path": "notes/todo.txt"}, None)]
    assert [e.reason for e in first if isinstance(e, StopEvent)] == ["tool_use"]
    history = [
        Message.user("what is in my todo?"),
        Message("assistant", (ToolCallPart(calls[0].call_id, "read_file", calls[0].args),)),
        Message("tool", (ToolResultPart(calls[0].call_id, "read_file", "buy milk"),)),
    ]
    second = await collect(p, req(*history, tools=(READ_SPEC,)))
    assert "".join(e.text for e in second if isinstance(e, TextDelta)) == "It says: buy milk."
    wire = json.dumps(llm_server.requests[1].body)
    # The result went back in that provider's tool-result position, tied to the call.
    assert "buy milk" in wire and "notes/todo.txt" in wire
    if kind == "anthropic":
        assert llm_server.requests[1].body["messages"][-1]["content"][0]["type"] == "tool_result"
        assert llm_server.requests[0].body["tools"][0]["input_schema"]["required"] == ["path"]
    elif kind == "openai":
        assert llm_server.requests[1].body["messages"][-1]["role"] == "tool"
        assert llm_server.requests[1].body["messages"][-1]["tool_call_id"] == calls[0].call_id
    else:
        assert "functionResponse" in llm_server.requests[1].body["contents"][-1]["parts"][0]
        # Gemini rejects additionalProperties: it is stripped from declarations.
        assert "additionalProperties" not in json.dumps(llm_server.requests[0].body["tools"])


@pytest.mark.parametrize("kind", KINDS)
async def test_malformed_tool_arguments_are_reported_not_raised(llm_server: ScriptedLLMServer, kind: str) -> None:
    llm_server.script(Reply.call_raw("read_file", '{"path": "a.txt", '))
    events = await collect(provider(llm_server, kind), req(tools=(READ_SPEC,)))
    calls = [e for e in events if isinstance(e, ToolCallEvent)]
    assert len(calls) == 1 and calls[0].name == "read_file" and calls[0].args == {}
    assert calls[0].args_error and ("JSON" in calls[0].args_error or "object" in calls[0].args_error)


@pytest.mark.parametrize("kind", KINDS)
async def test_401_is_provider_auth_without_the_key(llm_server: ScriptedLLMServer, kind: str) -> None:
    llm_server.script(Reply.error(401))
    with pytest.raises(ProviderError) as info:
        await collect(provider(llm_server, kind), req())
    assert info.value.code is ProviderErrorCode.AUTH and not info.value.retryable
    assert "401" in info.value.message and KEY not in info.value.message


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("status", [402, 403])
async def test_402_and_403_are_provider_auth(llm_server: ScriptedLLMServer, kind: str, status: int) -> None:
    llm_server.script(Reply.error(status))
    with pytest.raises(ProviderError) as info:
        await collect(provider(llm_server, kind), req())
    assert info.value.code is ProviderErrorCode.AUTH


@pytest.mark.parametrize("kind", KINDS)
async def test_429_honours_retry_after(llm_server: ScriptedLLMServer, kind: str) -> None:
    llm_server.script(Reply.error(429, retry_after="7"))
    with pytest.raises(ProviderError) as info:
        await collect(provider(llm_server, kind), req())
    assert info.value.code is ProviderErrorCode.RATE_LIMIT and info.value.retryable
    assert info.value.retry_after == 7.0


@pytest.mark.parametrize("kind", KINDS)
async def test_5xx_is_unavailable(llm_server: ScriptedLLMServer, kind: str) -> None:
    llm_server.script(Reply.error(503))
    with pytest.raises(ProviderError) as info:
        await collect(provider(llm_server, kind), req())
    assert info.value.code is ProviderErrorCode.UNAVAILABLE and info.value.retryable


@pytest.mark.parametrize("kind", KINDS)
async def test_mid_stream_disconnect_is_unavailable(llm_server: ScriptedLLMServer, kind: str) -> None:
    llm_server.script(Reply.disconnect())
    seen: list[Any] = []
    with pytest.raises(ProviderError) as info:
        async for ev in provider(llm_server, kind).stream(req()):
            seen.append(ev)
    assert info.value.code is ProviderErrorCode.UNAVAILABLE and info.value.retryable
    assert not any(isinstance(e, StopEvent) for e in seen)


@pytest.mark.parametrize("kind", KINDS)
async def test_content_filter_stop(llm_server: ScriptedLLMServer, kind: str) -> None:
    from tests.fixtures.llm_server import Reply as R

    llm_server.script(R(text="I can't", content_filter=True))
    events = await collect(provider(llm_server, kind), req())
    assert [e.reason for e in events if isinstance(e, StopEvent)] == ["content_filter"]


async def test_connection_refused_is_unavailable() -> None:
    entry = ProviderEntry(kind="openai", base_url="http://127.0.0.1:9/v1", allow_local=True)
    p = make_provider("local", entry, resolve_secret=env_resolver({}), validate_base_url=basic_validate_base_url)
    with pytest.raises(ProviderError) as info:
        await collect(p, req())
    assert info.value.code is ProviderErrorCode.UNAVAILABLE


@pytest.mark.parametrize("validate", [basic_validate_base_url, host_validate_base_url])
async def test_keyless_local_server_needs_allow_local(validate) -> None:
    entry = ProviderEntry(kind="openai", base_url="http://127.0.0.1:11434/v1")
    p = make_provider("ollama", entry, resolve_secret=env_resolver({}), validate_base_url=validate)
    with pytest.raises(ProviderError, match="allow_local") as info:
        await collect(p, req())
    assert info.value.code is ProviderErrorCode.VALIDATION


async def test_the_host_gate_refuses_a_blocked_address_with_the_entry_opt_in_named() -> None:
    entry = ProviderEntry(kind="openai", base_url="https://127.0.0.1:11434/v1")
    p = make_provider("lan", entry, resolve_secret=env_resolver({}), validate_base_url=host_validate_base_url)
    with pytest.raises(ProviderError, match="address is blocked") as info:
        await collect(p, req())
    assert info.value.code is ProviderErrorCode.VALIDATION and "allow_local: true" in info.value.message
    # The opt-in admits it: the gate passes and the (closed) port is what fails.
    local = ProviderEntry(kind="openai", base_url="http://127.0.0.1:9/v1", allow_local=True)
    p = make_provider("local", local, resolve_secret=env_resolver({}), validate_base_url=host_validate_base_url)
    with pytest.raises(ProviderError) as info:
        await collect(p, req())
    assert info.value.code is ProviderErrorCode.UNAVAILABLE


async def test_the_validator_is_awaited_once_with_the_entry_opt_in(llm_server: ScriptedLLMServer) -> None:
    from tests.fixtures.llm_server import Reply as R

    seen: list[tuple[str, bool]] = []

    async def gate(url: str, local: bool) -> None:
        seen.append((url, local))

    entry = ProviderEntry(kind="openai", base_url=llm_server.base_url + "/v1", api_key="env:K", allow_local=True)
    p = make_provider("a", entry, resolve_secret=env_resolver({"K": KEY}), validate_base_url=gate)
    assert seen == []  # the gate resolves DNS: it runs before the first connection, not in the constructor
    llm_server.script(R(text="one"), R(text="two"))
    await collect(p, req())
    await collect(p, req())
    assert seen == [(llm_server.base_url + "/v1", True)]


@pytest.mark.parametrize("ref", [KEY, "secret", "keyring:X"])
def test_a_raw_key_is_never_accepted_as_a_reference(ref: str) -> None:
    from relavium_desktop.providers.config import ProviderConfigError, chain_resolvers

    resolve = chain_resolvers({"env": env_resolver({"X": "v"})})
    with pytest.raises(ProviderConfigError) as info:
        resolve(ref)
    assert KEY not in str(info.value)


def test_base_url_with_userinfo_is_refused() -> None:
    from relavium_desktop.providers.config import ProviderConfigError

    with pytest.raises(ProviderConfigError, match="credentials"):
        basic_validate_base_url("https://user:pw@api.example.com", False)
