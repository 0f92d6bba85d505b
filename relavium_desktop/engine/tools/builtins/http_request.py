"""http_request: HTTPS to an allowlisted host, through the host's SSRF primitive.

The engine checks scheme and the exact-FQDN allowlist on the effective
arguments; the host re-checks them (and every redirect hop when the
config-only ``followRedirects`` is set), resolves the name once, refuses
blocked addresses and connects to the validated one.  The credential is a
config-only ``secret:NAME`` reference the host resolves and attaches.

``credentialRefs`` (config-only, e.g. chat's Settings) maps a host to its
own reference: the credential is chosen for the request's host by the same
exact-host rule as the allowlist, so a model steering a request elsewhere
never carries a key meant for another service.  The host attaches it only
to the first origin: a redirect to another host goes without it.

A binary response body (an image, a PDF, any bytes that are not text) is
published by the host to the media store and the result carries a
``media`` handle instead of a body -- never base64, never mojibake.  The
handle is admitted into the scope of this call, so ``read_media`` can show
what was downloaded to a model that accepts it.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import Field, field_validator

from relavium_desktop.engine.host import EgressRequest, ToolHost
from relavium_desktop.engine.tools.builtins.base import ToolArgs
from relavium_desktop.engine.tools.domain_policy import (
    check_url,
    host_allowed,
    parse_url,
    validate_domain_entry,
)
from relavium_desktop.engine.tools.media_turn import media_handles, media_scope_of
from relavium_desktop.engine.tools.registry import require
from relavium_desktop.engine.tools.tooldef import (
    ByteBound,
    PolicyClass,
    PolicyTarget,
    ToolDef,
    ToolDispatchContext,
)

BODY_MAX_BYTES = 1024 * 1024
SECRET_REF = r"^secret:[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"


class HttpRequestArgs(ToolArgs):
    method: Literal["GET", "POST", "PUT", "DELETE"] = Field(default="GET")
    url: str = Field(description="An https:// URL on an allowlisted host.")
    headers: dict[str, str] = Field(default_factory=dict)
    body: str | None = Field(default=None, description="Request body (e.g. JSON text).")
    stream: bool = Field(default=False, description="Stream a large response (spilled past the ceiling).")
    # Config-only.
    followRedirects: bool = False
    credentialRef: str | None = Field(default=None, pattern=SECRET_REF)
    credentialRefs: dict[str, str] = Field(default_factory=dict)
    credentialHeader: str = "Authorization"
    credentialScheme: str | None = "Bearer"
    timeoutMs: int = Field(default=30_000, ge=1, le=600_000)


    @field_validator("credentialRefs")
    @classmethod
    def _refs_ok(cls, value: dict[str, str]) -> dict[str, str]:
        # Keys follow the allowlist's one rule; values are references, never keys.
        # Messages name the domain, never the value (it might be a pasted key).
        out: dict[str, str] = {}
        for domain, ref in value.items():
            try:
                stored = validate_domain_entry(domain, field="credentialRefs")
            except ValueError as exc:
                raise ValueError(str(exc)) from None
            if not re.fullmatch(SECRET_REF, ref):
                raise ValueError(f"credentialRefs: the value for {stored!r} must be a secret:NAME reference")
            out[stored] = ref
        return out


def credential_for(args: HttpRequestArgs) -> str | None:
    """The reference for this request's host: its ``credentialRefs`` entry, else ``credentialRef``."""
    if args.credentialRefs:
        parsed = parse_url(args.url)
        for domain, ref in args.credentialRefs.items():
            if host_allowed(parsed, (domain,)):
                return ref
    return args.credentialRef


def _guard(args: HttpRequestArgs, ctx: ToolDispatchContext) -> None:
    check_url(args.url, ctx.policy.allowed_domains)


async def _dispatch(args: HttpRequestArgs, host: ToolHost, ctx: ToolDispatchContext) -> Any:
    egress = require(host.egress, "http_request", "network egress")
    request = EgressRequest(
        method=args.method,
        url=args.url,
        run_id=ctx.run_id,
        headers=dict(args.headers),
        body=args.body,
        credential_ref=credential_for(args),
        credential_header=args.credentialHeader,
        credential_scheme=args.credentialScheme,
        follow_redirects=args.followRedirects,
        allowed_domains=tuple(ctx.policy.allowed_domains or ()),
        stream=args.stream,
        timeout_ms=args.timeoutMs,
    )
    result = await egress.fetch(request)
    if host.media is not None:
        for handle in media_handles(result):
            await host.media.admit(handle, media_scope_of(ctx))
    return result


TOOL = ToolDef(
    id="http_request",
    description=(
        "Make an HTTPS request (GET/POST/PUT/DELETE) to an allowlisted host. A binary response "
        "(image, PDF, ...) comes back as a media handle (media://sha256-...) instead of a body; "
        "pass it to read_media to look at an image."
    ),
    args_model=HttpRequestArgs,
    dispatch=_dispatch,
    config_only=frozenset(
        {"followRedirects", "credentialRef", "credentialRefs", "credentialHeader", "credentialScheme", "timeoutMs"}
    ),
    policy=PolicyClass(egress="http"),
    policy_target=lambda a: PolicyTarget(url=a.url),
    guard=_guard,
    byte_bounds={"body": ByteBound(BODY_MAX_BYTES)},
)
