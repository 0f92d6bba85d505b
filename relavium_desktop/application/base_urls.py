"""The base-URL rule a surface applies to a URL the user types (a provider, a search server, an MCP server).

The rule is the host's egress policy: HTTPS, or plain HTTP only under an
explicit local opt-in, and never credentials in the URL.  A settings form
checks a typed URL with it before saving, so the refusal a user sees while
typing is the one the request would get later.
"""

from __future__ import annotations


def check_base_url_shape(url: str, *, allow_local: bool, opt_in: str) -> None:
    """Refuse ``url`` unless it is https:// (or http:// with ``allow_local``); no DNS lookup.

    Raises the engine's ``ToolDeniedError`` (``https_required``, credentials in
    the URL) or ``InvalidArgsError`` (malformed); ``opt_in`` is how the caller's
    form spells the opt-in, so the refusal says what to tick.
    """
    from relavium_desktop.host.egress.base_url import check_base_url_scheme

    check_base_url_scheme(url, allow_local=allow_local, opt_in=opt_in)
