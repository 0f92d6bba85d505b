"""What a surface lends the MCP client: a form for elicitation, a model for sampling, a consent prompt.

A server may ask the client for things only a person (or the user's own
model) can give.  The host does not know how to ask -- the desktop shows a
dialog, the CLI cannot ask at all -- so each surface passes the callbacks it
can honour.  A missing callback is a refusal, never a silent default: an
elicitation is declined, a sampling request is refused with an error naming
the server, and a workflow-declared stdio server is never started.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal


@dataclass(frozen=True, slots=True)
class ElicitationRequest:
    """A server's form request: the message to show and the JSON Schema of the fields it wants."""

    server: str
    message: str
    requested_schema: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ElicitationAnswer:
    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class SamplingRequest:
    """A server asking for a completion: ``messages`` are ``(role, text)`` pairs."""

    server: str
    messages: tuple[tuple[str, str], ...]
    system_prompt: str | None
    max_tokens: int


@dataclass(frozen=True, slots=True)
class SamplingAnswer:
    text: str
    model: str


@dataclass(frozen=True, slots=True)
class ConsentRequest:
    """Everything that decides what a stdio server would run; ``fingerprint`` names exactly this."""

    server: str
    fingerprint: str
    command: str
    args: tuple[str, ...]
    env_names: tuple[str, ...]
    cwd: str
    # The sandbox it would run in ("strict", "network" or "off": unconfined, with all of the user's rights).
    sandbox: str = "strict"


@dataclass(frozen=True, slots=True)
class McpClientHooks:
    # None: decline, with a message saying this surface cannot show forms.
    elicit: Callable[[ElicitationRequest], Awaitable[ElicitationAnswer]] | None = None
    # None (or the server's allowSampling false): refuse with a clear error.
    sample: Callable[[SamplingRequest], Awaitable[SamplingAnswer]] | None = None
    # Asked before the FIRST spawn of a workflow-origin stdio server; None/False: refused, never spawned.
    consent: Callable[[ConsentRequest], Awaitable[bool]] | None = None
    # Opens an OAuth sign-in page for the user (a person is there); None: a server that needs
    # sign-in fails with a message saying how to sign in, and no browser is opened.
    open_browser: Callable[[str], None] | None = None
    # How long an OAuth sign-in waits for the browser to come back to the loopback listener.
    sign_in_timeout_s: float = 300.0
