"""Live model lists: what a provider says it serves, cached, never failing the caller.

Why live: a hard-coded model table is wrong the day a provider ships a model,
and an OpenAI-compatible server (Ollama, LM Studio, vLLM, OpenRouter) serves
whatever its owner pulled.  The list is fetched over exactly what a chat turn
uses -- the key resolver, the base-URL gate and the SSRF-guarded client --
and kept in ``$RELAVIUM_HOME/cache/models.json`` for a day, keyed by provider
name and base URL, so a picker paints at once and works offline.

A provider problem never raises: the answer falls back to the cached list
(``source="cache"``) or to the known models of the entry's kind
(``source="defaults"``) with a note saying why, masked so no key can ride
along in it.  Bodies and lists are bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import httpx

from relavium_desktop.engine.errors import ToolError
from relavium_desktop.engine.llm.errors import ProviderError
from relavium_desktop.engine.tools.masking import clip, mask_text
from relavium_desktop.host.atomic import write_text_atomic
from relavium_desktop.providers.config import (
    BaseUrlValidator,
    ProviderConfigError,
    ProviderEntry,
    ProviderKind,
    SecretResolver,
)
from relavium_desktop.providers.http_base import ClientFactory

CACHE_FILE = Path("cache") / "models.json"
CACHE_TTL_S = 24 * 3600.0
MAX_BODY_BYTES = 4 * 1024 * 1024
MAX_MODELS = 2000
MAX_PAGES = 50
LIST_TIMEOUT_S = 20.0
ANTHROPIC_VERSION = "2023-06-01"
_KIND_PREFIX: dict[str, str] = {"anthropic": "claude", "openai": "gpt", "gemini": "gemini"}
_GENERATES = frozenset({"generateContent", "streamGenerateContent"})

Source = Literal["live", "cache", "defaults"]
# Lists fetched side by side (a picker gathers them) each rewrite the one cache file:
# one writer at a time in this process, so no provider's fresh record is lost.
_CACHE_LOCK = threading.Lock()


@dataclass(frozen=True)
class ModelInfo:
    id: str
    display_name: str | None = None


@dataclass(frozen=True)
class ModelList:
    provider: str
    models: tuple[ModelInfo, ...]
    source: Source
    fetched_at: float | None
    note: str | None


class ListFailed(Exception):
    """Why the live list could not be had, as a short secret-free phrase."""


def known_models(kind: ProviderKind | str) -> tuple[ModelInfo, ...]:
    """The models of ``kind`` the price table knows: the offline fallback (as the chat picker had)."""
    from relavium_desktop.engine.agent.pricing import PRICES_PER_MTOK

    prefix = _KIND_PREFIX.get(kind, "\0")
    return tuple(ModelInfo(m) for m in PRICES_PER_MTOK if m.startswith(prefix))


# -- the cache ------------------------------------------------------------------------


def _cache_path(home: Path) -> Path:
    return home / CACHE_FILE


def _read_cache(home: Path) -> dict[str, Any]:
    try:
        data = json.loads(_cache_path(home).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    providers = data.get("providers") if isinstance(data, dict) else None
    return providers if isinstance(providers, dict) else {}


def _cached_record(home: Path, name: str, base_url: str) -> tuple[tuple[ModelInfo, ...], float] | None:
    record = _read_cache(home).get(name)
    if not isinstance(record, dict) or record.get("base_url") != base_url:
        return None
    fetched_at = record.get("fetched_at")
    raw = record.get("models")
    if not isinstance(fetched_at, int | float) or not isinstance(raw, list):
        return None
    models = tuple(
        ModelInfo(str(m["id"]), m.get("display_name") if isinstance(m.get("display_name"), str) else None)
        for m in raw[:MAX_MODELS] if isinstance(m, dict) and isinstance(m.get("id"), str)
    )
    return models, float(fetched_at)


def _write_cache(home: Path, name: str, base_url: str, models: tuple[ModelInfo, ...], fetched_at: float) -> None:
    """Replace this provider's record atomically; a cache that cannot be written is only a missed cache."""
    with _CACHE_LOCK:
        _write_record(home, name, base_url, models, fetched_at)


