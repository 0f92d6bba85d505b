"""The client side of one MCP session: answers to what a server may ask, and where its notes go.

The SDK declares a client capability (roots, elicitation, sampling) exactly
when a callback for it is given, so every session gets all three and the
answers below decide per request:

- **roots** are the host's current roots as ``file://`` URIs (the project
  folder and the granted extra folders), read at request time so
  ``McpHost.set_roots`` takes effect at once;
- **elicitation** goes to the surface's ``elicit`` hook; without one it is
  declined, and the running call's log says why (a server only sees
  "declined");
- **sampling** goes to the ``sample`` hook only when the server's entry says
  ``allowSampling: true``; otherwise the server gets an error naming the
  switch, so its author or user learns how to turn it on;
- **log messages** go to the ``on_log`` sinks of the calls in flight on this
  server, or to the Python logger (never stdout: over stdio that is the
  protocol channel of *our* CLI's parent).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import mcp_types as types

from relavium_desktop.engine.host import LogSink
from relavium_desktop.host.mcp.config import CONFIG_FILE, HttpServer, StdioServer
from relavium_desktop.host.mcp.hooks import (
    ElicitationRequest,
    McpClientHooks,
    SamplingRequest,
)

log = logging.getLogger("relavium.mcp")

LOG_TEXT_LIMIT = 2_000
NO_FORMS = "this surface cannot show forms, so the request was declined"
# MCP's syslog levels onto Python's.
_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL,
    "emergency": logging.CRITICAL,
}


def log_text(params: types.LoggingMessageNotificationParams) -> str:
    data = params.data
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)
    if params.logger:
        text = f"[{params.logger}] {text}"
    return text if len(text) <= LOG_TEXT_LIMIT else text[:LOG_TEXT_LIMIT] + " [...]"


def _text_of(message: types.SamplingMessage) -> str:
    parts = []
    for block in message.content_as_list:
        if isinstance(block, types.TextContent):
            parts.append(block.text)
        else:
            parts.append(f"[{getattr(block, 'type', 'content')} omitted]")
    return "\n".join(parts)


class SessionCallbacks:
    """The callbacks handed to ``mcp.client.Client`` for one server."""

    def __init__(
        self,
        server: str,
        entry: StdioServer | HttpServer,
        *,
        roots: Callable[[], Sequence[Path]],
        hooks: McpClientHooks,
    ) -> None:
        self.server = server
        self.entry = entry
        self._roots = roots
        self._hooks = hooks
        # The on_log sinks of the calls now running on this server, in start order.
        self.log_sinks: list[LogSink] = []

    def client_kwargs(self) -> dict[str, Any]:
        return {
            "list_roots_callback": self.list_roots,
            "elicitation_callback": self.elicit,
            "sampling_callback": self.sample,
            "logging_callback": self.on_log_message,
            "log_level": "info",
        }

    # -- roots -----------------------------------------------------------------------

    async def list_roots(self, context: Any) -> types.ListRootsResult:
        roots = []
        for path in self._roots():
            resolved = Path(path).expanduser().resolve()
            roots.append(types.Root(uri=resolved.as_uri(), name=resolved.name or str(resolved)))  # type: ignore[arg-type]
        return types.ListRootsResult(roots=roots)

    # -- elicitation -----------------------------------------------------------------

    async def elicit(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult | types.ErrorData:
        if not isinstance(params, types.ElicitRequestFormParams):
            # URL mode sends the user to a web page; nothing here can open one on the user's behalf.
            self._note("warning", "asked to open a URL for input; declined (URL elicitation is not supported)")
            return types.ElicitResult(action="decline")
        elicit = self._hooks.elicit
        if elicit is None:
            self._note("warning", f"asked for input ({params.message[:200]!r}); {NO_FORMS}")
            return types.ElicitResult(action="decline", _meta={"relavium/reason": NO_FORMS})
        schema = params.requested_schema
        schema_json = schema if isinstance(schema, dict) else schema.model_dump(mode="json", by_alias=True, exclude_none=True)
        answer = await elicit(ElicitationRequest(self.server, params.message, dict(schema_json)))
        content = answer.content if answer.action == "accept" else None
        return types.ElicitResult(action=answer.action, content=content)

    # -- sampling --------------------------------------------------------------------

    async def sample(
        self, context: Any, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult | types.ErrorData:
        if not self.entry.allow_sampling:
            return types.ErrorData(
                code=types.INVALID_REQUEST,
                message=(
                    f"sampling is off for MCP server {self.server!r}; to let it use your model, "
                    f"set 'allowSampling: true' on its entry in {CONFIG_FILE} (Settings -> MCP servers)"
                ),
            )
        sample = self._hooks.sample
        if sample is None:
            return types.ErrorData(
                code=types.INVALID_REQUEST,
                message=f"sampling for MCP server {self.server!r} is allowed, but this surface has no model to answer it",
            )
        request = SamplingRequest(
            server=self.server,
            messages=tuple((m.role, _text_of(m)) for m in params.messages),
            system_prompt=params.system_prompt,
            max_tokens=params.max_tokens,
        )
        try:
            answer = await sample(request)
        except Exception as exc:  # noqa: BLE001 - the surface refused or failed; the server gets a reason
            return types.ErrorData(code=types.INVALID_REQUEST, message=f"sampling was refused ({str(exc)[:300]})")
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text=answer.text), model=answer.model
        )

    # -- logging ---------------------------------------------------------------------

    async def on_log_message(self, params: types.LoggingMessageNotificationParams) -> None:
        self._deliver(str(params.level), log_text(params))

    def _note(self, level: str, text: str) -> None:
        self._deliver(level, f"relavium: {text}")

    def _deliver(self, level: str, text: str) -> None:
        sinks = list(self.log_sinks)
        if not sinks:
            log.log(_LEVELS.get(level, logging.INFO), "MCP server %s: %s", self.server, text)
            return
        for sink in sinks:
            try:
                sink(level, text)
            except Exception:  # a broken sink must not break the session's receive loop
                log.exception("an MCP log sink failed")
