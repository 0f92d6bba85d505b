"""``type: http`` tools: a REST endpoint declared in YAML, dispatched like http_request.

Where they are declared: ``http_tools:`` -- a list of declarations -- on a
workflow (``workflow.http_tools``: every agent and tool node of that
workflow may use them), on a workflow's inline agent and in an
``*.agent.yaml`` file (that agent's own).  A declared tool is *known*; an
agent still lists its id in ``tools`` to be granted it, like any tool.

The author declares name, description, method, a URL template with
``{param}`` placeholders, JSON-Schema parameters, headers, an optional JSON
body template and an optional response mapping.  The model fills only the
parameters:

- placeholders are allowed in the URL's path and query, never in the scheme
  or authority (a model must not choose the host); values are percent-encoded;
- a ``body`` template is a JSON value whose strings may hold placeholders.  A
  string that is exactly ``"{param}"`` becomes the parameter's typed JSON
  value; a placeholder inside a longer string is substituted as text.  The
  body is built as data and serialised once, so a value can never break out
  of its place in the JSON text;
- a header value ``secret:NAME`` (or ``"<scheme> secret:NAME"``, e.g.
  ``Bearer secret:API_TOKEN``) is a credential reference resolved by the host
  inside its boundary -- the engine and the model never see the value.  One
  credential per tool (the host attaches one per request);
- ``response`` picks part of a JSON reply: ``path`` (a JSON Pointer
  ``/a/0/b`` or a dotted path ``a.0.b``) and/or ``fields`` (output key ->
  path).  The model then reads ``{status, data}`` instead of the raw body.

Allowlist: when the workflow sets ``tools.allowedDomains`` the tool's URL must
pass it like http_request's.  Where no allowlist is in force (an agent run,
chat, a workflow without one), the tool's own declared host -- and only it --
is allowed, because the author, not the model, wrote that host.  Redirects are
never followed, so a reply cannot move the call to another host.  The rendered
URL then goes through the host's SSRF primitive and the result through the
registry's bounding like every other tool.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal
from urllib.parse import quote, urlencode, urlsplit

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator, model_validator

from relavium_desktop.engine.errors import ToolFailedError
from relavium_desktop.engine.host import EgressRequest, ToolHost
from relavium_desktop.engine.tools.domain_policy import check_url, parse_url
from relavium_desktop.engine.tools.registry import require
from relavium_desktop.engine.tools.tooldef import PolicyClass, PolicyTarget, ToolDef, ToolDispatchContext

_PLACEHOLDER_RE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_WHOLE_PLACEHOLDER_RE = re.compile(r"^\{([A-Za-z_][A-Za-z0-9_]*)\}$")
_SECRET_VALUE_RE = re.compile(r"^(?:(?P<scheme>[A-Za-z][A-Za-z0-9_-]{0,31}) )?(?P<ref>secret:[A-Za-z0-9][A-Za-z0-9._-]{0,127})$")
_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool}
_MISSING = object()


class ResponseMapping(BaseModel):
    """What part of a JSON reply the model reads (``path`` first, then ``fields`` within it)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str | None = Field(default=None, min_length=1, max_length=1_000)
    fields: dict[str, str] | None = None

    @model_validator(mode="after")
    def _something(self) -> ResponseMapping:
        if self.path is None and not self.fields:
            raise ValueError("response needs a path, fields, or both")
        return self


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
    body: Any = None
    response: ResponseMapping | None = None
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

    @field_validator("headers")
    @classmethod
    def _headers_are_literal(cls, headers: dict[str, str]) -> dict[str, str]:
        for name, value in headers.items():
            if not re.fullmatch(r"[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}", name):
                raise ValueError(f"header name {name!r} is not a valid HTTP header name")
            if "secret:" in value and _SECRET_VALUE_RE.match(value) is None:
                raise ValueError(f"header {name!r}: a credential is written 'secret:NAME' or '<scheme> secret:NAME'")
            if _PLACEHOLDER_RE.search(value):
                raise ValueError(f"header {name!r}: headers are fixed by the author; placeholders are not allowed")
        return headers

    @model_validator(mode="after")
    def _consistent(self) -> HttpToolDecl:
        secret_headers = [n for n, v in self.headers.items() if _SECRET_VALUE_RE.match(v)]
        if len(secret_headers) + (self.credentialRef is not None) > 1:
            raise ValueError("an http tool carries at most one credential (one secret: header or credentialRef)")
        if self.body is not None and self.method in ("GET", "DELETE"):
            raise ValueError(f"a {self.method} http tool cannot have a body")
        declared = set(self.parameters.get("properties") or {})
        used = set(_PLACEHOLDER_RE.findall(self.url)) | set(_body_placeholders(self.body))
        unknown = sorted(used - declared)
        if unknown:
            raise ValueError(f"placeholder(s) naming no declared parameter: {', '.join(unknown)}")
        return self

    def credential(self) -> tuple[str | None, str, str | None]:
        """(``secret:`` reference, header it goes in, scheme) -- the one credential, if any."""
        for name, value in self.headers.items():
            m = _SECRET_VALUE_RE.match(value)
            if m is not None:
                return m.group("ref"), name, m.group("scheme")
        return self.credentialRef, self.credentialHeader, self.credentialScheme

    def host(self) -> str:
        """``host`` or ``host:port`` of the declared URL: the one host this tool may reach."""
        parsed = parse_url(self.url)
        return parsed.host if parsed.port is None else f"{parsed.host}:{parsed.port}"


