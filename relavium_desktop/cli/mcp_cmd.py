"""``relavium mcp resources|read URI|prompts|prompt NAME``: what the user's MCP servers offer besides tools.

(``login NAME``, ``logout NAME`` and ``status``, signing in to remote servers, live in :mod:`.mcp_auth_cmd`.)

The servers are the ones in ``$RELAVIUM_HOME/mcp.yaml``, reached through the
same host the app's Settings -> MCP servers page tests them with
(:meth:`McpHost.discover`, :meth:`McpHost.read_resource`,
:meth:`McpHost.get_prompt`), so a server the page shows as working answers
here the same way.  Every server started for a command is stopped before it
returns.

- ``resources`` / ``prompts`` list every server's (or ``--server``'s); a
  server that is down is a line on stderr (and an ``unavailable`` entry) and
  the others are still listed.
- ``read URI`` reads one resource.  Without ``--server`` the URI must be
  listed by exactly one server; a URI built from a resource template needs
  ``--server``.  Binary contents come back as media handles, never base64.
- ``prompt NAME [--arg KEY=VALUE ...]`` renders one prompt's messages; the
  prompt's required arguments are checked before the server is asked.

With ``--json`` stdout carries only one JSON document: ``{"ok": true, ...}``,
or ``{"ok": false, "error": {"code", "message"}}``.  Exit 0 success, 1 the
server failed or the resource/prompt is unknown, 2 usage (an unknown
``--server``, a missing argument).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relavium_desktop.cli import EXIT_FAILED, EXIT_OK, UsageError
from relavium_desktop.cli.jsonargs import action_failed, print_result

if TYPE_CHECKING:
    from relavium_desktop.application.app import Application
    from relavium_desktop.engine.host import McpCapability
    from relavium_desktop.engine.mcp_reports import ServerReport

ACTIONS = ("resources", "read", "prompts", "prompt", "login", "logout", "status")
DEFAULT_TIMEOUT_S = 15.0


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=ACTIONS, help="what to do")
    p.add_argument("target", nargs="?", metavar="URI|NAME",
                   help="the resource URI (read), prompt name (prompt) or server name (login, logout)")
    p.add_argument("--server", metavar="NAME", help="only this server (from mcp.yaml)")
    p.add_argument("--arg", action="append", default=[], metavar="KEY=VALUE",
                   help="a prompt argument (prompt; repeatable)")
    p.add_argument("--workspace", help="folder stdio MCP servers start in by default (default: the current folder)")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, metavar="SECONDS",
                   help=f"how long each server may take to answer its listing (default: {DEFAULT_TIMEOUT_S:g})")
    p.add_argument("--sign-in-timeout", type=float, default=300.0, metavar="SECONDS",
                   help="login: how long to wait for the browser to come back (default: 300)")
    p.add_argument("--json", action="store_true", help="print JSON only")


class _Failed(Exception):
    """A command that ran and failed: its error code and message (exit 1)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _prompt_args(pairs: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--arg {pair[:80]!r}: expected KEY=VALUE")
        if key in out:
            raise UsageError(f"--arg {key}: given twice")
        out[key] = value
    return out


def _check_args(args: argparse.Namespace) -> None:
    if args.action in ("read", "prompt") and not args.target:
        raise UsageError(f"mcp {args.action} needs a {'URI' if args.action == 'read' else 'prompt NAME'}")
    if args.action in ("resources", "prompts") and args.target:
        raise UsageError(f"mcp {args.action} takes no {args.target[:80]!r}; use --server to pick a server")
    if args.arg and args.action != "prompt":
        raise UsageError("--arg is for 'mcp prompt NAME'")
    if args.timeout <= 0:
        raise UsageError("--timeout must be a positive number of seconds")


def _servers(mcp: McpCapability, wanted: str | None, config: Path) -> list[str]:
    """The configured server names (only ``wanted`` when given); UsageError for an unknown one."""
    from relavium_desktop.application.mcp_settings import McpConfigError

    try:
        names: list[str] = mcp.server_names()
    except McpConfigError as exc:
        raise _Failed("tool_unavailable", f"MCP servers are misconfigured: {exc}") from None
    if not names:
        raise _Failed("tool_unavailable", f"no MCP servers are configured (add them to {config.name} "
                                          "in the Relavium data folder)")
    if wanted is None:
        return names
    if wanted not in names:
        raise UsageError(f"--server: {wanted[:64]!r} is not a configured MCP server; configured: {', '.join(names)}")
    return [wanted]


async def _reports(
    mcp: McpCapability, servers: list[str], timeout_s: float, strict: bool, down: list[dict[str, str]] | None = None
) -> list[ServerReport]:
    """The working servers' reports; a failed one is a stderr line and joins ``down`` (when ``strict``: the failure)."""
    reports = await mcp.discover(servers, timeout_s=timeout_s)
    ok: list[ServerReport] = []
    for report in reports:
        if report.ok:
            ok.append(report)
        elif strict:
            raise _Failed("tool_failed", f"MCP server {report.server}: unavailable: {report.error}")
        else:
            print(f"relavium: MCP server {report.server}: unavailable: {report.error}", file=sys.stderr)
            if down is not None:
                down.append({"server": report.server, "error": str(report.error)})
    return ok


def _resource_json(res: Any) -> dict[str, Any]:
    out = {"server": res.server, "uri": res.uri, "name": res.name}
    if res.mime_type:
        out["mimeType"] = res.mime_type
    if res.description:
        out["description"] = res.description
    return out


def _prompt_json(prompt: Any) -> dict[str, Any]:
    return {
        "server": prompt.server, "name": prompt.name, "description": prompt.description,
        "arguments": [{"name": n, "required": r, "description": d} for n, r, d in prompt.arguments],
    }


async def _list_resources(mcp: McpCapability, args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    down: list[dict[str, str]] = []
    reports = await _reports(mcp, _servers(mcp, args.server, args.app.paths.mcp_file), args.timeout, args.server is not None, down)
    rows = [_resource_json(r) for report in reports for r in report.resources]
    lines = [f"{r['server']}  {r['uri']}" + (f"  ({r['name']})" if r["name"] != r["uri"] else "")
             + (f"  [{r['mimeType']}]" if r.get("mimeType") else "") for r in rows]
    return {"ok": True, "resources": rows, "unavailable": down}, "\n".join(lines) or "no resources offered"


async def _list_prompts(mcp: McpCapability, args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    down: list[dict[str, str]] = []
    reports = await _reports(mcp, _servers(mcp, args.server, args.app.paths.mcp_file), args.timeout, args.server is not None, down)
    rows = [_prompt_json(p) for report in reports for p in report.prompts]
    lines = []
    for p in rows:
        params = ", ".join(a["name"] + ("*" if a["required"] else "") for a in p["arguments"])
        lines.append(f"{p['server']}  {p['name']}" + (f"({params})" if params else "")
                     + (f"  {p['description']}" if p["description"] else ""))
    return {"ok": True, "prompts": rows, "unavailable": down}, "\n".join(lines) or "no prompts offered"


def _content_text(item: dict[str, Any]) -> str:
    if isinstance(item.get("text"), str):
        return str(item["text"])
    ref = item.get("media") or item.get("note") or ""
    return f"[{item.get('mimeType', 'binary')}, {item.get('bytes', 0)} bytes: {ref}]"


async def _read(mcp: McpCapability, args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    uri: str = args.target
    if args.server is not None:
        server = _servers(mcp, args.server, args.app.paths.mcp_file)[0]
    else:
        reports = await _reports(mcp, _servers(mcp, None, args.app.paths.mcp_file), args.timeout, strict=False)
        listing = sorted({report.server for report in reports for r in report.resources if r.uri == uri})
        if not listing:
            raise _Failed("unknown_resource", f"no configured MCP server lists the resource {uri[:200]!r}; "
                                              "see 'relavium mcp resources', or name the server with --server "
                                              "(a URI made from a resource template is read that way)")
        if len(listing) > 1:
            raise UsageError(f"the resource {uri[:200]!r} is listed by {', '.join(listing)}; pick one with --server")
        server = listing[0]
    result = await mcp.read_resource(server, uri)
    text = "\n".join(_content_text(item) for item in result["contents"])
    return {"ok": True, "server": server, **result}, text


async def _prompt(mcp: McpCapability, args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    name: str = args.target
    given = _prompt_args(args.arg)
    reports = await _reports(mcp, _servers(mcp, args.server, args.app.paths.mcp_file), args.timeout, strict=args.server is not None)
    matches = [p for report in reports for p in report.prompts if p.name == name]
    if not matches:
        if args.server:
            message = f"MCP server {args.server!r} offers no prompt named {name[:100]!r}"
        else:
            message = f"no configured MCP server offers a prompt named {name[:100]!r}"
        raise _Failed("unknown_prompt", message + "; see 'relavium mcp prompts'")
    if len(matches) > 1:
        servers = ", ".join(sorted(p.server for p in matches))
        raise UsageError(f"the prompt {name[:100]!r} is offered by {servers}; pick one with --server")
    prompt = matches[0]
    known = {n for n, _, _ in prompt.arguments}
    missing = [n for n, required, _ in prompt.arguments if required and n not in given]
    if missing:
        raise UsageError(f"prompt {name[:100]!r} needs {', '.join(f'--arg {m}=VALUE' for m in missing)}")
    unknown = sorted(set(given) - known)
    if unknown:
        raise UsageError(f"prompt {name[:100]!r} takes no argument {', '.join(unknown)}"
                         + (f" (it takes: {', '.join(sorted(known))})" if known else " (it takes none)"))
    messages = await mcp.get_prompt(prompt.server, name, given)
    text = "\n\n".join(f"{m['role']}: {m['text']}" for m in messages)
    return {"ok": True, "server": prompt.server, "prompt": name, "messages": messages}, text


_ACTIONS: dict[str, Callable[[McpCapability, argparse.Namespace], Awaitable[tuple[dict[str, Any], str]]]] = {
    "resources": _list_resources, "read": _read, "prompts": _list_prompts, "prompt": _prompt,
}


async def _run(app: Application, workspace: Path, args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    from relavium_desktop.application.hosting import open_host
    from relavium_desktop.application.mcp import cli_mcp_hooks

    hooks = cli_mcp_hooks((), project=workspace, consents=app.consents)
    async with open_host(app, workspace, surface="workflow", mcp_hooks=hooks, mcp_roots=(workspace,)) as hosted:
        return await _ACTIONS[args.action](hosted.host.mcp_or_absent(), args)


def run(args: argparse.Namespace) -> int:
    from relavium_desktop.cli.mcp_auth_cmd import AUTH_ACTIONS, run_auth

    if args.action in AUTH_ACTIONS:
        return run_auth(args)
    _check_args(args)
    workspace = Path(args.workspace or ".").expanduser()
    if not workspace.is_dir():
        raise UsageError(f"--workspace: {workspace} is not a folder")
    return _answer(args.app, workspace.resolve(), args)  # the entry point's Application


def _answer(app: Application, workspace: Path, args: argparse.Namespace) -> int:
    from relavium_desktop.cli.settings_notices import mcp_notice, say
    from relavium_desktop.engine.errors import ToolError

    say(mcp_notice(app.paths.home))
    try:
        out, text = asyncio.run(_run(app, workspace, args))
    except _Failed as exc:
        return action_failed(args.json, f"mcp {args.action}", exc.code, exc.message)
    except ToolError as exc:
        return action_failed(args.json, f"mcp {args.action}", str(exc.code), exc.message)
    print_result(args.json, out, text)
    return EXIT_OK if out.get("ok") else EXIT_FAILED
