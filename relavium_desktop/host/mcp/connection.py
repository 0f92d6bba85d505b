"""One live MCP session, owned by its own task for the host's life.

The SDK's client is an async context manager built on anyio task groups,
which must be entered and exited by the same task.  A call arrives on
whatever task dispatched the tool, so each connection gets an owner task
that enters the client, publishes it, and waits to be told to close; calls
use the published client from their own task.  Closing (host shutdown, a
timed-out or cancelled call) sets the owner's event and waits for its exit,
which runs the transport's teardown (for stdio: stdin closed, tree killed).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from contextlib import AbstractAsyncContextManager
from typing import Any

from mcp.client import Client
from mcp_types import Implementation

CLOSE_WAIT_S = 10.0
CLIENT_INFO = Implementation(name="relavium-desktop", version="0.1.0")


class McpConnection:
    def __init__(
        self, transport: AbstractAsyncContextManager[Any], client_kwargs: Mapping[str, Any] | None = None
    ) -> None:
        """``client_kwargs`` are the session's callbacks (roots, elicitation, sampling, logging)."""
        self._transport = transport
        self._client_kwargs = dict(client_kwargs or {})
        self._ready: asyncio.Future[Client] | None = None
        self._closing = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.client: Client | None = None
        self.tools_listed = False  # the session knows the server's tools (see discovery.prime_tool_listing)

    async def open(self, timeout_s: float) -> Client:
        """Connect and handshake; raises what the connect raised (owner task then gone)."""
        self.loop = asyncio.get_running_loop()
        self._ready = self.loop.create_future()
        self._task = asyncio.create_task(self._own(), name="mcp-connection")
        try:
            async with asyncio.timeout(timeout_s):
                return await asyncio.shield(self._ready)
        except BaseException:
            await self.close()
            raise

    async def _own(self) -> None:
        assert self._ready is not None
        try:
            async with Client(self._transport, client_info=CLIENT_INFO, cache=None, **self._client_kwargs) as client:
                self.client = client
                self._ready.set_result(client)
                await self._closing.wait()
        except BaseException as exc:
            if not self._ready.done():
                if isinstance(exc, asyncio.CancelledError):
                    self._ready.cancel()
                else:
                    self._ready.set_exception(exc)
            if not isinstance(exc, Exception):
                raise
        finally:
            if self._ready.done() and not self._ready.cancelled():
                self._ready.exception()  # retrieved: no "never retrieved" warning

    @property
    def alive(self) -> bool:
        return (
            self._task is not None
            and not self._task.done()
            and not self._closing.is_set()
            and self.loop is asyncio.get_running_loop()
        )

    async def close(self) -> None:
        """Tear the session down; safe to call twice and from a cancelled caller."""
        self._closing.set()
        task = self._task
        if task is None or task.done():
            return
        if task.get_loop() is not asyncio.get_running_loop():
            return  # a loop that is gone; the transport's atexit net covers its child
        if self._ready is not None and not self._ready.done():
            task.cancel()  # still connecting: nothing to wind down politely
        done, _ = await asyncio.wait({task}, timeout=CLOSE_WAIT_S)
        if not done:
            task.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.wait({task}, timeout=CLOSE_WAIT_S)
