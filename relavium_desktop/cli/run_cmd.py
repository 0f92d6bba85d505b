"""``relavium run``: run a workflow headless, or resume one paused at a human gate.

Exit status: 0 completed, 1 failed or cancelled, 2 invalid workflow or input,
3 paused at a human gate (resume it later, from any process, with
``relavium run --resume RUN_ID --decision approve|reject``).  With ``--json``
stdout carries one run event per line (NDJSON), ending with the terminal
event (or ``run:paused``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from relavium_desktop.cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError
from relavium_desktop.cli.jsonargs import load_json_option
from relavium_desktop.cli.validate_cmd import known_tool_ids, read_workflow, report_error, report_invalid

EXIT_PAUSED = 3


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", nargs="?", help="a .relavium.yaml workflow")
    p.add_argument("--input", action="append", default=[], metavar="KEY=VALUE", help="a workflow input")
    p.add_argument("--workspace", help="workspace folder (default: the current folder)")
    p.add_argument("--tier", choices=["sandboxed", "project", "full"], default="project")
    p.add_argument("--resume", metavar="RUN_ID", help="resume a run paused at a human gate")
    p.add_argument("--decision", choices=["approve", "reject"], help="the gate decision (with --resume)")
    p.add_argument("--gate", metavar="GATE_ID", help="which pending gate (when several are open)")
    p.add_argument("--payload", help="gate payload as JSON (or @file.json)")
    p.add_argument("--hold-gates", action="store_true",
                   help="stay running while a pending human gate has a timeout_ms and apply its "
                        "timeout_action when it runs out (instead of exiting 3 at once)")
    p.add_argument("--providers", help="provider settings file for agent nodes "
                   "(default: $RELAVIUM_HOME/providers.yaml)")
    p.add_argument("--json", action="store_true", help="print NDJSON run events only")


def _printer(as_json: bool) -> Any:
    def on_event(event: dict[str, Any]) -> None:
        if as_json:
            sys.stdout.write(json.dumps(event, ensure_ascii=False, default=str) + "\n")
        else:
            kind = event["type"]
            if kind == "agent:token":
                return
            node = f" {event['nodeId']}" if "nodeId" in event else ""
            extra = ""
            if kind in {"node:failed", "run:failed"}:
                err = event.get("error", {})
                extra = f": {err.get('code')}: {err.get('message')}"
            elif kind == "node:skipped":
                extra = f" ({event.get('reason')})"
            elif kind == "human_gate:paused":
                extra = f": {event.get('message')}"
            sys.stdout.write(f"[{event['sequenceNumber']}] {kind}{node}{extra}\n")
        sys.stdout.flush()

    return on_event


def _parse_inputs(pairs: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--input expects KEY=VALUE, got {pair!r}")
        out[key] = value
    return out


def run(args: argparse.Namespace) -> int:
    from relavium_desktop.engine.workflow.errors import InputError, WorkflowError
    from relavium_desktop.engine.workflow.inputs import coerce_text_inputs
    from relavium_desktop.engine.workflow.loader import load_workflow
    from relavium_desktop.engine.workflow.run import GateDecision
    from relavium_desktop.host.datadir import data_dir
    from relavium_desktop.store.runs import RunStore
    from relavium_desktop.workflow_wiring import build_workflow_engine

    if args.resume and args.file:
        raise UsageError("give either FILE or --resume RUN_ID, not both")
    if not args.resume and not args.file:
        raise UsageError("missing FILE (or --resume RUN_ID)")
    if args.resume and not args.decision:
        raise UsageError("--resume needs --decision approve|reject")
    if not args.resume and (args.decision or args.gate or args.payload):
        raise UsageError("--decision, --gate and --payload go with --resume")

    store = RunStore.open(data_dir())
    try:
        checkpoint = store.load_checkpoint(args.resume) if args.resume else None
        if args.resume and checkpoint is None:
            report_error("validation", f"no paused run with id {args.resume!r}", args.json)
            return EXIT_USAGE
        surface = (checkpoint or {}).get("surface", {})
        workspace = Path(args.workspace or surface.get("workspace") or ".").expanduser().resolve()
        if not workspace.is_dir():
            raise UsageError(f"--workspace: {args.workspace or workspace} is not a folder")
        tier = args.tier if args.workspace or not surface.get("tier") else surface["tier"]

        # Author trust: no approval regime headless; the policy's allowlists still apply.
        engine = build_workflow_engine(workspace=workspace, tier=tier, journal=store, providers_file=args.providers,
                                       hold_gates=args.hold_gates)
        on_event = _printer(args.json)
        try:
            if args.resume:
                decision = GateDecision(
                    "approved" if args.decision == "approve" else "rejected",
                    decided_by="cli",
                    payload=load_json_option("--payload", args.payload),
                )
                wf_run = engine.resume(args.resume, decision, gate_id=args.gate, on_event=on_event)
            else:
                try:
                    text, name, read_ref = read_workflow(args.file)
                except OSError as exc:
                    report_error("validation", f"cannot read {args.file}: {exc.strerror or exc}", args.json)
                    return EXIT_USAGE
                wf = load_workflow(text, name, read_ref=read_ref, known_tools=known_tool_ids())
                inputs = coerce_text_inputs(wf.file.workflow.inputs, _parse_inputs(args.input))
                wf_run = engine.start(wf, inputs, on_event=on_event,
                                      surface={"workspace": str(workspace), "tier": tier})
            result = asyncio.run(wf_run.run())
        except WorkflowError as exc:
            report_invalid(exc, args.json)
            return EXIT_USAGE
        except InputError as exc:
            report_error("validation", str(exc), args.json)
            return EXIT_USAGE
    finally:
        store.close()

    if result.status == "paused":
        if not args.json:
            for gate in result.pending_gates:
                print(f"paused at gate {gate['nodeId']}; resume with: relavium run --resume {result.run_id} "
                      "--decision approve|reject", file=sys.stderr)
        return EXIT_PAUSED
    if result.status == "completed":
        if not args.json:
            print(f"run {result.run_id} completed", file=sys.stderr)
        return EXIT_OK
    if not args.json:
        print(f"run {result.run_id} {result.status}", file=sys.stderr)
    return EXIT_FAILED
