"""``relavium agent run AGENT.yaml --prompt TEXT``: one headless agent run.

Governed actions (writes, processes, network, OS) are denied unless
``--approve-all`` names the action class: nobody is there to confirm them.
With ``--json`` stdout carries one run event per line, ending with the
terminal event.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
import uuid
from typing import TYPE_CHECKING

from relavium_desktop.application.agents import AgentFileError, load_agent
from relavium_desktop.cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError
from relavium_desktop.cli.agent_common import (
    UsageTally,
    add_common,
    describe_error,
    emit_json_line,
    headless_approval,
    policy_of,
    providers_of,
    warn_if_unconfined,
    workspace_of,
)
from relavium_desktop.engine.display_text import show_block, show_line

if TYPE_CHECKING:
    from relavium_desktop.application.app import Application

RISKS = ("fs_write", "process", "egress", "os")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["run"])
    p.add_argument("agent_file", metavar="AGENT.yaml")
    p.add_argument("--prompt", required=True, help="the user message")
    p.add_argument("--approve-all", action="append", default=[], metavar="RISK",
                   help=f"approve every governed action of this class ({', '.join(RISKS)}); repeatable")
    p.add_argument("--tier", choices=["sandboxed", "project", "full"], default="project")
    p.add_argument("--approve-mcp", action="append", default=[], metavar="NAME",
                   help="let this stdio MCP server, declared outside your mcp.yaml, start (repeatable)")
    add_common(p)
    p.add_argument("--json", action="store_true", help="NDJSON run events on stdout")


def run(args: argparse.Namespace) -> int:
    from relavium_desktop.cli.settings_notices import say_all

    app: Application = args.app  # the entry point's, closed when the command returns
    say_all(app.paths.home, as_json=bool(getattr(args, "json", False)))  # a settings file running on its .bak is said before anything else
    from relavium_desktop.application.hosting import own_host
    from relavium_desktop.application.mcp import (
        cli_mcp_hooks,
        consent_needed_message,
        mcp_servers_of,
        unconsented_stdio_servers,
        workflow_mcp_servers,
    )
    from relavium_desktop.application.tools import register_http_tools, surface_host, tool_registry
    from relavium_desktop.application.workflow_check import McpConfigError
    from relavium_desktop.engine.agent.loop import AgentLoop
    from relavium_desktop.engine.agent.runner import run_agent
    from relavium_desktop.engine.agent.tool_config import node_tool_configs, parameter_problems
    from relavium_desktop.engine.events import EventBus
    from relavium_desktop.engine.tools.mcp_tools import server_prefix
    from relavium_desktop.engine.tools.tooldef import ToolDispatchContext

    risks = {r for item in args.approve_all for r in item.split(",") if r}
    unknown = risks - set(RISKS)
    if unknown:
        raise UsageError(f"--approve-all: unknown risk {sorted(unknown)[0]!r}; one of {', '.join(RISKS)}")
    try:
        spec = load_agent(args.agent_file)
    except AgentFileError as exc:
        print(exc, file=sys.stderr)
        return EXIT_USAGE
    if spec.input_schema is not None:  # the agent's own input contract, checked before anything starts
        from relavium_desktop.engine.agent.spec_fields import input_problem

        problem = input_problem(spec.input_schema, args.prompt)
        if problem is not None:
            print(f"relavium: {args.agent_file}: --prompt: {problem}", file=sys.stderr)
            return EXIT_USAGE
    workspace = workspace_of(args.workspace)
    policy = policy_of(args.policy)
    warn_if_unconfined(policy)
    providers = providers_of(args.providers, app.paths)

    run_id = f"agent-{uuid.uuid4().hex[:12]}"
    bus = EventBus(clock=time.time, run_id=run_id)
    tally = UsageTally()
    if args.json:
        bus.subscribe(emit_json_line)
    else:
        bus.subscribe(tally.add)
        bus.subscribe(_human)
    try:
        agent_servers = workflow_mcp_servers(spec.mcp_servers, source=f"{args.agent_file}: mcp_servers")
    except McpConfigError as exc:
        print(exc, file=sys.stderr)
        return EXIT_USAGE
    # The agent file's own stdio servers start only when approved now or consented to before.
    refused = unconsented_stdio_servers(agent_servers, args.approve_mcp, project=workspace, consents=app.consents)
    if refused:
        for name in refused:
            print(f"relavium: {consent_needed_message(name, 'the agent file')}", file=sys.stderr)
        return EXIT_FAILED
    host = surface_host(workspace, tier=args.tier, surface="workflow", run_id=run_id, home=app.paths.home,
                        mcp_hooks=cli_mcp_hooks(args.approve_mcp, project=workspace, consents=app.consents),
                        mcp_servers=agent_servers or None)
    registry = tool_registry(host, home=app.paths.home)
    # The agent's own http tools (type: http); one that would shadow a known tool is a usage error.
    for problem in register_http_tools(registry, spec.http_tools):
        print(f"{args.agent_file}: http_tools: {problem}", file=sys.stderr)
        return EXIT_USAGE
    # mcp_<server>_<tool> ids are discovered from their servers when the run starts.
    mcp_servers = mcp_servers_of(host, [t for t in spec.tools if registry.get(t) is None])
    unknown_tools = [t for t in spec.tools if registry.get(t) is None
                     and not any(t.startswith(server_prefix(s)) for s in mcp_servers)]
    if unknown_tools:
        print(f"{args.agent_file}: unknown tool id(s) in tools: {', '.join(unknown_tools)}", file=sys.stderr)
        return EXIT_USAGE
    config_problems = parameter_problems(spec.tool_config, registry.get)
    if config_problems:
        for config_problem in config_problems:
            where = ".".join(config_problem.path)
            print(f"{args.agent_file}: tool_config.{where}: {config_problem.message}", file=sys.stderr)
        return EXIT_USAGE
    ctx = ToolDispatchContext(
        run_id=run_id, node_id=spec.id, granted_tool_ids=frozenset(spec.tools), policy=policy,
        fs_scope=args.tier, approval=headless_approval(risks), emit=bus.emit,
        tool_configs=node_tool_configs(spec.tool_config),
    )
    loop = AgentLoop(spec=spec, providers=providers, registry=registry, ctx=ctx, emit=bus.emit)

    async def main() -> str:
        # The block stops every MCP server the run started, however the run ends.
        async with own_host(registry) as hosted:
            try:
                for line in (await hosted.discover(mcp_servers)).problems():
                    print(f"relavium: {line}", file=sys.stderr)
                result = await run_agent(loop, args.prompt, emit=bus.emit)
            finally:
                if host.output_store is not None:
                    await host.output_store.reclaim(run_id)
        return result.status

    status = asyncio.run(main())
    if not args.json:
        # The answer is stdout; the one-line usage summary ends the plain output on stderr.
        print(f"relavium agent: {tally.line()}", file=sys.stderr)
    return EXIT_OK if status == "completed" else EXIT_FAILED


def _human(event: dict[str, object]) -> None:
    kind = event["type"]
    if kind == "agent:token":
        # On a terminal the reply is shown by the display rule (no escape sequence reaches it);
        # into a pipe or a file it is the output itself and stays as the model wrote it.
        token = str(event["token"])
        print(show_block(token) if sys.stdout.isatty() else token, end="", flush=True)
    elif kind == "agent:tool_call":
        print(f"\n[tool] {show_line(str(event['toolId']))}", file=sys.stderr)
    elif kind == "agent:tool_result" and not event.get("success"):
        print(f"[tool] {show_line(str(event['toolId']))} failed: {show_line(describe_error(event.get('error')))}",
              file=sys.stderr)
    elif kind == "agent:retrying":
        # Shown live: "rate limited, retrying in 5 s".
        print(f"\nrelavium agent: {event['message']}", file=sys.stderr, flush=True)
    elif kind == "node:retrying":
        seconds = int(str(event.get("delayMs") or 0)) / 1000
        print(f"\nrelavium agent: {describe_error(event.get('error'))}; attempt {event.get('attemptNumber')} "
              f"in {seconds:g} s", file=sys.stderr, flush=True)
    elif kind == "run:completed":
        print()
    elif kind in ("run:failed", "run:cancelled"):
        verb = "failed" if kind == "run:failed" else "cancelled"
        print(f"\nrelavium agent: run {verb}: {show_line(describe_error(event.get('error')))}", file=sys.stderr)
