"""``relavium mcp login NAME | logout NAME | status``: signing in to remote MCP servers.

- ``login NAME`` opens the server's sign-in page in the browser (``$BROWSER``,
  else xdg-open/open; with neither, the address is printed to open by hand),
  waits for the redirect on 127.0.0.1 and stores the tokens in the keyring.
- ``logout NAME`` removes them.
- ``status`` shows every server: signed in (as whom, until when, local time),
  needs sign-in, or no sign-in (a local program, or a stored key).

With ``--json`` stdout carries one JSON document (``{"ok": true, ...}`` or
``{"ok": false, "error": {"code", "message"}}``); progress goes to stderr.
Exit 0 success, 1 the sign-in failed, 2 usage (an unknown or non-http server).
No token is ever printed: only the account's name and the expiry.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from relavium_desktop.cli import EXIT_OK, UsageError
from relavium_desktop.cli.jsonargs import action_failed, print_result

AUTH_ACTIONS = ("login", "logout", "status")


def _auth(args: argparse.Namespace) -> Any:
    from relavium_desktop.application.mcp_auth import McpAuth
    from relavium_desktop.application.secrets import secret_store

    return McpAuth(args.app.paths.home, secret_store())


def run_auth(args: argparse.Namespace) -> int:
    from relavium_desktop.application.mcp_auth import McpAuthError, terminal_browser
    from relavium_desktop.application.mcp_settings import McpConfigError
    from relavium_desktop.application.secrets import SecretStoreError

    where = f"mcp {args.action}"
    if args.action in ("login", "logout") and not args.target:
        raise UsageError(f"mcp {args.action} needs the NAME of a server from mcp.yaml")
    if args.action == "status" and args.target:
        raise UsageError("mcp status takes no NAME; it shows every server")
    auth = _auth(args)
    try:
        if args.action == "status":
            states = auth.status()
            rows = [s.to_json() for s in states]
            text = "\n".join(f"{s.server}  {s.words}" for s in states) or "no MCP servers are configured"
            print_result(args.json, {"ok": True, "servers": rows}, text)
            return EXIT_OK
        if args.action == "logout":
            removed = auth.logout(args.target)
            text = f"Signed out of {args.target}." if removed else f"{args.target} was not signed in."
            print_result(args.json, {"ok": True, "server": args.target, "signedOut": removed}, text)
            return EXIT_OK

        def say(line: str) -> None:
            print(line, file=sys.stderr, flush=True)

        result = asyncio.run(auth.login(args.target, terminal_browser(say), timeout_s=args.sign_in_timeout))
    except McpAuthError as exc:
        raise UsageError(str(exc)) from None
    except McpConfigError as exc:
        return action_failed(args.json, where, "tool_unavailable", f"MCP servers are misconfigured: {exc}")
    except SecretStoreError as exc:
        return action_failed(args.json, where, "tool_unavailable", str(exc))
    if not result.signed_in and result.required:
        return action_failed(args.json, where, "tool_failed", result.message)
    if not result.signed_in:
        out_none = {"ok": True, "server": result.server, "signedIn": False, "message": result.message}
        print_result(args.json, out_none, result.message)
        return EXIT_OK
    from relavium_desktop.application.mcp_auth import local_when

    until = f" The sign-in lasts until {local_when(result.expires_at)}." if result.expires_at else ""
    out = {
        "ok": True,
        "server": result.server,
        "signedIn": True,
        "account": result.account,
        "expires": local_when(result.expires_at) if result.expires_at else None,
    }
    print_result(args.json, out, result.message + until)
    return EXIT_OK
