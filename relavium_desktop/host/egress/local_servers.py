""""Look for a local model server": probe the usual loopback ports, only when asked.

Contacting a local port is an explicit local opt-in: nothing here runs until
the user clicks the button in the welcome flow (or Settings).  Only the
loopback address is tried -- never the LAN -- and each probe is one bounded
``GET /v1/models`` (the OpenAI-compatible listing Ollama and LM Studio both
serve) through the guarded client with local addresses allowed, so a found
server can be added as an ``openai`` provider with ``allow_local: true``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass

import httpx

PROBE_TIMEOUT_S = 1.5
MAX_LISTING_BYTES = 1 << 20
MAX_MODELS = 500


@dataclass(frozen=True, slots=True)
class LocalServerKind:
    label: str  # what the user reads: "Ollama"
    name: str  # the provider name it is saved under: "ollama"
    port: int


@dataclass(frozen=True, slots=True)
class FoundServer:
    label: str
    name: str
    base_url: str  # ends in /v1, as an OpenAI-compatible provider entry wants it
    models: tuple[str, ...]


KNOWN_LOCAL_SERVERS: tuple[LocalServerKind, ...] = (
    LocalServerKind("Ollama", "ollama", 11434),
    LocalServerKind("LM Studio", "lmstudio", 1234),
)


async def _probe(client: httpx.AsyncClient, kind: LocalServerKind) -> FoundServer | None:
    base = f"http://127.0.0.1:{kind.port}/v1"
    try:
        async with client.stream("GET", f"{base}/models") as response:
            if response.status_code != 200:
                return None
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > MAX_LISTING_BYTES:
                    return None
    except (httpx.HTTPError, OSError):
        return None
    try:
        data = json.loads(bytes(body))
    except ValueError:
        return None
    rows = data.get("data") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        return None
    models = tuple(str(r["id"]) for r in rows[:MAX_MODELS] if isinstance(r, dict) and isinstance(r.get("id"), str))
    return FoundServer(kind.label, kind.name, base, models)


async def find_local_servers(
    candidates: Sequence[LocalServerKind] = KNOWN_LOCAL_SERVERS, *, timeout: float = PROBE_TIMEOUT_S
) -> list[FoundServer]:
    """The candidates that answer an OpenAI-compatible model listing on 127.0.0.1, in order."""
    from relavium_desktop.host.egress.transport import guarded_client

    async with guarded_client(allow_local=True, timeout=timeout) as client:
        found = await asyncio.gather(*(_probe(client, kind) for kind in candidates))
    return [server for server in found if server is not None]
