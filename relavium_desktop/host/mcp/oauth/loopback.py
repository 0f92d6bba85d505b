"""The redirect listener: 127.0.0.1 on a random port, one answer, then gone.

The authorization server sends the browser back to
``http://127.0.0.1:PORT/callback?code=...&state=...`` (RFC 8252 §7.3).  The
listener accepts exactly that: a ``state`` other than the one this sign-in
sent is refused (the page may have been opened by someone else, the classic
login CSRF), an ``error`` from the server is reported in words, and after
``timeout_s`` without an answer the sign-in gives up.  Anything else the
browser asks for (a favicon) gets a 404 and the wait goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import secrets
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

from relavium_desktop.engine.errors import ToolFailedError

CALLBACK_PATH = "/callback"
DEFAULT_TIMEOUT_S = 300.0

_DONE_PAGE = (
    "<!doctype html><meta charset=utf-8><title>Relavium</title>"
    "<body style='font-family:sans-serif;margin:48px'><h1>{title}</h1><p>{body}</p></body>"
)


class SignInRefused(ToolFailedError):
    """The sign-in ended without a usable answer; the message says why, with no secret in it."""


@dataclass(frozen=True, slots=True)
class Callback:
    code: str
    state: str
    iss: str | None


class LoopbackListener:
    """Bind with :meth:`start`, tell it the ``state`` to expect, then :meth:`wait` for the one answer."""

    def __init__(self, timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        self.timeout_s = timeout_s
        self._server: asyncio.Server | None = None
        self._answer: asyncio.Future[Callback] | None = None
        self._state: str | None = None
        self.port = 0

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{CALLBACK_PATH}"

    async def start(self) -> None:
        self._answer = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._handle, host="127.0.0.1", port=0)
        self.port = self._server.sockets[0].getsockname()[1]

    def expect_state(self, state: str) -> None:
        self._state = state

    async def wait(self) -> Callback:
        assert self._answer is not None, "start() first"
        try:
            async with asyncio.timeout(self.timeout_s):
                return await asyncio.shield(self._answer)
        except TimeoutError:
            raise SignInRefused(
                f"no answer from the browser within {self.timeout_s:g} s; the sign-in was abandoned"
            ) from None

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None
        if self._answer is not None and not self._answer.done():
            self._answer.cancel()

    def _settle(self, outcome: Callback | SignInRefused) -> None:
        if self._answer is None or self._answer.done():
            return
        if isinstance(outcome, SignInRefused):
            self._answer.set_exception(outcome)
        else:
            self._answer.set_result(outcome)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(10):
                head = await reader.readuntil(b"\r\n\r\n")
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            writer.close()
            return
        line = head.split(b"\r\n", 1)[0].decode("latin-1")
        parts = line.split(" ")
        target = parts[1] if len(parts) >= 2 else "/"
        url = urlsplit(target)
        if parts[0] != "GET" or url.path != CALLBACK_PATH or self._answer is None or self._answer.done():
            await self._reply(writer, 404, "Not found", "This address only takes the sign-in answer.")
            return
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        outcome = self._judge(query)
        if isinstance(outcome, SignInRefused):
            await self._reply(writer, 400, "Sign-in refused", str(outcome))
        else:
            await self._reply(writer, 200, "Signed in", "You can close this tab and go back to Relavium.")
        self._settle(outcome)

    def _judge(self, query: dict[str, str]) -> Callback | SignInRefused:
        state = query.get("state", "")
        if self._state is None or not secrets.compare_digest(state.encode(), self._state.encode()):
            return SignInRefused(
                "the sign-in answer's state does not match the request this app made, so it was refused "
                "(it may come from another page); sign in again"
            )
        if "error" in query:
            what = query.get("error_description") or query["error"]
            return SignInRefused(f"the server did not grant access: {what[:200]}")
        code = query.get("code")
        if not code:
            return SignInRefused("the sign-in answer carried no authorization code")
        return Callback(code=code, state=state, iss=query.get("iss"))

    @staticmethod
    async def _reply(writer: asyncio.StreamWriter, status: int, title: str, body: str) -> None:
        page = _DONE_PAGE.format(title=html.escape(title), body=html.escape(body)).encode()
        reason = {200: "OK", 400: "Bad Request", 404: "Not Found"}[status]
        writer.write(
            f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\n"
            f"Content-Length: {len(page)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n".encode()
            + page
        )
        with contextlib.suppress(ConnectionError):
            await writer.drain()
        writer.close()
