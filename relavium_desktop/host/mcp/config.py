"""The MCP server registry: which servers exist is the user's decision, never the model's.

Servers come from ``$RELAVIUM_HOME/mcp.yaml`` (or a mapping a workflow host
injects) and are validated strictly, so a typo fails loudly with the entry and
field it concerns instead of connecting somewhere unexpected::

    servers:
      files:
        transport: stdio
        command: /usr/bin/my-mcp-server   # looked up on the host's command search path when bare
        args: [--root, /data]
        env: {LOG_LEVEL: info}            # declared names only; checked by the env refusal predicate
        cwd: /data                        # optional, absolute
        toolsAllowlist: [search, fetch]   # optional (alias tools_allowlist): only these tools are offered
        allowSampling: false              # a server may ask our model for completions only when true
        sandbox: network                  # strict | network | off; default network here, strict in a workflow
      docs:
        transport: http                   # Streamable HTTP
        url: https://docs.example/mcp
        credentialRef: secret:docs-token  # resolved in the host, sent as a header, never logged
        allowLocal: false                 # explicit opt-in for loopback/private addresses (and plain http)
      tracker:
        transport: http
        url: https://tracker.example/mcp  # no credentialRef: OAuth sign-in ('relavium mcp login tracker')
        oauth:                            # optional; absent = sign in when the server asks (oauth: false = never)
          clientId: relavium-desktop      # a client the server's owner registered for you (else registered on the fly)
          clientSecret: secret:tracker-client   # its secret, if it has one, in the keyring
          scopes: [issues:read]           # optional: ask for these instead of what the server suggests

A literal credential header (``Authorization``, ``Cookie``, anything naming a
token or key) is refused: it would sit in a plain file and in backups, which
is exactly what ``credentialRef`` exists to avoid.

``sandbox`` (stdio only: an http server is not a process of ours) says how the
OS confines the server's process.  Absent, a server from the user's own
``mcp.yaml`` gets ``network`` (most servers need it) and one a workflow
declares gets ``strict``: a workflow's author is not the user.  ``off`` is the
user's explicit opt-in to run the server unconfined.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)

from relavium_desktop.engine.tools.tooldef import SandboxMode

if TYPE_CHECKING:
    from relavium_desktop.host.settings_bak import BakInUse

CONFIG_FILE = "mcp.yaml"
_SERVER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_CREDENTIAL_HEADER = re.compile(r"(?i)^(authorization|proxy-authorization|cookie)$|token|secret|key|passw")
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

ServerOrigin = Literal["user", "workflow"]
# Where a stdio server's entry says no ``sandbox``: the user's own servers usually need the
# network; a workflow's are someone else's code, so they get the strict sandbox.
DEFAULT_SANDBOX: dict[ServerOrigin, SandboxMode] = {"user": "network", "workflow": "strict"}


class McpConfigError(Exception):
    """mcp.yaml (or an injected mapping) is malformed; the message names entry and field."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class _ServerCommon(_Strict):
    # Absent: every tool the server lists is offered; a list narrows the offer to those names.
    tools_allowlist: tuple[str, ...] | None = Field(default=None, alias="toolsAllowlist")
    # Sampling spends the user's model (and money) on the server's behalf: off unless asked for.
    allow_sampling: bool = Field(default=False, alias="allowSampling")

    def offers(self, tool: str) -> bool:
        """Whether ``tool`` passes this server's allowlist."""
        return self.tools_allowlist is None or tool in self.tools_allowlist


