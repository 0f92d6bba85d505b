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


def provider_status_message(provider: str, status: int) -> str:
    """A clear, secret-free message for a provider's non-200 answer."""
    if status in (401, 403):
        return (f"web_search: the {provider} provider refused the request (HTTP {status}); check the API key "
                "named by credentialRef (relavium secret set NAME)")
    if status == 429:
        return f"web_search: the {provider} provider's rate limit was hit (HTTP 429); try again later"
    if 300 <= status < 400:
        return f"web_search: the {provider} provider answered with a redirect (HTTP {status}); check baseUrl"
    return f"web_search: the {provider} provider answered HTTP {status}"


def _load(body: Any, provider: str) -> Any:
    if isinstance(body, dict | list):
        return body
    try:
        return json.loads(body or "")
    except (TypeError, ValueError):
        raise ToolFailedError(f"web_search: the {provider} provider did not return valid JSON") from None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def parse_search_response(provider: str, body: Any, count: int) -> dict[str, Any]:
    """Normalise either provider's JSON to ``{results: [{title, url, snippet}]}``."""
    data = _load(body, provider)
    if not isinstance(data, dict):
        raise ToolFailedError(f"web_search: the {provider} provider's JSON is not a search response object")
    if provider == "brave":
        web = data.get("web")
        raw = web.get("results") or [] if isinstance(web, dict) else []
        items = [
            {"title": _text(r.get("title")), "url": _text(r.get("url")), "snippet": _text(r.get("description"))}
            for r in raw
            if isinstance(r, dict)
        ]
    else:
        raw = data.get("results") or []
        items = [
            {"title": _text(r.get("title")), "url": _text(r.get("url")), "snippet": _text(r.get("content"))}
            for r in raw
            if isinstance(r, dict)
        ]
    items = [i for i in items if i["url"]]
    return {"results": items[:count]}
