"""Search-provider wire formats (Brave Search API, SearXNG JSON), pure.

The engine builds the request and normalises the answer; the host only
fetches, so both providers share one guarded egress path.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from relavium_desktop.engine.errors import InvalidArgsError, ToolFailedError

BRAVE_DEFAULT = "https://api.search.brave.com/res/v1/web/search"


@dataclass(frozen=True, slots=True)
class SearchRequestSpec:
    url: str
    headers: dict[str, str] = field(default_factory=dict)
    credential_header: str = "X-Subscription-Token"


def build_search_request(provider: str, base_url: str | None, query: str, count: int) -> SearchRequestSpec:
    if provider == "brave":
        base = base_url or BRAVE_DEFAULT
        return SearchRequestSpec(
            url=f"{base}?{urlencode({'q': query, 'count': count})}",
            headers={"Accept": "application/json"},
            credential_header="X-Subscription-Token",
        )
    if provider == "searxng":
        if not base_url:
            raise InvalidArgsError("web_search: the searxng provider needs baseUrl in its config")
        base = base_url.rstrip("/")
        if not base.endswith("/search"):
            base += "/search"
        return SearchRequestSpec(
            url=f"{base}?{urlencode({'q': query, 'format': 'json'})}",
            headers={"Accept": "application/json"},
            credential_header="Authorization",
        )
    raise InvalidArgsError(f"web_search: unknown provider {provider!r}")


def _load(body: Any, provider: str) -> Any:
    if isinstance(body, dict | list):
        return body
    try:
        return json.loads(body or "")
    except (TypeError, ValueError):
        raise ToolFailedError(f"web_search: the {provider} provider did not return valid JSON") from None


def parse_search_response(provider: str, body: Any, count: int) -> dict[str, Any]:
    data = _load(body, provider)
    if provider == "brave":
        raw = (data.get("web") or {}).get("results") or [] if isinstance(data, dict) else []
        items = [
            {"title": r.get("title", ""), "url": r.get("url", ""), "snippet": r.get("description", "")}
            for r in raw
            if isinstance(r, dict)
        ]
    else:
        raw = data.get("results") or [] if isinstance(data, dict) else []
        items = [
            {"title": r.get("title", ""), "url": r.get("url", ""), "snippet": r.get("content", "")}
            for r in raw
            if isinstance(r, dict)
        ]
    return {"results": items[:count]}
