"""``relavium gate list | approve RUN_ID | reject RUN_ID``: answer a human gate out of band.

A headless ``relavium run`` that reaches a ``human_gate`` exits 3 and leaves
the run paused; in CI nobody can answer a prompt.  ``gate list`` shows every
paused run's pending gates (or one run's), ``gate approve`` / ``gate reject``
answer one and drive the run on, from any process.  The decision takes the
very path ``relavium run --resume RUN_ID --decision approve|reject`` takes, so
it is a person's decision (decided by ``cli``): an approval vouches for a
gate-requiring tool downstream exactly as one given in the window does.

Exit status: ``list`` 0; ``approve``/``reject`` 0 completed, 1 failed, 2 an
unknown run or a run not waiting at a gate, 3 paused again at a later gate.
With ``--json``: ``list`` prints ``{"gates": [{runId, gateId, nodeId,
gateType, message, expiresAt?}]}``; ``approve``/``reject`` print the resumed
run's events as NDJSON, as ``run`` does; a fault is ``{"type": "error", ...}``
on stderr with stdout empty.
"""

from __future__ import annotations

import argparse
from typing import Any

from relavium_desktop.cli import EXIT_OK, EXIT_USAGE, UsageError
from relavium_desktop.cli.jsonargs import print_result
from relavium_desktop.cli.validate_cmd import report_error


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["list", "approve", "reject"], help="what to do")
    p.add_argument("run_id", metavar="RUN_ID", nargs="?",
                   help="the paused run (required for approve and reject; narrows list)")
    p.add_argument("--gate", metavar="GATE_ID", help="which pending gate (when the run has several)")
    p.add_argument("--reason", metavar="TEXT", help="why (reject only; recorded on the gate's decision)")
    p.add_argument("--payload", help="gate payload as JSON (or @file.json), approve only")
    p.add_argument("--providers", help="provider settings file for agent nodes "
                   "(default: $RELAVIUM_HOME/providers.yaml)")
    p.add_argument("--approve-mcp", action="append", default=[], metavar="NAME",
                   help="let this stdio MCP server the workflow declares start (repeatable)")
    p.add_argument("--json", action="store_true", help="print JSON only")


def run(args: argparse.Namespace) -> int:
    if args.action == "list":
        if args.gate or args.reason or args.payload:
            raise UsageError("gate list takes only an optional RUN_ID")
        return _list(args)
    if not args.run_id:
        raise UsageError(f"gate {args.action} needs RUN_ID (see: relavium gate list)")
    if args.action == "approve" and args.reason:
        raise UsageError("--reason goes with reject")
    if args.action == "reject" and args.payload:
        raise UsageError("--payload goes with approve")
    problem = _not_waiting(args.run_id)
    if problem is not None:
        report_error("validation", problem, args.json)
        return EXIT_USAGE
    from relavium_desktop.cli import run_cmd

    resume = argparse.Namespace(
        file=None, input=[], workspace=None, tier="project", resume=args.run_id, decision=args.action,
        gate=args.gate, payload=args.payload, hold_gates=False, providers=args.providers,
        approve_mcp=args.approve_mcp, json=args.json, comment=args.reason,
    )
    code: int = run_cmd.run(resume)
    return code


def _not_waiting(run_id: str) -> str | None:
    """Why ``run_id`` cannot take a gate decision, or None when it is paused at one."""
    from relavium_desktop.services import run_store

    store = run_store()
    try:
        row = store.get_run(run_id)
    finally:
        store.close()
    if row is None:
        return f"no run with id {run_id!r} (see: relavium gate list)"
    if row["status"] != "paused":
        return f"run {run_id!r} is {row['status']}, not waiting at a human gate"
    return None


def pending_gates(run_id: str | None) -> list[dict[str, Any]]:
    """Every pending gate of the paused runs (or of ``run_id``), oldest run first, from their checkpoints.

    The checkpoint is what ``--resume`` answers, so the listing and the
    decision can never disagree on what is pending.
    """
    from relavium_desktop.services import run_store

    store = run_store()
    try:
        if run_id is not None:
            row = store.get_run(run_id)
            if row is None:
                raise UsageError(f"no run with id {run_id!r}")
            rows = [row] if row["status"] == "paused" else []
        else:
            rows = list(reversed(store.list_runs(status="paused", limit=10_000)))
        out: list[dict[str, Any]] = []
        for r in rows:
            state = store.load_checkpoint(r["id"]) or {}
            for node_id, gate in (state.get("gates") or {}).items():
                item = {"runId": r["id"], "gateId": gate.get("gateId"), "nodeId": node_id,
                        "gateType": gate.get("gateType"), "message": gate.get("message")}
                if gate.get("expiresAt"):
                    item["expiresAt"] = gate["expiresAt"]
                out.append(item)
        return out
    finally:
        store.close()


def _list(args: argparse.Namespace) -> int:
    from relavium_desktop.engine.display_text import show_line

    gates = pending_gates(args.run_id)
    lines = [f"{g['runId']}  {g['gateId']}  {g['gateType']}  node={g['nodeId']}  "
             f"\"{show_line(str(g['message'] or ''))}\"" for g in gates]
    if not gates:
        lines.append("no pending human gates" + (f" for run {args.run_id}" if args.run_id else ""))
    print_result(args.json, {"gates": gates}, "\n".join(lines))
    return EXIT_OK
