"""Remembering that a server asked for a sign-in mid-session, so a failed call can say so.

The OAuth provider raises :class:`SignInRequired` inside the HTTP client's
auth flow.  At connect time that error reaches the host (``_first_tool_error``),
but during a call the SDK's streamable-HTTP writer task swallows it and the
call only sees "Connection closed".  :class:`SignInWatch` sits between the
HTTP client and the provider and keeps the refusal, so the host can raise it
in the call's place: the surface then offers "Sign in" instead of showing a
closed connection.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

import httpx2

from relavium_desktop.engine.errors import ToolFailedError

SIGN_IN_REQUIRED = "sign_in_required"  # the reason a tool_failed result carries when a sign-in is needed


class SignInWatch(httpx2.Auth):
    """Delegates to ``inner`` (an httpx Auth) and keeps the last sign-in refusal it raised."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.requires_request_body = getattr(inner, "requires_request_body", False)
        self.requires_response_body = getattr(inner, "requires_response_body", False)
        self.refused: ToolFailedError | None = None

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        from relavium_desktop.host.mcp.oauth.provider import SignInRequired

        flow = self.inner.async_auth_flow(request)
        try:
            outgoing = await flow.__anext__()
            while True:
                response = yield outgoing
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        except SignInRequired as exc:
            self.refused = ToolFailedError(exc.message, reason=SIGN_IN_REQUIRED)
            raise
        finally:
            await flow.aclose()