def _body_placeholders(value: Any) -> list[str]:
    if isinstance(value, str):
        return _PLACEHOLDER_RE.findall(value)
    if isinstance(value, list):
        return [p for item in value for p in _body_placeholders(item)]
    if isinstance(value, dict):
        return [p for item in value.values() for p in _body_placeholders(item)]
    return []


def _render_body(value: Any, values: dict[str, Any]) -> Any:
    """The template with placeholders filled: typed where a string is one placeholder, text elsewhere."""
    if isinstance(value, str):
        whole = _WHOLE_PLACEHOLDER_RE.match(value)
        if whole is not None:
            return values.get(whole.group(1))
        return _PLACEHOLDER_RE.sub(lambda m: "" if values.get(m.group(1)) is None else str(values[m.group(1)]), value)
    if isinstance(value, list):
        return [_render_body(item, values) for item in value]
    if isinstance(value, dict):
        return {k: _render_body(item, values) for k, item in value.items()}
    return value


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
    """The URL (placeholders filled, leftovers as query for GET/DELETE) and the JSON body text."""
    values = {k: v for k, v in values.items() if v is not None}
    used = set(_PLACEHOLDER_RE.findall(decl.url))
    missing = used - set(values)
    if missing:
        raise ValueError(f"no value for URL placeholder(s): {', '.join(sorted(missing))}")
    url = _PLACEHOLDER_RE.sub(lambda m: quote(str(values[m.group(1)]), safe=""), decl.url)
    rest = {k: v for k, v in values.items() if k not in used}
    body: str | None = None
    if decl.body is not None:
        body = json.dumps(_render_body(decl.body, values))
    elif rest and decl.method in ("GET", "DELETE"):
        url += ("&" if urlsplit(url).query else "?") + urlencode({k: str(v) for k, v in rest.items()})
    elif decl.method in ("POST", "PUT"):
        body = json.dumps(rest)
    return url, body


def _split_path(path: str) -> list[str]:
    if path.startswith("/"):  # JSON Pointer (RFC 6901)
        return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]
    return path.split(".")


def pick(data: Any, path: str) -> Any:
    """The value at ``path`` (JSON Pointer or dotted) in parsed JSON, or ``_MISSING``."""
    node = data
    for part in _split_path(path):
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return _MISSING
    return node


def map_response(mapping: ResponseMapping, result: dict[str, Any]) -> dict[str, Any]:
    """``{status, data}``: the mapped part of a JSON reply; a reply it cannot map fails the call clearly.

    A non-2xx reply is returned as it came: the mapping describes success, and
    the model needs the error body to know what went wrong.
    """
    status = result.get("status")
    if not isinstance(status, int) or not 200 <= status < 300:
        return result
    text = result.get("body")
    if result.get("bodySpill") is not None or result.get("truncated"):
        raise ToolFailedError("the reply is too large for the response mapping; narrow the request")
    if not isinstance(text, str):
        raise ToolFailedError(f"the reply (HTTP {status}) has no text body to map")
    try:
        data = json.loads(text)
    except ValueError:
        raise ToolFailedError(f"the reply (HTTP {status}) is not JSON, so the response mapping cannot apply") from None
    if mapping.path is not None:
        data = pick(data, mapping.path)
        if data is _MISSING:
            raise ToolFailedError(f"the reply (HTTP {status}) has nothing at {mapping.path!r}")
    if mapping.fields:
        picked = {key: pick(data, path) for key, path in mapping.fields.items()}
        data = {key: (None if value is _MISSING else value) for key, value in picked.items()}
    return {"status": status, "data": data}


def _allowed(decl: HttpToolDecl, ctx: ToolDispatchContext) -> tuple[str, ...]:
    """The workflow's allowlist when it has one, else the tool's own declared host alone."""
    policy = ctx.policy.allowed_domains
    if policy is not None:
        return tuple(policy)
    return (decl.host(),)


def make_http_tool(decl: HttpToolDecl) -> ToolDef:
    """A ToolDef (source ``http``) that dispatches ``decl`` through the egress host."""
    args_model = _args_model(decl)

    def _url(args: BaseModel) -> str:
        return render_request(decl, args.model_dump())[0]

    def _guard(args: BaseModel, ctx: ToolDispatchContext) -> None:
        check_url(_url(args), _allowed(decl, ctx), tool=decl.name)

    async def _dispatch(args: BaseModel, host: ToolHost, ctx: ToolDispatchContext) -> Any:
        egress = require(host.egress, decl.name, "network egress")
        url, body = render_request(decl, args.model_dump())
        ref, header, scheme = decl.credential()
        headers = {k: v for k, v in decl.headers.items() if ref is None or k != header}
        if body is not None:
            headers.setdefault("Content-Type", "application/json")
        result = await egress.fetch(
            EgressRequest(
                method=decl.method,
                url=url,
                run_id=ctx.run_id,
                headers=headers,
                body=body,
                credential_ref=ref,
                credential_header=header,
                credential_scheme=scheme,
                follow_redirects=False,
                allowed_domains=_allowed(decl, ctx),
                timeout_ms=decl.timeoutMs,
            )
        )
        if decl.response is None:
            return result
        return map_response(decl.response, result)

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
