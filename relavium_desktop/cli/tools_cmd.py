"""``relavium tools list``: the built-in, plugin and discovered MCP tools a model could be offered.

MCP tools are discovered from the user's ``mcp.yaml`` servers (each under its
own timeout) and listed as ``mcp_{server}_{tool}`` with ``"server"`` naming
where they come from.  A server that is down, hung or misconfigured does not
fail the listing: its reason goes to stderr, and with ``--json`` stdout stays
exactly the list.  A tool a server lists that is not offered (no or an
unusable schema, an empty name, one callable only as an MCP task, an id
clash) is a row with ``"skipped": true`` and its ``"reason"``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relavium_desktop.cli import EXIT_OK, UsageError
from relavium_desktop.cli.jsonargs import print_json

if TYPE_CHECKING:
    from relavium_desktop.application.app import Application


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["list"], help="what to do")
    p.add_argument("--workspace", help="folder stdio MCP servers start in by default (default: the current folder)")
    p.add_argument("--no-mcp", action="store_true", help="do not start MCP servers to discover their tools")
    p.add_argument("--mcp-timeout", type=float, default=15.0, metavar="SECONDS",
                   help="how long each MCP server may take to list its tools (default: 15)")
    p.add_argument("--json", action="store_true", help="print JSON only")


async def _discover(
    app: Application, workspace: Path, timeout_s: float
) -> tuple[list[Any], dict[str, str], list[str], list[Any]]:
    """(MCP tools, tool id -> server, problems, skipped tools); every started server is stopped before returning."""
    from relavium_desktop.application.hosting import open_host
    from relavium_desktop.application.mcp import cli_mcp_hooks
    from relavium_desktop.engine.tools.mcp_tools import mcp_tool_id

    hooks = cli_mcp_hooks((), project=workspace, consents=app.consents)
    async with open_host(app, workspace, surface="workflow", mcp_hooks=hooks, discover="all",
                         timeout_s=timeout_s) as hosted:
        found = hosted.discovery
    servers = {mcp_tool_id(t.server, t.name): t.server for r in found.reports if r.ok for t in r.tools}
    skipped = [*(t for r in found.reports if r.ok for t in r.skipped), *found.refused]
    return found.tools, servers, found.problems(), skipped


def run(args: argparse.Namespace) -> int:
    return _list(args.app, args)  # the entry point's Application, closed when the command returns


def _list(app: Application, args: argparse.Namespace) -> int:
    from relavium_desktop.application.tools import tool_registry

    if args.action != "list":
        raise UsageError(f"unknown action {args.action!r}")
    if args.mcp_timeout <= 0:
        raise UsageError("--mcp-timeout must be a positive number of seconds")
    workspace = Path(args.workspace or ".").expanduser()
    if not workspace.is_dir():
        raise UsageError(f"--workspace: {workspace} is not a folder")
    mcp_tools: list[Any] = []
    servers: dict[str, str] = {}
    skipped: list[Any] = []
    from relavium_desktop.cli.settings_notices import mcp_notice, plugins_notice, say

    say(plugins_notice(app.paths.home))
    if not args.no_mcp:
        say(mcp_notice(app.paths.home))
        mcp_tools, servers, problems, skipped = asyncio.run(_discover(app, workspace.resolve(), args.mcp_timeout))
        for line in problems:
            print(f"relavium: {line}", file=sys.stderr)
    # Listing needs no capability: a bare registry describes the same tools.
    tools = tool_registry(home=app.paths.home, extra_tools=mcp_tools).describe()
    for row in tools:
        if row["id"] in servers:
            row["server"] = servers[row["id"]]
    tools += [_skipped_row(t) for t in skipped]
    if args.json:
        print_json(tools)
    else:
        width = max(len(t["id"]) for t in tools)
        for t in tools:
            if t.get("skipped"):
                print(f"{t['id']:<{width}}  {'skipped':<8}  {t['reason']}")
            else:
                print(f"{t['id']:<{width}}  {t['policy']['actionClass']:<8}  {t['description']}")
    return EXIT_OK


def _skipped_row(tool: Any) -> dict[str, Any]:
    """A listed MCP tool that is not offered, and why."""
    from relavium_desktop.engine.tools.mcp_tools import mcp_tool_id, server_prefix

    tool_id = mcp_tool_id(tool.server, tool.name) if tool.name.strip() else server_prefix(tool.server) + "(no name)"
    return {"id": tool_id, "source": "mcp", "server": tool.server, "name": tool.name, "skipped": True,
            "reason": tool.reason}
