"""``type: http`` tools: a REST endpoint declared in YAML, dispatched like http_request.

The author declares name, description, method, a URL template with
``{param}`` placeholders, JSON-Schema parameters and an optional
``credentialRef``.  The model fills only the parameters; placeholders are
allowed in the path and query, never in the scheme or authority (a model
must not choose the host), values are percent-encoded, and the rendered URL
passes the same allowlist as http_request before the host's SSRF primitive
sees it.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal
from urllib.parse import quote, urlencode, urlsplit

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator

from relavium_desktop.engine.host import EgressRequest, ToolHost
from relavium_desktop.engine.tools.domain_policy import check_url
from relavium_desktop.engine.tools.registry import require
from relavium_desktop.engine.tools.tooldef import PolicyClass, PolicyTarget, ToolDef, ToolDispatchContext

_PLACEHOLDER_RE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool}


class HttpToolDecl(BaseModel):
    """The YAML declaration of one ``type: http`` tool."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: Literal["http"] = "http"
    name: str = Field(pattern=r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")
    description: str = Field(min_length=1, max_length=2_000)
    method: Literal["GET", "POST", "PUT", "DELETE"] = "GET"
    url: str
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    headers: dict[str, str] = Field(default_factory=dict)
    credentialRef: str | None = Field(default=None, pattern=r"^secret:[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
    credentialHeader: str = "Authorization"
    credentialScheme: str | None = "Bearer"
    timeoutMs: int = Field(default=30_000, ge=1, le=600_000)

    @field_validator("url")
    @classmethod
    def _host_is_fixed(cls, url: str) -> str:
        parts = urlsplit(url)
        if "{" in parts.scheme + parts.netloc or "}" in parts.scheme + parts.netloc:
            raise ValueError("placeholders are allowed only in the path and query, not the scheme or host")
        if parts.scheme != "https":
            raise ValueError("an http tool URL must be https://")
        return url

    @field_validator("parameters")
    @classmethod
    def _simple_object_schema(cls, schema: dict[str, Any]) -> dict[str, Any]:
        if schema.get("type", "object") != "object":
            raise ValueError("parameters must be a JSON Schema of type object")
        for name, prop in (schema.get("properties") or {}).items():
            if not isinstance(prop, dict) or prop.get("type", "string") not in _TYPES:
                raise ValueError(f"parameter {name!r}: type must be one of {', '.join(_TYPES)}")
        return schema


def _args_model(decl: HttpToolDecl) -> type[BaseModel]:
    props: dict[str, Any] = decl.parameters.get("properties") or {}
    required = set(decl.parameters.get("required") or [])
    fields: dict[str, Any] = {}
    for name, prop in props.items():
        py = _TYPES[prop.get("type", "string")]
        default = ... if name in required else prop.get("default")
        annotation = py if name in required else py | None
        fields[name] = (annotation, Field(default=default, description=prop.get("description")))
    model: type[BaseModel] = create_model(
        f"HttpToolArgs_{decl.name}", __config__=ConfigDict(extra="forbid", frozen=True), **fields
    )
    return model


def render_request(decl: HttpToolDecl, values: dict[str, Any]) -> tuple[str, str | None]:
    """The URL (placeholders filled, leftovers as query for GET/DELETE) and the JSON body."""
    values = {k: v for k, v in values.items() if v is not None}
    used = set(_PLACEHOLDER_RE.findall(decl.url))
    missing = used - set(values)
    if missing:
        raise ValueError(f"no value for URL placeholder(s): {', '.join(sorted(missing))}")
    url = _PLACEHOLDER_RE.sub(lambda m: quote(str(values[m.group(1)]), safe=""), decl.url)
    rest = {k: v for k, v in values.items() if k not in used}
    body: str | None = None
    if rest and decl.method in ("GET", "DELETE"):
        url += ("&" if urlsplit(url).query else "?") + urlencode({k: str(v) for k, v in rest.items()})
    elif decl.method in ("POST", "PUT"):
        body = json.dumps(rest)
    return url, body


def make_http_tool(decl: HttpToolDecl) -> ToolDef:
    """A ToolDef (source ``http``) that dispatches ``decl`` through the egress host."""
    args_model = _args_model(decl)

    def _url(args: BaseModel) -> str:
        return render_request(decl, args.model_dump())[0]

    def _guard(args: BaseModel, ctx: ToolDispatchContext) -> None:
        check_url(_url(args), ctx.policy.allowed_domains, tool=decl.name)

    async def _dispatch(args: BaseModel, host: ToolHost, ctx: ToolDispatchContext) -> Any:
        egress = require(host.egress, decl.name, "network egress")
        url, body = render_request(decl, args.model_dump())
        headers = dict(decl.headers)
        if body is not None:
            headers.setdefault("Content-Type", "application/json")
        return await egress.fetch(
            EgressRequest(
                method=decl.method,
                url=url,
                run_id=ctx.run_id,
                headers=headers,
                body=body,
                credential_ref=decl.credentialRef,
                credential_header=decl.credentialHeader,
                credential_scheme=decl.credentialScheme,
                allowed_domains=tuple(ctx.policy.allowed_domains or ()),
                timeout_ms=decl.timeoutMs,
            )
        )

    return ToolDef(
        id=decl.name,
        description=decl.description,
        args_model=args_model,
        dispatch=_dispatch,
        source="http",
        policy=PolicyClass(egress="http"),
        policy_target=lambda a: PolicyTarget(url=_url(a)),
        guard=_guard,
    )