def _write_record(home: Path, name: str, base_url: str, models: tuple[ModelInfo, ...], fetched_at: float) -> None:
    providers = _read_cache(home)
    providers[name] = {"base_url": base_url, "fetched_at": fetched_at,
                       "models": [{"id": m.id, "display_name": m.display_name} for m in models]}
    path = _cache_path(home)
    with contextlib.suppress(OSError):
        write_text_atomic(path, json.dumps({"version": 1, "providers": providers}), keep_backup=False)  # a cache


def _when(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts))


def cached_models(home: Path, name: str, base_url: str) -> ModelList | None:
    """The cached list for ``name`` at ``base_url`` (even a stale one), or None; no network.

    For painting a picker at once; a list older than a day says so in its note.
    """
    hit = _cached_record(home, name, base_url)
    if hit is None:
        return None
    models, fetched_at = hit
    stale = time.time() - fetched_at >= CACHE_TTL_S
    note = f"Cached list from {_when(fetched_at)}; it may be out of date." if stale else None
    return ModelList(name, models, "cache", fetched_at, note)


# -- the wire -------------------------------------------------------------------------


def _bounded(models: Iterable[ModelInfo]) -> tuple[ModelInfo, ...]:
    """In the provider's order, each id once, at most MAX_MODELS."""
    seen: set[str] = set()
    out: list[ModelInfo] = []
    for m in models:
        if m.id and m.id not in seen:
            seen.add(m.id)
            out.append(m)
            if len(out) >= MAX_MODELS:
                break
    return tuple(out)


async def _get_json(client: httpx.AsyncClient, url: str, headers: dict[str, str], timeout_s: float) -> Any:
    """One GET, its body capped at MAX_BODY_BYTES, decoded as JSON; failures become ListFailed."""
    timeout = httpx.Timeout(timeout_s, connect=min(10.0, timeout_s))
    async with client.stream("GET", url, headers={"accept": "application/json", **headers},
                             timeout=timeout) as response:
        if response.status_code in (401, 403):
            raise ListFailed(f"the key was rejected (HTTP {response.status_code}); check the key reference")
        if response.status_code == 429:
            raise ListFailed("rate limited (HTTP 429)")
        if response.status_code >= 400:
            raise ListFailed(f"the server answered HTTP {response.status_code}")
        body = bytearray()
        async for chunk in response.aiter_bytes():
            body.extend(chunk)
            if len(body) > MAX_BODY_BYTES:
                raise ListFailed(f"the model list is larger than {MAX_BODY_BYTES // (1024 * 1024)} MiB")
    try:
        return json.loads(bytes(body))
    except ValueError:
        raise ListFailed("the answer was not JSON") from None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _rows(body: Any, key: str) -> list[Any]:
    """The list under ``key`` in a model-list answer; anything else is not a model list."""
    rows = body.get(key) if isinstance(body, dict) else None
    if not isinstance(rows, list):
        raise ListFailed("the answer was not a model list")
    return rows


async def _list_anthropic(get: Callable[[str], Any], base: str) -> list[ModelInfo]:
    models: list[ModelInfo] = []
    after: str | None = None
    for _ in range(MAX_PAGES):
        query = httpx.QueryParams({"limit": 1000, **({"after_id": after} if after else {})})
        body = await get(f"{base}/v1/models?{query}")
        data = _rows(body, "data")
        models += [ModelInfo(m["id"], _text(m.get("display_name"))) for m in data
                   if isinstance(m, dict) and _text(m.get("id"))]
        after = _text(body.get("last_id"))
        if not body.get("has_more") or after is None or len(models) >= MAX_MODELS:
            break
    return models


async def _list_openai(get: Callable[[str], Any], base: str) -> list[ModelInfo]:
    body = await get(f"{base}/models")
    data = _rows(body, "data")
    return [ModelInfo(m["id"]) for m in data if isinstance(m, dict) and _text(m.get("id"))]


async def _list_gemini(get: Callable[[str], Any], base: str) -> list[ModelInfo]:
    models: list[ModelInfo] = []
    token: str | None = None
    for _ in range(MAX_PAGES):
        query = httpx.QueryParams({"pageSize": 1000, **({"pageToken": token} if token else {})})
        body = await get(f"{base}/v1beta/models?{query}")
        data = _rows(body, "models")
        for m in data:
            name = _text(m.get("name")) if isinstance(m, dict) else None
            methods = m.get("supportedGenerationMethods") if isinstance(m, dict) else None
            if name is None or not isinstance(methods, list) or not _GENERATES.intersection(methods):
                continue  # embedding-only and similar models cannot answer a chat turn
            models.append(ModelInfo(name.removeprefix("models/"), _text(m.get("displayName"))))
        token = _text(body.get("nextPageToken"))
        if token is None or len(models) >= MAX_MODELS:
            break
    return models


