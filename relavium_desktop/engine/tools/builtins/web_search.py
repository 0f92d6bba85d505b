"""web_search: a configured search provider, its key a host-resolved secret.

The provider, its base URL and the key reference are config-only: a model
chooses only the query.  The provider URL goes through the same SSRF
primitive as http_request (a self-hosted SearXNG on a private address needs
the explicit ``allowLocal`` opt-in); no allowlist applies because the
destination is pinned by the author, not chosen by the model.

Nothing is assumed: with no provider configured (no ``provider``,
``baseUrl`` or ``credentialRef``) the call fails at once with
``tool_unavailable`` saying how to configure one, and Brave without a key
does too -- never a request to a default provider that can only fail (on a
DNS lookup offline, on a 401 online).  ``baseUrl`` or ``credentialRef``
alone mean Brave, the provider those fields were written for.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from relavium_desktop.engine.errors import ToolFailedError, ToolUnavailableError
from relavium_desktop.engine.host import EgressRequest, ToolHost
from relavium_desktop.engine.tools.builtins.base import ToolArgs
from relavium_desktop.engine.tools.registry import require
from relavium_desktop.engine.tools.search_providers import (
    build_search_request,
    parse_search_response,
    provider_status_message,
)
from relavium_desktop.engine.tools.tooldef import PolicyClass, ToolDef, ToolDispatchContext


class WebSearchArgs(ToolArgs):
    query: str = Field(min_length=1, max_length=2_000, description="What to search for.")
    count: int = Field(default=5, ge=1, le=20, description="How many results.")
    # Config-only: which provider, where, and the key reference.
    provider: Literal["brave", "searxng"] | None = None
    baseUrl: str | None = None
    credentialRef: str | None = Field(default=None, pattern=r"^secret:[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
    allowLocal: bool = False
    timeoutMs: int = Field(default=15_000, ge=1, le=120_000)


HOW_TO_CONFIGURE = (
    "configure one: in the app's chat, Settings -> Chat tools -> Web search; in relavium chat, --tool-config "
    '{"web_search": {"parameters": {...}}}; in a workflow or agent, the tool\'s '
    'tool_config parameters, e.g. {"provider": "brave", "credentialRef": "secret:NAME"} or '
    '{"provider": "searxng", "baseUrl": "https://search.example"} (relavium tool call: --config)'
)


def configured_provider(args: WebSearchArgs) -> str:
    """The provider to ask, or ``tool_unavailable`` when none is configured well enough to answer."""
    provider = args.provider or ("brave" if args.baseUrl or args.credentialRef else None)
    if provider is None:
        raise ToolUnavailableError(f"web_search is not configured: no search provider is set; {HOW_TO_CONFIGURE}")
    if provider == "brave" and not args.credentialRef and not args.baseUrl:
        raise ToolUnavailableError(
            "web_search: the brave provider needs an API key: store it with 'relavium secret set NAME' and set "
            "credentialRef to secret:NAME (in the app's chat: Settings -> Chat tools -> Web search -> Key)")
    if provider == "searxng" and not args.baseUrl:
        raise ToolUnavailableError(f"web_search: the searxng provider needs baseUrl (its server's URL); {HOW_TO_CONFIGURE}")
    return provider


async def _dispatch(args: WebSearchArgs, host: ToolHost, ctx: ToolDispatchContext) -> Any:
    provider = configured_provider(args)
    egress = require(host.egress, "web_search", "network egress")
    spec = build_search_request(provider, args.baseUrl, args.query, args.count)
    response = await egress.fetch(
        EgressRequest(
            method="GET",
            url=spec.url,
            run_id=ctx.run_id,
            headers=spec.headers,
            credential_ref=args.credentialRef,
            credential_header=spec.credential_header,
            credential_scheme=None,
            allow_local=args.allowLocal,
            timeout_ms=args.timeoutMs,
        )
    )
    status = int(response.get("status", 0))
    if status != 200:
        raise ToolFailedError(provider_status_message(provider, status))
    if response.get("bodySpill"):
        raise ToolFailedError(f"web_search: the {provider} provider's answer is too large to be a search result")
    return parse_search_response(provider, response.get("body"), args.count)


TOOL = ToolDef(
    id="web_search",
    description="Search the web with the configured provider; returns titles, URLs and snippets.",
    args_model=WebSearchArgs,
    dispatch=_dispatch,
    config_only=frozenset({"provider", "baseUrl", "credentialRef", "allowLocal", "timeoutMs"}),
    policy=PolicyClass(egress="search"),
)
