"""Test a provider: one real, minimal model request, told as a sentence a person can act on.

Why a real request: a key can be stored and a URL well-formed and still not
work (revoked key, wrong path, server down).  The test goes through exactly
what a chat turn uses -- the entry (kind, key reference, base URL, local
opt-in, timeout), the keyring/env key resolver, the base-URL gate and the
SSRF-guarded egress client -- and asks for a one-token reply.  The outcome
(ok / auth / unreachable / server error / local opt-in missing / rejected /
rate limited / config) is built from the providers' secret-free messages and
masked once more.  Shared by Settings → Providers and ``relavium providers test``.

The model asked is one the server itself lists (the cheap default of the
kind when listed, else the first chat model of the list), unless the user
picked one; the result says which it tried.  "Unreachable" is said only
when the server was not reached: a server that answered and failed, cut
the answer or was too slow is "reached, but…".

The result is data: what happened (``message``, worded for any reader) and
what would fix it (``next_step`` with the entry's ``key_ref``).  Each surface
words the next step itself: Settings points at the key field and the local
opt-in box on its page, ``relavium providers test`` at the commands that
store a key or add the opt-in -- so no surface shows another's wording.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from relavium_desktop.engine.llm.errors import ProviderError, ProviderErrorCode
from relavium_desktop.engine.tools.masking import clip, mask_text
from relavium_desktop.providers.config import (
    DEFAULT_ENTRIES,
    ProviderConfigError,
    ProviderEntry,
    basic_validate_base_url,
)

if TYPE_CHECKING:
    from relavium_desktop.providers.http_base import HttpProvider

Outcome = Literal["ok", "auth", "unreachable", "server_error", "opt_in", "rejected", "rate_limited", "config"]
# What the user can do about a failed test, when it is theirs to do: give the provider a (valid) key,
# or opt in to a local endpoint.  Each surface says how (the page's fields, the CLI's commands).
NextStep = Literal["set_key", "allow_local"]
# Listed ids that cannot answer a chat request (OpenAI-format lists include them).
_NOT_CHAT = re.compile(r"embed|whisper|tts|dall-e|moderation|rerank|transcri|image|realtime|audio", re.IGNORECASE)
TEST_TIMEOUT_S = 20.0
# A cheap model per wire format when no model is named (nor picked in the chat for this provider).
DEFAULT_TEST_MODELS = {"anthropic": "claude-3-5-haiku-latest", "openai": "gpt-4o-mini", "gemini": "gemini-2.5-flash"}
OPT_IN_MISSING = (
    "Local endpoint opt-in missing: this base URL is a local or private address (or plain http); "
    "allow it only for a server you run yourself."
)


@dataclass(frozen=True, slots=True)
class ConnectionResult:
    outcome: Outcome
    message: str  # what happened, for any surface; the surface adds its own words for next_step
    model: str | None = None  # the model the test asked
    next_step: NextStep | None = None
    key_ref: str | None = None  # the entry's key reference (secret:NAME / env:NAME), never a key

    @property
    def ok(self) -> bool:
        return self.outcome == "ok"


def _entries(home: Path) -> dict[str, ProviderEntry]:
    from relavium_desktop.providers import PROVIDERS_FILE
    from relavium_desktop.providers.store import store_for

    return store_for(home / PROVIDERS_FILE).entries()


def effective_entry(home: Path, name: str, base_url: str, allow_local: bool) -> ProviderEntry:
    """The entry a chat turn would use for ``name``, with the page's URL and opt-in applied."""
    entry = _entries(home).get(name) or DEFAULT_ENTRIES.get(name)
    if entry is None:  # removed from the file while its row was still on screen
        raise ProviderConfigError(f"no provider named {name!r} in the provider settings")
    return entry.model_copy(update={
        "base_url": base_url, "allow_local": allow_local, "timeout_s": min(entry.timeout_s, TEST_TIMEOUT_S),
    })


def pick_test_model(entry: ProviderEntry, name: str, chat_route: str | None) -> str | None:
    """The chat's picked model when it is on this provider (else None: one the server lists is chosen)."""
    if chat_route and "/" in chat_route:
        provider, model = chat_route.split("/", 1)
        if provider.strip() == name and model.strip():
            return model.strip()
    return None


def default_test_model(home: Path, name: str, entry: ProviderEntry) -> str:
    """The cheap model of the kind, unless the provider's cached list lacks it: then its first model.

    Why: an OpenAI-compatible server (Ollama, LM Studio) serves only what its
    owner pulled, so ``gpt-4o-mini`` would fail a test that the server passes.
    """
    from relavium_desktop.providers.models import cached_models

    default = DEFAULT_TEST_MODELS[entry.kind]
    listed = cached_models(home, name, entry.base_url)
    if listed is None or not listed.models or any(m.id == default for m in listed.models):
        return default
    return listed.models[0].id


async def choose_test_model(home: Path, name: str, entry: ProviderEntry) -> tuple[str, str]:
    """A model the server lists, and how it was chosen (said in the result).

    The kind's cheap default when the server lists it, else the first model
    of the list that can chat; the kind's default only when no list could be
    read (live or cached).  Why: a gateway or a local server serves only what
    its owner configured, so a built-in default would fail a working server.
    """
    from relavium_desktop.providers.models import fetch_models

    default = DEFAULT_TEST_MODELS[entry.kind]
    listed = await fetch_models(name, entry, home=home)
    if listed.source != "defaults" and listed.models:
        chat = [m.id for m in listed.models if not _NOT_CHAT.search(m.id)] or [m.id for m in listed.models]
        if default in chat:
            return default, "the kind's cheap default, which the server lists"
        return chat[0], "the first chat model the server lists"
    return default, "the kind's default: the server's model list could not be read"


