"""Interop with a real third-party server: LiteLLM's proxy (1.108.7), mock models only.

The proxy runs from its own virtualenv on loopback (tests/fixtures/litellm_proxy.py;
config and hooks in tests/fixtures/litellm/).  Each case goes through the
project's real provider code, and the end-to-end ones through the real
``relavium`` CLI as a subprocess:

- a streamed answer whose usage is recorded as the server reported it (the
  same request sent raw, its usage read straight off the wire);
- a tool round trip (the hooks make the mock ask for ``read_file``);
- 401, 429 with ``Retry-After`` (the policy waits what the server asked), 500;
- a stream cut midway and an error event midway;
- ``providers test`` and ``providers models`` on a fresh home.

Kinds: ``openai`` (``/v1/chat/completions``) and ``anthropic`` (``/v1/messages``)
throughout; ``gemini`` (``/v1beta/models/M:streamGenerateContent``) for what
the proxy serves in that format (streaming, errors, cut, error event; it
lists no Gemini-format models).  LiteLLM answers the Anthropic route for a
mock model with one complete JSON document even when streaming was asked, so
for ``anthropic`` the "streamed" answer is that JSON reply, and a cut or an
error event midway cannot happen there (the project's own wire-format server
covers them for that kind).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from relavium_desktop.engine.agent.routing import stream_turn
from relavium_desktop.engine.agent.spec import AgentSpec
from relavium_desktop.engine.llm import (
    ChatRequest,
    Message,
    ProviderError,
    ProviderErrorCode,
    StreamCutError,
    TextDelta,
    UsageEvent,
)
from relavium_desktop.providers.config import ProviderEntry, basic_validate_base_url, env_resolver
from relavium_desktop.providers.factory import make_provider
from relavium_desktop.providers.http_base import HttpProvider
from tests.fixtures import litellm_proxy as proxy_fixtures
from tests.fixtures.litellm_proxy import LiteLLMProxy
from tests.helpers import run_cli

litellm_proxy_fixture = proxy_fixtures.litellm_proxy_fixture  # the session's proxy, as ``litellm_proxy``

# One worker runs the whole module (scripts/test: --dist loadgroup), so the proxy starts once.
pytestmark = pytest.mark.xdist_group("litellm")

KINDS = ["openai", "anthropic"]
STREAMING_KINDS = ["openai", "gemini"]  # where the proxy streams a mock model's answer
CHAT_TEXT = "Hello from the LiteLLM mock, streamed in pieces."


def base_of(proxy: LiteLLMProxy, kind: str) -> str:
    return proxy.base_url + ("/v1" if kind == "openai" else "")


def provider(proxy: LiteLLMProxy, kind: str, key: str | None = None) -> HttpProvider:
    entry = ProviderEntry(kind=kind, base_url=base_of(proxy, kind), api_key="env:LITELLM_KEY", allow_local=True)
    return make_provider(f"litellm-{kind}", entry, resolve_secret=env_resolver({"LITELLM_KEY": key or proxy.key}),
                         validate_base_url=basic_validate_base_url)


def req(model: str) -> ChatRequest:
    return ChatRequest(model=model, messages=[Message.user("Say hello.")], system="Be brief.")


async def collect(p: HttpProvider, request: ChatRequest) -> list[Any]:
    return [ev async for ev in p.stream(request)]


async def fails(p: HttpProvider, request: ChatRequest) -> tuple[ProviderError, str]:
    shown: list[str] = []
    with pytest.raises(ProviderError) as info:
        async for ev in p.stream(request):
            if isinstance(ev, TextDelta):
                shown.append(ev.text)
    return info.value, "".join(shown)


async def raw_usage(p: HttpProvider, request: ChatRequest, key: str, kind: str) -> tuple[int, int]:
    """The same request sent raw: the token counts exactly as the server reported them."""
    url, headers, body = p.build(request, key)
    async with httpx.AsyncClient(timeout=60) as client:
        response = await client.post(url, headers={"content-type": "application/json", **headers}, json=body)
    response.raise_for_status()
    if "text/event-stream" not in response.headers.get("content-type", ""):
        usage = response.json()["usage"]
        return usage["input_tokens"], usage["output_tokens"]
    last: dict[str, Any] = {}
    for line in response.text.splitlines():
        if line.startswith("data: ") and line != "data: [DONE]":
            data = json.loads(line[6:])
            if kind == "gemini" and data.get("usageMetadata"):
                last = {"in": data["usageMetadata"]["promptTokenCount"],
                        "out": data["usageMetadata"]["candidatesTokenCount"]}
            elif data.get("usage"):
                last = {"in": data["usage"]["prompt_tokens"], "out": data["usage"]["completion_tokens"]}
    return last["in"], last["out"]


@pytest.mark.parametrize("kind", [*KINDS, "gemini"])
async def test_an_answer_arrives_whole_with_the_usage_the_server_reported(
    litellm_proxy: LiteLLMProxy, kind: str
) -> None:
    p = provider(litellm_proxy, kind)
    events = await collect(p, req("mock-chat"))
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert "".join(deltas) == CHAT_TEXT
    if kind in STREAMING_KINDS:
        assert len(deltas) > 3  # it really streamed
    (usage,) = [e for e in events if isinstance(e, UsageEvent)]
    reported = await raw_usage(p, req("mock-chat"), litellm_proxy.key, kind)
    assert (usage.input_tokens, usage.output_tokens) == reported and reported[0] > 0 and reported[1] > 0


def _cli_env(cli_env: dict[str, str], home: Path, proxy: LiteLLMProxy) -> dict[str, str]:
    entries = {"providers": {
        f"litellm-{kind}": {"kind": kind, "base_url": base_of(proxy, kind), "api_key": "env:LITELLM_KEY",
                            "allow_local": True} for kind in KINDS}}
    (home / "providers.yaml").write_text(json.dumps(entries))
    return {**cli_env, "LITELLM_KEY": proxy.key, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}


@pytest.mark.parametrize("kind", KINDS)
def test_a_tool_round_trip_through_the_cli(
    litellm_proxy: LiteLLMProxy, kind: str, cli_env: dict[str, str], relavium_home: Path, tmp_path: Path
) -> None:
    env = _cli_env(cli_env, relavium_home, litellm_proxy)
    (tmp_path / "notes.txt").write_text("the tide turns at noon\n")
    agent = tmp_path / "a.agent.yaml"
    agent.write_text(f"id: a\nprovider: litellm-{kind}\nmodel: mock-tools\nsystem_prompt: Use tools.\n"
                     "tools: [read_file]\n")
    code, events, err = run_cli("agent", "run", str(agent), "--prompt", "What do my notes say?",
                                "--workspace", str(tmp_path), "--json", env=env)
    assert code == 0, err
    results = [e for e in events if e["type"] == "agent:tool_result"]
    assert [(r["toolId"], r["success"]) for r in results] == [("read_file", True)]
    assert events[-1]["type"] == "run:completed"
    # The hooks quote the tool result the model was sent back: the file's content reached the server.
    assert events[-1]["output"].startswith("The file says: ")
    assert "the tide turns at noon" in events[-1]["output"]
    costs = [e for e in events if e["type"] == "cost:updated"]
    assert len(costs) == 2 and all(c["inputTokens"] > 0 and c["outputTokens"] > 0 for c in costs)
    assert litellm_proxy.key not in json.dumps(events) + err


@pytest.mark.parametrize("kind", [*KINDS, "gemini"])
async def test_a_refused_key_is_auth_in_the_servers_words(litellm_proxy: LiteLLMProxy, kind: str) -> None:
    wrong = "sk-wrong-interop-key-0123456789"
    error, _ = await fails(provider(litellm_proxy, kind, key=wrong), req("mock-chat"))
    assert error.code is ProviderErrorCode.AUTH and error.status == 401
    assert "invalid proxy key passed" in error.message
    assert wrong not in error.message


@pytest.mark.parametrize("kind", [*KINDS, "gemini"])
async def test_a_429_carries_retry_after_and_the_policy_waits_it(litellm_proxy: LiteLLMProxy, kind: str) -> None:
    p = provider(litellm_proxy, kind)
    error, _ = await fails(p, req("mock-429"))
    assert error.code is ProviderErrorCode.RATE_LIMIT and error.retry_after == 1.0 and error.transient
    # Through the turn's retry policy: each wait is what the server asked (recorded, not slept).
    spec = AgentSpec.model_validate({"id": "a", "provider": "p", "model": "mock-429"})
    waits: list[float] = []
    events: list[Any] = []

    async def record(seconds: float) -> None:
        waits.append(seconds)

    with pytest.raises(ProviderError):
        await stream_turn(spec, lambda name: p, [Message.user("hi")], [], emit=events.append, node_id="n",
                          sleep=record)
    assert waits == [1.0, 1.0, 1.0]
    assert [e.message for e in events] == ["rate limited, retrying in 1 s"] * 3


@pytest.mark.parametrize("kind", [*KINDS, "gemini"])
async def test_a_500_is_the_server_failing_in_its_own_words(litellm_proxy: LiteLLMProxy, kind: str) -> None:
    error, _ = await fails(provider(litellm_proxy, kind), req("mock-500"))
    assert error.code is ProviderErrorCode.UNAVAILABLE and error.status == 500 and not error.unreached
    assert "HTTP 500: the server failed" in error.message
    assert "this is a mock internal server error" in error.message


@pytest.mark.parametrize("kind", STREAMING_KINDS)
async def test_a_stream_cut_midway_keeps_what_arrived(litellm_proxy: LiteLLMProxy, kind: str) -> None:
    error, shown = await fails(provider(litellm_proxy, kind), req("mock-cut"))
    assert isinstance(error, StreamCutError) and "the answer was cut off" in error.message
    assert shown and error.partial_text == shown
    assert "The first words of an answer".startswith(shown) or shown.startswith("The")


@pytest.mark.parametrize("kind", STREAMING_KINDS)
async def test_an_error_event_midway_surfaces_with_its_message(litellm_proxy: LiteLLMProxy, kind: str) -> None:
    error, shown = await fails(provider(litellm_proxy, kind), req("mock-error-event"))
    assert "interop: the upstream model failed mid-stream" in error.message
    assert "cut off" in error.message and error.partial_text == shown and shown


@pytest.mark.parametrize("kind", KINDS)
def test_providers_test_and_models_on_a_fresh_home(
    litellm_proxy: LiteLLMProxy, kind: str, cli_env: dict[str, str], relavium_home: Path
) -> None:
    env = {**cli_env, "LITELLM_KEY": litellm_proxy.key, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    code, _, err = run_cli("providers", "add", "gateway", "--kind", kind, "--base-url", base_of(litellm_proxy, kind),
                           "--api-key", "env:LITELLM_KEY", "--allow-local", "--json", env=env)
    assert code == 0, err
    code, tested, err = run_cli("providers", "test", "gateway", "--json", env=env)
    assert code == 0, err
    # Not a built-in default the gateway does not serve: the first model it lists.
    assert tested["ok"] and tested["model"] == "mock-chat"
    assert tested["message"] == "Connected: gateway answered a test request with model mock-chat."
    code, models, err = run_cli("providers", "models", "gateway", "--refresh", "--json", env=env)
    assert code == 0, err
    assert models["source"] == "live" and models["note"] is None
    assert [m["id"] for m in models["models"]][:3] == ["mock-chat", "mock-tools", "mock-429"]
