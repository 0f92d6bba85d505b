"""Live model lists against the scripted server's real list endpoints, through the host's wiring.

Real parts: the scripted server on 127.0.0.1 (each provider's list shape and
pagination), the host key resolver (``env:`` references), the host's base-URL
gate and SSRF-guarded client (``allow_local`` said explicitly), and the cache
file under ``$RELAVIUM_HOME``.  "Unreachable" is the port of a server that was
started and stopped.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from relavium_desktop.providers.config import ProviderEntry
from relavium_desktop.providers.models import CACHE_FILE, cached_models, fetch_models, known_models
from relavium_desktop.providers.readiness import key_state, provider_statuses, usable
from tests.fixtures.llm_server import ScriptedLLMServer

KEY = "sk-test-MODELLISTKEY0123456789abcdef"
MODELS = ["m-one", "m-two", "m-three", "m-four", "m-five"]


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RELAVIUM_TEST_KEY", KEY)
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")


def entry(server_url: str, kind: str, api_key: str | None = "env:RELAVIUM_TEST_KEY") -> ProviderEntry:
    base = server_url + ("/v1" if kind == "openai" else "")
    return ProviderEntry(kind=kind, base_url=base, api_key=api_key, allow_local=True)


@pytest.fixture
def dead_url() -> str:
    server = ScriptedLLMServer().start()
    url = server.base_url
    server.stop()
    return url


async def test_anthropic_list_pages_with_after_id_and_sends_its_headers(
    llm_server: ScriptedLLMServer, relavium_home: Path
) -> None:
    llm_server.models, llm_server.model_page_size = MODELS, 2
    listed = await fetch_models("claude", entry(llm_server.base_url, "anthropic"), home=relavium_home)
    assert listed.source == "live" and listed.note is None and listed.fetched_at is not None
    assert [m.id for m in listed.models] == MODELS  # provider order (newest first, as Anthropic sends)
    assert listed.models[0].display_name == "M One"
    sent = llm_server.list_requests
    assert [r.dialect for r in sent] == ["anthropic-models"] * 3
    assert [r.path for r in sent] == ["/v1/models?limit=1000", "/v1/models?limit=1000&after_id=m-two",
                                      "/v1/models?limit=1000&after_id=m-four"]
    assert all(r.headers["x-api-key"] == KEY and r.headers["anthropic-version"] == "2023-06-01" for r in sent)


async def test_openai_compatible_list_sends_the_bearer_key(llm_server: ScriptedLLMServer, relavium_home: Path) -> None:
    llm_server.models = MODELS
    listed = await fetch_models("ollama", entry(llm_server.base_url, "openai"), home=relavium_home)
    assert listed.source == "live" and [m.id for m in listed.models] == MODELS
    assert [(r.dialect, r.path) for r in llm_server.list_requests] == [("openai-models", "/v1/models")]
    assert llm_server.list_requests[0].headers["authorization"] == f"Bearer {KEY}"


async def test_a_keyless_server_is_asked_without_a_key(llm_server: ScriptedLLMServer, relavium_home: Path) -> None:
    listed = await fetch_models("lm", entry(llm_server.base_url, "openai", api_key=None), home=relavium_home)
    assert [m.id for m in listed.models] == ["scripted-large", "scripted-small"]
    assert "authorization" not in llm_server.list_requests[0].headers


async def test_gemini_list_pages_keeps_chat_models_and_strips_the_prefix(
    llm_server: ScriptedLLMServer, relavium_home: Path
) -> None:
    llm_server.models = ["gemini-a", "text-embedding-004", "gemini-b", "gemini-c"]
    llm_server.model_page_size = 3
    listed = await fetch_models("gem", entry(llm_server.base_url, "gemini"), home=relavium_home)
    assert [m.id for m in listed.models] == ["gemini-a", "gemini-b", "gemini-c"]
    assert listed.models[0].display_name == "Gemini A"
    sent = llm_server.list_requests
    assert [r.path for r in sent] == ["/v1beta/models?pageSize=1000", "/v1beta/models?pageSize=1000&pageToken=3"]
    assert all(r.dialect == "gemini-models" and r.headers["x-goog-api-key"] == KEY for r in sent)


async def test_unreachable_without_a_cache_falls_back_to_the_known_models_with_a_note(
    dead_url: str, relavium_home: Path
) -> None:
    listed = await fetch_models("gone", entry(dead_url, "anthropic"), home=relavium_home)
    assert listed.source == "defaults" and listed.fetched_at is None
    assert listed.models == known_models("anthropic") and listed.models
    assert all(m.id.startswith("claude") for m in listed.models)
    assert listed.note is not None and listed.note.startswith("Offline:") and "unreachable" in listed.note


async def test_a_fresh_cache_answers_without_the_network_and_refresh_refetches(
    llm_server: ScriptedLLMServer, relavium_home: Path
) -> None:
    llm_server.models = ["first"]
    e = entry(llm_server.base_url, "openai")
    live = await fetch_models("p", e, home=relavium_home)
    cache = json.loads((relavium_home / CACHE_FILE).read_text())
    assert cache["providers"]["p"]["base_url"] == e.base_url and KEY not in json.dumps(cache)
    llm_server.models = ["second"]
    hit = await fetch_models("p", e, home=relavium_home)
    assert hit.source == "cache" and hit.note is None and hit.fetched_at == live.fetched_at
    assert [m.id for m in hit.models] == ["first"] and len(llm_server.list_requests) == 1
    fresh = await fetch_models("p", e, home=relavium_home, refresh=True)
    assert fresh.source == "live" and [m.id for m in fresh.models] == ["second"] and len(llm_server.list_requests) == 2
    assert [m.id for m in (cached_models(relavium_home, "p", e.base_url) or fresh).models] == ["second"]


async def test_the_cache_is_kept_per_base_url(llm_server: ScriptedLLMServer, relavium_home: Path,
                                              dead_url: str) -> None:
    await fetch_models("p", entry(llm_server.base_url, "openai"), home=relavium_home)
    moved = entry(dead_url, "openai")
    assert cached_models(relavium_home, "p", moved.base_url) is None
    listed = await fetch_models("p", moved, home=relavium_home)
    assert listed.source == "defaults"


async def test_a_stale_cache_is_refetched_and_is_the_fallback_when_that_fails(
    llm_server: ScriptedLLMServer, relavium_home: Path
) -> None:
    e = entry(llm_server.base_url, "openai")
    await fetch_models("p", e, home=relavium_home)
    path = relavium_home / CACHE_FILE
    data = json.loads(path.read_text())
    data["providers"]["p"]["fetched_at"] = time.time() - 2 * 24 * 3600
    path.write_text(json.dumps(data))
    stale = cached_models(relavium_home, "p", e.base_url)
    assert stale is not None and stale.note is not None and "out of date" in stale.note
    llm_server.models_status = 503
    listed = await fetch_models("p", e, home=relavium_home)
    assert len(llm_server.list_requests) == 2
    assert listed.source == "cache" and [m.id for m in listed.models] == ["scripted-large", "scripted-small"]
    assert listed.note is not None and "HTTP 503" in listed.note and "cached" in listed.note


async def test_a_rejected_key_says_so_in_the_fallback_note(llm_server: ScriptedLLMServer, relavium_home: Path) -> None:
    llm_server.models_status = 401
    listed = await fetch_models("p", entry(llm_server.base_url, "gemini"), home=relavium_home)
    assert listed.source == "defaults" and all(m.id.startswith("gemini") for m in listed.models)
    assert listed.note is not None and "key was rejected (HTTP 401)" in listed.note
    assert KEY not in listed.note
    # With a cache, the same failure falls back to it and still says why.
    llm_server.models_status = 200
    await fetch_models("p", entry(llm_server.base_url, "gemini"), home=relavium_home, refresh=True)
    llm_server.models_status = 401
    again = await fetch_models("p", entry(llm_server.base_url, "gemini"), home=relavium_home, refresh=True)
    assert again.source == "cache" and again.note is not None and "key was rejected" in again.note


async def test_a_missing_key_or_a_refused_address_falls_back_without_a_request(
    llm_server: ScriptedLLMServer, relavium_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RELAVIUM_TEST_KEY")
    listed = await fetch_models("p", entry(llm_server.base_url, "openai"), home=relavium_home)
    assert listed.source == "defaults" and listed.note is not None and "RELAVIUM_TEST_KEY" in listed.note
    no_opt_in = ProviderEntry(kind="openai", base_url=llm_server.base_url + "/v1", api_key=None)
    refused = await fetch_models("q", no_opt_in, home=relavium_home)
    assert refused.source == "defaults" and refused.note is not None and "allow_local" in refused.note
    assert llm_server.list_requests == []


async def test_a_wrong_base_url_falls_back_with_the_status(llm_server: ScriptedLLMServer, relavium_home: Path) -> None:
    # The scripted server answers 404 JSON for a path it does not know: a wrong base URL.
    wrong = ProviderEntry(kind="openai", base_url=llm_server.base_url + "/nowhere", allow_local=True)
    listed = await fetch_models("p", wrong, home=relavium_home)
    assert listed.source == "defaults" and listed.note is not None and "HTTP 404" in listed.note


def test_key_states_without_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    entries = {
        "env-set": ProviderEntry(kind="openai", base_url="https://a.example/v1", api_key="env:RELAVIUM_TEST_KEY"),
        "env-unset": ProviderEntry(kind="openai", base_url="https://a.example/v1", api_key="env:NOT_SET_ANYWHERE"),
        "keyless": ProviderEntry(kind="openai", base_url="http://127.0.0.1:1/v1", allow_local=True),
        "keyring": ProviderEntry(kind="anthropic", base_url="https://api.anthropic.com",
                                 api_key="secret:ANTHROPIC_API_KEY"),
    }
    statuses = provider_statuses(entries)
    assert [(s.name, s.key_state) for s in statuses] == [
        ("env-set", "present"), ("env-unset", "missing"), ("keyless", "none_needed"), ("keyring", "unavailable")]
    assert "NOT_SET_ANYWHERE" in statuses[1].detail
    assert "keyring" in statuses[3].detail and KEY not in str(statuses)
    # Names the key it could not check, in the clear (a name is no secret): the person can act on it.
    assert statuses[3].detail.startswith("cannot check secret:ANTHROPIC_API_KEY — "), statuses[3].detail
    assert usable(statuses) == ["env-set", "keyless"]
    assert key_state(entries["env-set"], lambda ref: False) == "missing"


async def test_lists_fetched_side_by_side_are_all_cached(llm_server: ScriptedLLMServer, relavium_home: Path) -> None:
    names = [f"p{i}" for i in range(6)]
    e = entry(llm_server.base_url, "openai")
    lists = await asyncio.gather(*(fetch_models(n, e, home=relavium_home) for n in names))
    assert [x.source for x in lists] == ["live"] * len(names)
    assert all(cached_models(relavium_home, n, e.base_url) is not None for n in names)
