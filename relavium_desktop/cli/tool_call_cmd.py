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
import time
import uuid
from pathlib import Path
from typing import Any

from relavium_desktop.cli import EXIT_FAILED, EXIT_OK, UsageError
from relavium_desktop.cli.jsonargs import load_json_object, print_json

_TOOL_CONFIG_KEYS = {"parameters", "input_mapping", "output_mapping"}


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


def run(args: argparse.Namespace) -> int:
    from relavium_desktop.engine.events import EventBus
    from relavium_desktop.engine.tools.tooldef import ToolCall, ToolDispatchContext, ToolPolicy
    from relavium_desktop.services import surface_host, tool_registry

    model_args = load_json_object("--args", args.args_json)
    config = _node_config(load_json_object("--config", args.config))
    try:
        policy = ToolPolicy.from_json(load_json_object("--policy", args.policy))
    except ValueError as exc:
        raise UsageError(f"--policy: {exc}") from None
    workspace = Path(args.workspace or ".").expanduser()
    if not workspace.is_dir():
        raise UsageError(f"--workspace: {workspace} is not a folder")

    run_id = f"tool-{uuid.uuid4().hex[:12]}"
    # The call is its own run: it may read its own spill folder, no other run's.
    registry = tool_registry(surface_host(workspace, tier=args.tier, surface="workflow", run_id=run_id))
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
    outcome = asyncio.run(registry.dispatch(call, ctx))
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
