"""``relavium tool call TOOL_ID``: one dispatch through the full pipeline.

Author-trust path: no approval regime, the policy and config come from the
command line as a workflow author would write them.  The call is not part of
a run, so a spill file stays under ``$RELAVIUM_HOME/runs/tool-<id>/`` and
the output names it; the start-up sweep removes it after the retention
period.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relavium_desktop.cli import EXIT_FAILED, EXIT_OK, UsageError
from relavium_desktop.cli.jsonargs import load_json_object, print_json

if TYPE_CHECKING:
    from relavium_desktop.application.app import Application
    from relavium_desktop.application.hosting import HostedTools
    from relavium_desktop.application.paths import AppPaths
    from relavium_desktop.engine.host import ToolHost
    from relavium_desktop.engine.tools.registry import DispatchOutcome
    from relavium_desktop.engine.tools.tooldef import ToolDef

_TOOL_CONFIG_KEYS = {"parameters", "input_mapping", "output_mapping"}
log = logging.getLogger("relavium.cli")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["call"])
    p.add_argument("tool_id", metavar="TOOL_ID")
    p.add_argument("--args", dest="args_json", help="model arguments as JSON (or @file.json)")
    p.add_argument(
        "--config",
        help="config-only values as JSON, or a tool_config object {parameters, input_mapping, output_mapping}",
    )
    p.add_argument("--policy", help='the workflow tools block, e.g. {"allowedCommands": ["git status"]}')
    p.add_argument("--workspace", help="workspace folder (default: the current folder)")
    p.add_argument("--tier", choices=["sandboxed", "project", "full"], default="project")
    p.add_argument("--gate-approved", action="store_true", help="a human gate approved this call")
    p.add_argument("--grant", action="append", default=None, metavar="ID", help="granted tool id (repeatable)")
    p.add_argument("--approve-mcp", action="append", default=[], metavar="NAME",
                   help="let this workflow-declared stdio MCP server start (repeatable)")
    p.add_argument("--http-tools", metavar="FILE",
                   help="a workflow or *.agent.yaml file whose http_tools (type: http) may be called by name")
    p.add_argument("--json", action="store_true", help="print JSON only")


def _node_config(raw: dict[str, Any]) -> Any:
    from relavium_desktop.engine.tools.tooldef import NodeToolConfig

    if raw and set(raw) <= _TOOL_CONFIG_KEYS:
        for key, value in raw.items():
            if not isinstance(value, dict):
                raise UsageError(f"--config: {key} must be a JSON object")
        return NodeToolConfig(
            parameters=raw.get("parameters", {}),
            input_mapping=raw.get("input_mapping", {}),
            output_mapping=raw.get("output_mapping", {}),
        )
    return NodeToolConfig(parameters=raw)


async def _add_mcp_tool(tool_id: str, hosted: HostedTools) -> None:
    """Discover the MCP servers ``tool_id`` could belong to (none for other ids) and register their tools.

    Only those servers are started.  When none of them offers ``tool_id``
    because a server is down or refused, the id is registered as a tool that
    fails ``tool_unavailable`` with that reason, so the answer says why
    instead of a bare ``unknown_tool``.
    """
    from relavium_desktop.application.mcp import mcp_servers_for_tools

    if not tool_id.startswith("mcp_") or hosted.registry.get(tool_id) is not None:
        return
    try:
        names = hosted.server_names()
    except Exception as exc:  # noqa: BLE001 -- McpConfigError: the reason is the answer
        hosted.registry.register(_unavailable(tool_id, f"MCP servers are misconfigured: {exc}"))
        return
    servers = mcp_servers_for_tools([tool_id], names)
    if not servers:
        return
    found = await hosted.discover(servers)
    if hosted.registry.get(tool_id) is None:
        problems = found.problems() or [f"no server among {', '.join(servers)} offers this tool"]
        hosted.registry.register(_unavailable(tool_id, "; ".join(problems)))


def _http_tools_from(path_text: str | None, paths: AppPaths) -> list[ToolDef]:
    """The ``type: http`` tools a workflow or agent file declares (its own and its agents'); UsageError if invalid."""
    if path_text is None:
        return []
    from relavium_desktop.application.agents import AgentFileError, load_agent
    from relavium_desktop.application.tools import http_tools, workflow_http_decls

    path = Path(path_text).expanduser()
    if not path.name.endswith(".agent.yaml"):
        from relavium_desktop.cli.validate_cmd import known_tool_ids, read_workflow
        from relavium_desktop.engine.workflow.errors import WorkflowError
        from relavium_desktop.engine.workflow.loader import load_workflow

        try:
            text, name, read_ref = read_workflow(path_text)
            loaded = load_workflow(text, name, read_ref=read_ref, known_tools=known_tool_ids(paths))
            return http_tools(workflow_http_decls(loaded))
        except OSError as exc:
            raise UsageError(f"--http-tools: cannot read {path_text} ({exc.strerror or type(exc).__name__})") from None
        except WorkflowError as exc:
            raise UsageError(f"--http-tools: {exc}") from None
    try:
        return http_tools(load_agent(path_text).http_tools)
    except AgentFileError as exc:
        raise UsageError(f"--http-tools: {exc}") from None


def _unavailable(tool_id: str, reason: str) -> ToolDef:
    from relavium_desktop.engine.errors import ToolUnavailableError
    from relavium_desktop.engine.tools.tooldef import PolicyClass, RawArgs
    from relavium_desktop.engine.tools.tooldef import ToolDef as Def

    async def dispatch(args: Any, host: ToolHost, ctx: Any) -> Any:
        raise ToolUnavailableError(f"{tool_id} is not available: {reason}")

    return Def(id=tool_id, description="unavailable MCP tool", args_model=RawArgs, dispatch=dispatch, source="mcp",
               policy=PolicyClass(egress="mcp"), input_schema={"type": "object"})


def _drop_empty_spill_folder(home: Path, run_id: str) -> None:
    """A call that spilled nothing leaves no ``runs/<run_id>/`` behind (rmdir removes only an empty one)."""
    import contextlib
    import os

    with contextlib.suppress(OSError):
        os.rmdir(home / "runs" / run_id)


def run(args: argparse.Namespace) -> int:
    return _call(args.app, args)  # the entry point's Application, closed when the command returns


def _call(app: Application, args: argparse.Namespace) -> int:
    from relavium_desktop.cli.settings_notices import say_all

    say_all(app.paths.home, as_json=bool(getattr(args, "json", False)))  # a settings file running on its .bak is said before anything else
    from relavium_desktop.application.hosting import open_host
    from relavium_desktop.application.mcp import cli_mcp_hooks
    from relavium_desktop.engine.events import EventBus
    from relavium_desktop.engine.tools.tooldef import ToolCall, ToolDispatchContext, ToolPolicy

    model_args = load_json_object("--args", args.args_json)
    config = _node_config(load_json_object("--config", args.config))
    try:
        policy = ToolPolicy.from_json(load_json_object("--policy", args.policy))
    except ValueError as exc:
        raise UsageError(f"--policy: {exc}") from None
    import sys

    from relavium_desktop.application.sandbox import off_notice

    # One line when --policy opts the command out of the sandbox: it runs with all of the user's rights.
    if args.tool_id == "run_command" and (notice := off_notice(policy.sandbox)) is not None:
        print(f"relavium: warning: {notice}", file=sys.stderr)
    workspace = Path(args.workspace or ".").expanduser()
    if not workspace.is_dir():
        raise UsageError(f"--workspace: {workspace} is not a folder")

    declared = _http_tools_from(args.http_tools, app.paths)
    run_id = f"tool-{uuid.uuid4().hex[:12]}"
    hooks = cli_mcp_hooks(args.approve_mcp, project=workspace.resolve(), consents=app.consents)
    bus = EventBus(clock=time.time, run_id=run_id)
    ctx = ToolDispatchContext(
        run_id=run_id,
        node_id="cli",
        granted_tool_ids=frozenset(args.grant or [args.tool_id]),
        config=config,
        policy=policy,
        fs_scope=args.tier,
        gate_approved=args.gate_approved,
        emit=bus.emit,
    )
    call = ToolCall(name=args.tool_id, args=model_args)
    # RELAVIUM_LOG=debug shows what was dispatched and how it ended (masked like every log line).
    log.debug("tool call %s (run %s), arguments %s", args.tool_id, run_id, json.dumps(model_args, default=str))

    async def main() -> DispatchOutcome:
        # The call is its own run: it may read its own spill folder, no other run's.  A one-shot
        # call ends the MCP servers it started (stdio: the process tree) when the block ends.
        async with open_host(app, workspace, tier=args.tier, surface="workflow", run_id=run_id, mcp_hooks=hooks,
                             extra_tools=declared) as hosted:
            await _add_mcp_tool(args.tool_id, hosted)
            return await hosted.registry.dispatch(call, ctx)

    outcome = asyncio.run(main())
    _drop_empty_spill_folder(app.paths.home, run_id)
    if outcome.error is not None:
        log.debug("tool call %s failed: %s: %s", args.tool_id, outcome.error.code, outcome.error.message)
    out = outcome.to_json()
    # The events exactly as a run would emit them: stamped by the bus.
    out["events"] = bus.history
    if outcome.ok and outcome.mapped:
        out["mapped"] = outcome.mapped
    if args.json:
        print_json(out)
    elif outcome.ok:
        print(outcome.model_facing)
    else:
        assert outcome.error is not None
        err = outcome.error
        print(f"{args.tool_id}: {err.code}{'/' + err.reason if err.reason else ''}: {err.message}")
    return EXIT_OK if outcome.ok else EXIT_FAILED