def _auth_headers(kind: str, key: str | None) -> dict[str, str]:
    if kind == "anthropic":
        return {"anthropic-version": ANTHROPIC_VERSION, **({"x-api-key": key} if key else {})}
    if kind == "gemini":
        return {"x-goog-api-key": key} if key else {}
    return {"authorization": f"Bearer {key}"} if key else {}


async def _fetch_live(name: str, entry: ProviderEntry, resolve: SecretResolver, validate: BaseUrlValidator,
                      factory: ClientFactory) -> tuple[ModelInfo, ...]:
    try:
        key = await asyncio.to_thread(resolve, entry.api_key) if entry.api_key else None
    except ProviderConfigError as exc:
        raise ListFailed(f"no key: {exc}") from None
    key = key.strip() if key else key  # a pasted key's trailing newline is never part of it
    try:
        outcome = validate(entry.base_url, entry.allow_local)
        if inspect.isawaitable(outcome):
            await outcome
    except ProviderConfigError as exc:
        raise ListFailed(f"refused: {exc}") from None
    except ProviderError as exc:
        raise ListFailed(f"unreachable: {exc.message}") from None
    headers = _auth_headers(entry.kind, key)
    timeout_s = min(entry.timeout_s, LIST_TIMEOUT_S)
    base = entry.base_url.rstrip("/")
    lister = {"anthropic": _list_anthropic, "openai": _list_openai, "gemini": _list_gemini}[entry.kind]
    try:
        async with factory(entry.allow_local) as client:
            async def get(url: str) -> Any:
                return await _get_json(client, url, headers, timeout_s)

            return _bounded(await asyncio.wait_for(lister(get, base), timeout_s * 3))
    except ListFailed:
        raise
    except (httpx.TimeoutException, TimeoutError):
        raise ListFailed("unreachable: the request timed out") from None
    except (httpx.TransportError, httpx.StreamError) as exc:
        raise ListFailed(f"unreachable: connection failed ({type(exc).__name__})") from None
    except ToolError as exc:  # the SSRF-guarded client refused the address
        raise ListFailed(f"refused: the base URL's address is refused ({exc.reason or exc.code})") from None
    except Exception as exc:  # noqa: BLE001 - a provider surprise falls back, never crashes a picker
        raise ListFailed(f"request failed ({type(exc).__name__})") from None


async def fetch_models(
    name: str,
    entry: ProviderEntry,
    *,
    home: Path,
    refresh: bool = False,
    resolve_secret: SecretResolver | None = None,
    validate_base_url: BaseUrlValidator | None = None,
    client_factory: ClientFactory | None = None,
) -> ModelList:
    """The models provider ``name`` serves: a fresh cache, else live, else cache or defaults with a note.

    ``refresh=True`` skips the fresh-cache shortcut.  The key resolver, the
    base-URL gate and the client default to the host's (the chat turn's).
    Never raises for a provider problem.
    """
    now = time.time()
    hit = _cached_record(home, name, entry.base_url)
    if hit is not None and not refresh and now - hit[1] < CACHE_TTL_S:
        return ModelList(name, hit[0], "cache", hit[1], None)
    if resolve_secret is None or validate_base_url is None or client_factory is None:
        from relavium_desktop.providers import wiring

        resolve_secret = resolve_secret or wiring.host_resolver()
        validate_base_url = validate_base_url or wiring.host_validate_base_url
        client_factory = client_factory or wiring.host_client_factory
    try:
        models = await _fetch_live(name, entry, resolve_secret, validate_base_url, client_factory)
    except ListFailed as exc:
        why = clip(mask_text(str(exc)), 300)
        if hit is not None:
            return ModelList(name, hit[0], "cache", hit[1],
                             f"Showing the list cached {_when(hit[1])}: the live list failed ({why}).")
        head = "Offline" if why.startswith("unreachable") else "No live list"
        return ModelList(name, known_models(entry.kind), "defaults", None,
                         f"{head}: showing the known models for this kind ({why}).")
    await asyncio.to_thread(_write_cache, home, name, entry.base_url, models, now)
    return ModelList(name, models, "live", now, None)
