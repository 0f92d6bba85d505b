"""``relavium gate list | approve RUN_ID | reject RUN_ID``: answer a human gate out of band.

A headless ``relavium run`` that reaches a ``human_gate`` exits 3 and leaves
the run paused; in CI nobody can answer a prompt.  ``gate list`` shows every
paused run's pending gates (or one run's), ``gate approve`` / ``gate reject``
answer one and drive the run on, from any process.  The decision takes the
one path every surface answers a gate through (``RunService.answer_gate``, as
``relavium run --resume`` and the window do), so it is a person's decision (decided by ``cli``): an approval vouches for a
gate-requiring tool downstream exactly as one given in the window does.

Exit status: ``list`` 0; ``approve``/``reject`` 0 completed, 1 failed, 2 an
unknown run, a run not waiting at a gate or a gate already answered (said
so, with who answered it when known), 3 paused again at a later gate.
With ``--json``: ``list`` prints ``{"gates": [{runId, gateId, nodeId,
gateType, message, expiresAt?}]}``; ``approve``/``reject`` print the resumed
run's events as NDJSON, as ``run`` does; a fault is ``{"type": "error", ...}``
on stderr with stdout empty.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from relavium_desktop.cli import EXIT_OK, UsageError
from relavium_desktop.cli.jsonargs import load_json_option, print_result

if TYPE_CHECKING:
    from relavium_desktop.application.app import Application


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["list", "approve", "reject"], help="what to do")
    p.add_argument(
        "run_id",
        metavar="RUN_ID",
        nargs="?",
        help="the paused run (required for approve and reject; narrows list)",
    )
    p.add_argument("--gate", metavar="GATE_ID", help="which pending gate (when the run has several)")
    p.add_argument("--reason", metavar="TEXT", help="why (reject only; recorded on the gate's decision)")
    p.add_argument("--payload", help="gate payload as JSON (or @file.json), approve only")
    from relavium_desktop.cli.run_cmd import add_run_environment

    add_run_environment(p)
    p.add_argument("--json", action="store_true", help="print JSON only")


def run(args: argparse.Namespace) -> int:
    if args.action == "list":
        if args.gate or args.reason or args.payload:
            raise UsageError("gate list takes only an optional RUN_ID")
    elif not args.run_id:
        raise UsageError(f"gate {args.action} needs RUN_ID (see: relavium gate list)")
    elif args.action == "approve" and args.reason:
        raise UsageError("--reason goes with reject")
    elif args.action == "reject" and args.payload:
        raise UsageError("--payload goes with approve")
    app: Application = args.app  # the entry point's, closed when the command returns
    if args.action == "list":
        return _list(app, args)
    return _answer(app, args)


def _answer(app: Application, args: argparse.Namespace) -> int:
    """Answer the gate through the one path every surface takes; the resumed run prints as ``run`` prints."""
    from relavium_desktop.cli.run_cmd import RunSession
    from relavium_desktop.engine.workflow.run import GateDecision

    run_id: str = args.run_id
    decision = GateDecision(
        "approved" if args.action == "approve" else "rejected",
        decided_by="cli",
        payload=load_json_option("--payload", args.payload),
        comment=args.reason,
    )
    session = RunSession(app, as_json=args.json, approve_mcp=args.approve_mcp, providers=args.providers)
    return session.drive(
        lambda: session.service.answer_gate(run_id, decision, args.gate, on_event=session.printer),
        announce=lambda _h: None,
        unknown=f"no run with id {run_id!r} (see: relavium gate list)",
        not_paused=lambda status: f"run {run_id!r} is {status}, not waiting at a human gate",
    )


def _list(app: Application, args: argparse.Namespace) -> int:
    from relavium_desktop.application.runs import RunService, UnknownRun
    from relavium_desktop.engine.display_text import show_line

    try:
        gates = RunService(app).pending_gates(args.run_id)
    except UnknownRun as exc:
        raise UsageError(str(exc)) from None
    lines = [
        f"{g['runId']}  {g['gateId']}  {g['gateType']}  node={g['nodeId']}  "
        f'"{show_line(str(g["message"] or ""))}"'
        for g in gates
    ]
    if not gates:
        lines.append("no pending human gates" + (f" for run {args.run_id}" if args.run_id else ""))
    print_result(args.json, {"gates": gates}, "\n".join(lines))
    return EXIT_OK