def _say(
    outcome: Outcome, detail: str, model: str | None = None, next_step: NextStep | None = None,
    key_ref: str | None = None,
) -> ConnectionResult:
    return ConnectionResult(outcome, clip(mask_text(detail), 600), model, next_step, key_ref)


def classify(exc: ProviderError, allow_local: bool, key_ref: str | None = None) -> ConnectionResult:
    """A provider error as what happened and what would fix it (the surface words the fix)."""
    msg = exc.message
    if exc.code is ProviderErrorCode.AUTH:
        return _say("auth", f"Authentication failed: {msg}.", next_step="set_key", key_ref=key_ref)
    if exc.code is ProviderErrorCode.UNAVAILABLE and exc.unreached:
        return _say("unreachable", f"Unreachable: {msg}. Check the base URL and that the server is running.")
    if exc.code is ProviderErrorCode.UNAVAILABLE:
        return _say("server_error", f"Reached, but the request did not complete: {msg}")
    if exc.code is ProviderErrorCode.RATE_LIMIT:
        return _say("rate_limited", f"Reached, and the key was accepted, but the provider is rate-limiting: {msg}")
    if not allow_local and ("address is blocked" in msg or "address is refused" in msg or "https" in msg):
        return _say("opt_in", OPT_IN_MISSING, next_step="allow_local")
    if exc.status is not None:
        return _say("rejected", f"Reached, but the provider rejected the test request: {msg}")
    return _say("config", f"The provider settings are not usable: {msg}")


def _build(name: str, entry: ProviderEntry) -> HttpProvider:
    """The provider exactly as a chat turn builds it (key resolution may block on D-Bus)."""
    from relavium_desktop.providers.factory import ProviderSet
    from relavium_desktop.providers.wiring import host_client_factory, host_resolver, host_validate_base_url

    providers = ProviderSet({name: entry}, resolve_secret=host_resolver(),
                            validate_base_url=host_validate_base_url, client_factory=host_client_factory)
    return providers(name)


async def _request(name: str, entry: ProviderEntry, model: str, how: str = "") -> ConnectionResult:
    result = await _send(name, entry, model)
    tried = f" (model {model}{': ' + how if how else ''})" if not result.ok else ""
    return ConnectionResult(result.outcome, clip(result.message + tried, 700), model, result.next_step,
                            result.key_ref)


async def _send(name: str, entry: ProviderEntry, model: str) -> ConnectionResult:
    """One one-token request through ``entry``; never raises for a provider problem."""
    from relavium_desktop.engine.llm.messages import Message
    from relavium_desktop.engine.llm.provider import ChatRequest

    base_url = entry.base_url.strip()
    try:
        basic_validate_base_url(base_url, entry.allow_local)
    except ProviderConfigError as exc:
        if not entry.allow_local and base_url.startswith("http://"):
            return _say("opt_in", OPT_IN_MISSING, next_step="allow_local")
        return _say("config", f"The base URL is not usable: {exc}")
    entry = entry.model_copy(update={"base_url": base_url, "timeout_s": min(entry.timeout_s, TEST_TIMEOUT_S)})
    try:
        provider = await asyncio.to_thread(_build, name, entry)
        request = ChatRequest(model=model, messages=[Message.user("Reply with the single word: ok")], max_tokens=1)

        async def consume() -> None:
            async for _ in provider.stream(request):
                pass

        await asyncio.wait_for(consume(), TEST_TIMEOUT_S + 5)
    except ProviderError as exc:
        return classify(exc, entry.allow_local, entry.api_key)
    except ProviderConfigError as exc:
        return _say("config", f"The provider settings are not usable: {exc}")
    except TimeoutError:
        return _say("server_error", "Reached, but no answer came within the test's time limit.")
    return _say("ok", f"Connected: {name} answered a test request with model {model}.")


async def test_provider(
    home: Path, name: str, entry: ProviderEntry | None = None, model: str | None = None
) -> ConnectionResult:
    """Test provider ``name`` (its entry from ``home``'s providers.yaml unless given) with ``model``.

    Without a model, :func:`choose_test_model` (one the server lists).  Never raises for a
    provider or settings problem: an unknown name or a broken file is a
    ``config`` result.
    """
    if entry is None:
        try:
            entries = await asyncio.to_thread(_entries, home)
        except ProviderConfigError as exc:
            return _say("config", f"The provider settings are not usable: {exc}")
        entry = entries.get(name)
        if entry is None:
            return _say("config", f"No provider named {name!r}; configured: {', '.join(sorted(entries)) or 'none'}.")
    how = "the model asked for"
    if model is None:
        model, how = await choose_test_model(home, name, entry)
    return await _request(name, entry, model, how)


test_provider.__test__ = False  # type: ignore[attr-defined]  # a name pytest would collect where imported


async def run_connection_test(
    home: Path, name: str, base_url: str, allow_local: bool, chat_route: str | None = None
) -> ConnectionResult:
    """Settings → Providers: test ``name`` with the page's base URL and opt-in (not saved)."""
    try:
        entry = await asyncio.to_thread(effective_entry, home, name, base_url.strip(), allow_local)
    except ProviderConfigError as exc:
        return _say("config", f"The provider settings are not usable: {exc}")
    picked = pick_test_model(entry, name, chat_route)
    if picked is not None:
        return await _request(name, entry, picked, "the model picked in the chat")
    model, how = await choose_test_model(home, name, entry)
    return await _request(name, entry, model, how)