class StdioServer(_ServerCommon):
    transport: Literal["stdio"]
    command: str = Field(min_length=1)
    args: tuple[str, ...] = ()
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    timeout_ms: int = Field(default=60_000, ge=100, le=3_600_000, alias="timeoutMs")
    connect_timeout_ms: int = Field(default=30_000, ge=100, le=600_000, alias="connectTimeoutMs")
    # None: the default for where the entry came from (sandbox_for).
    sandbox: SandboxMode | None = None

    def sandbox_for(self, origin: ServerOrigin) -> SandboxMode:
        """The sandbox this server's process runs in: its own ``sandbox``, else the default for ``origin``."""
        return self.sandbox if self.sandbox is not None else DEFAULT_SANDBOX[origin]

    @field_validator("command", "cwd")
    @classmethod
    def _no_nul(cls, value: str | None) -> str | None:
        if value is not None and "\x00" in value:
            raise ValueError("may not contain a NUL byte")
        return value

    @field_validator("cwd")
    @classmethod
    def _absolute_cwd(cls, value: str | None) -> str | None:
        if value is not None and not Path(value).expanduser().is_absolute():
            raise ValueError("must be an absolute folder")
        return value

    @field_validator("args")
    @classmethod
    def _args_no_nul(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if any("\x00" in a for a in value):
            raise ValueError("an argument may not contain a NUL byte")
        return value


class OAuthSettings(_Strict):
    """A server's ``oauth:`` block: a pre-registered client and the scopes to ask for.

    Every field is optional: without ``clientId`` the client identifies itself
    the way the server supports (a client ID metadata document, else dynamic
    registration).  ``clientSecret`` is a ``secret:NAME`` reference, never a
    literal, for the same reason as ``credentialRef``.
    """

    client_id: str | None = Field(default=None, alias="clientId", min_length=1, max_length=512)
    client_secret: str | None = Field(default=None, alias="clientSecret", pattern=r"^secret:")
    scopes: tuple[str, ...] | None = None
    # The HTTPS URL of this app's client ID metadata document, where the server supports them.
    client_metadata_url: str | None = Field(default=None, alias="clientMetadataUrl", pattern=r"^https://[^/]+/.+")
    # client_credentials: a machine account (no person, no browser) -- clientId with clientSecret,
    # or with clientKey (a PEM private key in the keyring) for private_key_jwt.
    grant: Literal["authorization_code", "client_credentials"] = "authorization_code"
    client_key: str | None = Field(default=None, alias="clientKey", pattern=r"^secret:")
    signing_algorithm: Literal["RS256", "ES256", "PS256", "EdDSA"] = Field(default="RS256", alias="signingAlgorithm")

    @model_validator(mode="after")
    def _secret_needs_id(self) -> OAuthSettings:
        if (self.client_secret is not None or self.client_key is not None) and self.client_id is None:
            raise ValueError("clientSecret and clientKey need the clientId they belong to")
        if self.grant == "client_credentials" and (self.client_secret is None) == (self.client_key is None):
            raise ValueError("grant client_credentials needs exactly one of clientSecret and clientKey")
        if self.client_key is not None and self.grant != "client_credentials":
            raise ValueError("clientKey is for grant: client_credentials")
        return self


class HttpServer(_ServerCommon):
    transport: Literal["http"]
    url: str = Field(min_length=1)
    headers: dict[str, str] = Field(default_factory=dict)
    credential_ref: str | None = Field(default=None, alias="credentialRef", pattern=r"^secret:")
    credential_header: str = Field(default="Authorization", alias="credentialHeader")
    credential_scheme: str | None = Field(default="Bearer", alias="credentialScheme")
    allow_local: bool = Field(default=False, alias="allowLocal")
    timeout_ms: int = Field(default=60_000, ge=100, le=3_600_000, alias="timeoutMs")
    connect_timeout_ms: int = Field(default=30_000, ge=100, le=600_000, alias="connectTimeoutMs")
    # None: sign in with OAuth when the server asks for it; False: never; a block: how to sign in.
    oauth: OAuthSettings | bool | None = None

    @property
    def uses_oauth(self) -> bool:
        """Whether requests to this server may carry an OAuth token (none when a static credential is set)."""
        return self.credential_ref is None and self.oauth is not False

    @model_validator(mode="after")
    def _one_credential(self) -> HttpServer:
        if self.credential_ref is not None and isinstance(self.oauth, OAuthSettings):
            raise ValueError("a server signs in either with credentialRef or with oauth, not both")
        if self.oauth is True:
            return self.model_copy(update={"oauth": None})
        return self

    @model_validator(mode="before")
    @classmethod
    def _no_sandbox(cls, data: Any) -> Any:
        if isinstance(data, Mapping) and "sandbox" in data:
            raise ValueError(
                "sandbox applies to stdio servers only: an http server is not a process Relavium starts"
            )
        return data

    @field_validator("headers")
    @classmethod
    def _no_literal_credentials(cls, value: dict[str, str]) -> dict[str, str]:
        for name, text in value.items():
            if not _HEADER_NAME.match(name) or "\r" in text or "\n" in text:
                raise ValueError(f"header {name!r} is not a valid HTTP header")
            if _CREDENTIAL_HEADER.search(name):
                raise ValueError(
                    f"header {name!r} looks like a credential; store it with 'relavium secret set' "
                    "and name it with credentialRef/credentialHeader instead"
                )
        return value

    @field_validator("credential_header")
    @classmethod
    def _header_name(cls, value: str) -> str:
        if not _HEADER_NAME.match(value):
            raise ValueError("is not a valid HTTP header name")
        return value


ServerConfig = Annotated[StdioServer | HttpServer, Field(discriminator="transport")]
_SERVERS = TypeAdapter(dict[str, ServerConfig])


def _describe(exc: ValidationError, where: str) -> str:
    parts = []
    for err in exc.errors()[:5]:
        loc = ".".join(str(p) for p in err["loc"] if not str(p).startswith(("function-", "tagged-")))
        # Say what is wrong, never the offending value (it may be a pasted secret).
        parts.append(f"{where}.{loc}: {err['msg']}" if loc else f"{where}: {err['msg']}")
    return "; ".join(parts)


def parse_servers(raw: Any, *, source: str = CONFIG_FILE) -> dict[str, StdioServer | HttpServer]:
    """Validate a ``{name: entry}`` mapping (the value of ``servers:``)."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise McpConfigError(f"{source}: 'servers' must be a mapping of server name to its entry")
    for name in raw:
        if not isinstance(name, str) or not _SERVER_NAME.match(name):
            raise McpConfigError(
                f"{source}: server name {str(name)[:64]!r} must be 1-64 letters, digits, '.', '_' or '-'"
            )
    try:
        return dict(_SERVERS.validate_python(dict(raw)))
    except ValidationError as exc:
        raise McpConfigError(f"{source}: {_describe(exc, 'servers')}") from None


def load_servers(home: Path) -> dict[str, StdioServer | HttpServer]:
    """The servers in ``home/mcp.yaml``; none when the file does not exist.

    A broken file whose last good copy (``mcp.yaml.bak``) loads runs on that
    copy, in memory (:func:`load_servers_noting` says so); otherwise it raises
    McpConfigError.  The file itself is never rewritten because of it.
    """
    return load_servers_noting(home)[0]


def load_servers_noting(home: Path) -> tuple[dict[str, StdioServer | HttpServer], BakInUse | None]:
    """:func:`load_servers`, and a :class:`BakInUse` when the servers come from ``mcp.yaml.bak``."""
    from relavium_desktop.host.settings_bak import load_or_bak

    return load_or_bak(home / CONFIG_FILE, _load_servers_at, McpConfigError)


def _load_servers_at(path: Path) -> dict[str, StdioServer | HttpServer]:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise McpConfigError(f"{CONFIG_FILE}: cannot be read ({type(exc).__name__})") from None
    try:
        doc = YAML(typ="safe").load(text)
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}" if mark is not None else ""
        raise McpConfigError(f"{CONFIG_FILE}: not valid YAML{at}") from None
    if doc is None:
        return {}
    if not isinstance(doc, Mapping) or set(doc) - {"servers"}:
        raise McpConfigError(f"{CONFIG_FILE}: the top level must be a mapping with one key, 'servers'")
    return parse_servers(doc.get("servers"))
