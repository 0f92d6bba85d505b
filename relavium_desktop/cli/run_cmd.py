"""``relavium run``: run a workflow headless, or resume one paused at a human gate.

Exit status: 0 completed, 1 failed or cancelled, 2 invalid workflow or input,
or a provider an agent node needs has no key (checked before anything runs),
3 paused at a human gate (resume it later, from any process, with
``relavium gate approve|reject RUN_ID`` or ``relavium run --resume RUN_ID
--decision approve|reject``).  With ``--json`` stdout carries one run event
per line (NDJSON), ending with the terminal event (or ``run:paused``); a
fault before the run (exit 2) is one ``{"type": "error", "code", "message"}``
document on stderr and stdout stays empty, as upstream's CI tutorial has it.

When stdout goes away mid-run (``relavium run … | head``, a closed pipe) the
run is stopped, recorded as ``interrupted`` in history, and the command ends
quietly with exit status 1.  A run whose process died (killed, crashed) is
found by the store's liveness check and shows as ``interrupted`` too; such a
run continues from its last node-boundary checkpoint with ``relavium run
--resume RUN_ID`` (no decision): finished nodes are kept, nodes that were
running start again.  A run stopped on purpose (its output closed) cannot.
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relavium_desktop.cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError
from relavium_desktop.cli.jsonargs import load_json_option
from relavium_desktop.cli.validate_cmd import (
    known_tool_ids,
    model_warnings,
    read_workflow,
    report_error,
    report_invalid,
)

if TYPE_CHECKING:
    from relavium_desktop.store.runs import RunStore

EXIT_PAUSED = 3


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", nargs="?", help="a .relavium.yaml workflow")
    p.add_argument("--input", action="append", default=[], metavar="KEY=VALUE", help="a workflow input")
    p.add_argument("--workspace", help="workspace folder (default: the current folder)")
    p.add_argument("--tier", choices=["sandboxed", "project", "full"], default="project")
    p.add_argument("--resume", metavar="RUN_ID", help="resume a run paused at a human gate (with --decision), "
                   "or continue an interrupted one from its last checkpoint (alone)")
    p.add_argument("--decision", choices=["approve", "reject"], help="the gate decision (with --resume)")
    p.add_argument("--gate", metavar="GATE_ID", help="which pending gate (when several are open)")
    p.add_argument("--payload", help="gate payload as JSON (or @file.json)")
    p.add_argument("--hold-gates", action="store_true",
                   help="stay running while a pending human gate has a timeout_ms and apply its "
                        "timeout_action when it runs out (instead of exiting 3 at once)")
    p.add_argument("--providers", help="provider settings file for agent nodes "
                   "(default: $RELAVIUM_HOME/providers.yaml)")
    p.add_argument("--approve-mcp", action="append", default=[], metavar="NAME",
                   help="let this stdio MCP server the workflow declares start (repeatable)")
    p.add_argument("--json", action="store_true", help="print NDJSON run events only")


def _format(event: dict[str, Any], as_json: bool) -> str | None:
    if as_json:
        return json.dumps(event, ensure_ascii=False, default=str) + "\n"
    kind = event["type"]
    if kind == "agent:token":
        return None
    # Node ids, gate messages and error texts come from the workflow's author, its models and
    # tools: one line each, through the display rule, so no control or bidi character rewrites it.
    return _shown(f"[{event['sequenceNumber']}] {_words(kind, event)}") + "\n"


def _shown(text: str) -> str:
    from relavium_desktop.engine.display_text import one_spaced, show_line

    return show_line(one_spaced(text))


def _words(kind: str, event: dict[str, Any]) -> str:
    from relavium_desktop.engine.workflow.budget_words import budget_words

    words = budget_words(event)
    if words is not None:
        if kind == "budget:paused" and event.get("runId"):
            words += f"; answer with relavium gate approve {event['runId']} (or reject)"
        return f"budget: {words}"
    node = f" {event['nodeId']}" if "nodeId" in event else ""
    extra = ""
    if kind in {"node:failed", "run:failed"}:
        err = event.get("error", {})
        extra = f": {err.get('code')}: {err.get('message')}"
    elif kind == "node:skipped":
        extra = f" ({event.get('reason')})"
    elif kind in ("human_gate:paused", "agent:retrying"):  # a gate's question; "rate limited, retrying in 5 s"
        extra = f": {event.get('message')}"
    return f"{kind}{node}{extra}"


def _discard_stdout() -> None:
    """Point a vanished stdout at the null device, so the exit-time flush is quiet (no "Exception ignored")."""
    own = sys.__stdout__
    try:
        if own is None or sys.stdout is not own:
            raise ValueError("not the process's own stdout")
        fd = own.fileno()
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, fd)
        finally:
            os.close(devnull)
    except (OSError, ValueError):
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 -- lives until exit


class _Printer:
    """Prints each run event; when stdout goes away it stops the run instead of raising into the engine."""

    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json
        self.lost: str | None = None  # why stdout could not be written, once it could not
        self.on_lost: Callable[[], None] | None = None

    def __call__(self, event: dict[str, Any]) -> None:
        if self.lost is not None:
            return
        text = _format(event, self.as_json)
        if text is None:
            return
        try:
            if sys.stdout is None:
                raise BrokenPipeError(errno.EPIPE, "stdout is closed")
            sys.stdout.write(text)
            sys.stdout.flush()
        except (OSError, ValueError) as exc:  # EPIPE (| head), a closed or failing stdout
            self._lose(exc)

    def _lose(self, exc: OSError | ValueError) -> None:
        if isinstance(exc, OSError) and not isinstance(exc, BrokenPipeError):
            self.lost = f"writing the run's output failed ({exc.strerror or type(exc).__name__})"
        else:
            self.lost = "stdout was closed before the run ended"
        _discard_stdout()
        if self.on_lost is not None:
            self.on_lost()


def _parse_inputs(pairs: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--input expects KEY=VALUE, got {pair!r}")
        out[key] = value
    return out


def run(args: argparse.Namespace) -> int:
    from relavium_desktop.cli.settings_notices import say_all
    from relavium_desktop.host.datadir import data_dir as _home

    say_all(_home(), as_json=bool(getattr(args, "json", False)))  # a settings file running on its .bak is said before anything else
    from relavium_desktop.engine.workflow.errors import InputError, WorkflowError
    from relavium_desktop.engine.workflow.inputs import coerce_text_inputs
    from relavium_desktop.engine.workflow.loader import load_workflow
    from relavium_desktop.engine.workflow.run import GateDecision
    from relavium_desktop.host.mcp.config import McpConfigError
    from relavium_desktop.services import (
        build_workflow_engine,
        cli_mcp_hooks,
        consent_needed_message,
        mcp_from_surface,
        mcp_servers_of,
        mcp_surface,
        run_store,
        run_with_mcp,
        unconsented_stdio_servers,
        workflow_mcp_block,
        workflow_tool_ids,
    )

    if args.resume and args.file:
        raise UsageError("give either FILE or --resume RUN_ID, not both")
    if not args.resume and not args.file:
        raise UsageError("missing FILE (or --resume RUN_ID)")
    if not args.resume and (args.decision or args.gate or args.payload):
        raise UsageError("--decision, --gate and --payload go with --resume")

    store = run_store()  # opening marks runs whose process died as interrupted
    try:
        row = store.get_run(args.resume) if args.resume else None
        continuing = row is not None and row["status"] == "interrupted"
        if continuing:
            assert row is not None
            if args.decision or args.gate or args.payload:
                raise UsageError("an interrupted run continues from its checkpoint: give --resume RUN_ID alone")
            checkpoint = store.continuable_checkpoint(args.resume)
            if checkpoint is None:
                report_error("validation", _not_resumable(row), args.json)
                return EXIT_USAGE
        elif args.resume and not args.decision:
            raise UsageError("--resume needs --decision approve|reject (or an interrupted run's id alone)")
        else:
            checkpoint = store.load_checkpoint(args.resume) if args.resume else None
        if args.resume and checkpoint is None:
            report_error("validation", f"no paused run with id {args.resume!r}", args.json)
            return EXIT_USAGE
        surface = (checkpoint or {}).get("surface", {})
        workspace = Path(args.workspace or surface.get("workspace") or ".").expanduser().resolve()
        if not workspace.is_dir():
            raise UsageError(f"--workspace: {args.workspace or workspace} is not a folder")
        tier = args.tier if args.workspace or not surface.get("tier") else surface["tier"]

        wf = None
        mcp_block: dict[str, Any] = {}
        saved_tool_ids: list[str] = []
        if not args.resume:
            try:
                text, name, read_ref = read_workflow(args.file)
            except OSError as exc:
                report_error("validation", f"cannot read {args.file}: {exc.strerror or exc}", args.json)
                return EXIT_USAGE
            try:
                wf = load_workflow(text, name, read_ref=read_ref, known_tools=known_tool_ids())
                # The workflow's own servers and those its agents' files declare, as one block.
                mcp_block = workflow_mcp_block(wf)
            except WorkflowError as exc:
                report_invalid(exc, args.json)
                return EXIT_USAGE
            except McpConfigError as exc:
                report_error("validation", f"{args.file}: {exc}", args.json)
                return EXIT_USAGE
            if not args.json:  # under --json stderr is kept for a fault's document
                for line in model_warnings(wf, args.providers):
                    print(_shown(f"relavium: warning: {line}"), file=sys.stderr)
            missing = _missing_provider_keys(wf, args.providers)
            if missing:  # before anything runs: a key CI forgot to pass is a bad invocation, not a failed run
                report_error("provider_auth", "; ".join(missing), args.json)
                return EXIT_USAGE
        else:
            # A resumed run starts the servers it started with (kept in its checkpoint).
            try:
                mcp_block, saved_tool_ids = mcp_from_surface(surface)
            except McpConfigError as exc:
                report_error("validation", f"run {args.resume}: {exc}", args.json)
                return EXIT_USAGE
        # A workflow's own stdio server is a program the file chooses: refused before anything
        # starts unless approved now (--approve-mcp) or consented to in this project before.
        refused = unconsented_stdio_servers(mcp_block, args.approve_mcp, project=workspace)
        if refused:
            report_error("tool_denied", "; ".join(consent_needed_message(n) for n in refused), args.json)
            return EXIT_FAILED

        # Author trust: no approval regime headless; the policy's allowlists still apply.
        engine = build_workflow_engine(workspace=workspace, tier=tier, journal=store, providers_file=args.providers,
                                       hold_gates=args.hold_gates, mcp_servers=mcp_block or None,
                                       mcp_hooks=cli_mcp_hooks(args.approve_mcp, project=workspace))
        tool_ids = workflow_tool_ids(wf) if wf is not None else saved_tool_ids
        mcp_servers = mcp_servers_of(engine.registry.host, tool_ids)
        printer = _Printer(args.json)
        try:
            if continuing:
                if not args.json:
                    print(f"continuing run {args.resume} from its last checkpoint; nodes that were running "
                          "when it stopped start again", file=sys.stderr)
                wf_run = engine.resume_interrupted(args.resume, on_event=printer)
            elif args.resume:
                decision = GateDecision(
                    "approved" if args.decision == "approve" else "rejected",
                    decided_by="cli",
                    payload=load_json_option("--payload", args.payload),
                    comment=getattr(args, "comment", None),  # ``relavium gate reject --reason``
                )
                wf_run = engine.resume(args.resume, decision, gate_id=args.gate, on_event=printer)
                if decision.decision == "approved":  # what still runs needs its keys, checked before it runs
                    status = wf_run.state["status"]
                    missing = _missing_provider_keys(wf_run.workflow, args.providers,
                                                     pending={n for n, s in status.items() if s == "pending"})
                    if missing:
                        report_error("provider_auth", "; ".join(missing), args.json)
                        return EXIT_USAGE
            else:
                assert wf is not None
                inputs = coerce_text_inputs(wf.file.workflow.inputs, _parse_inputs(args.input))
                wf_run = engine.start(wf, inputs, on_event=printer,
                                      surface={"workspace": str(workspace), "tier": tier,
                                               **mcp_surface(mcp_block, tool_ids)})
                if not args.json:  # the id first, so a run killed midway can be found and resumed
                    print(f"run {wf_run.run_id} started", file=sys.stderr, flush=True)
            printer.on_lost = wf_run.cancel
            try:
                result = asyncio.run(run_with_mcp(engine.registry, mcp_servers, wf_run.run,
                                                   on_problem=lambda line: print(_shown(f"relavium: {line}"), file=sys.stderr)))
            except Exception as exc:
                _record_crash(store, wf_run.run_id, exc)
                raise
        except WorkflowError as exc:
            report_invalid(exc, args.json)
            return EXIT_USAGE
        except InputError as exc:
            report_error("validation", str(exc), args.json)
            return EXIT_USAGE
        if printer.lost is not None and result.status != "paused":
            # Nobody received the terminal event: not completed, not cancelled by the user.
            # (A paused run keeps its gate: nothing was lost, it can still be resumed.)
            store.mark_interrupted(result.run_id, "output_closed", f"{printer.lost}; the run was stopped")
    finally:
        store.close()

    if printer.lost is not None:
        return EXIT_FAILED
    if result.status == "paused":
        if not args.json:
            for gate in result.pending_gates:
                print(_shown(f"paused at gate {gate['nodeId']}; resume with: relavium run --resume {result.run_id} "
                             "--decision approve|reject"), file=sys.stderr)
        return EXIT_PAUSED
    if result.status == "completed":
        if not args.json:
            print(f"run {result.run_id} completed", file=sys.stderr)
        return EXIT_OK
    if not args.json:
        print(f"run {result.run_id} {result.status}", file=sys.stderr)
    return EXIT_FAILED


def _missing_provider_keys(wf: Any, providers_file: str | None, pending: set[str] | None = None) -> list[str]:
    """The preflight: each agent node's provider has a key (keyring, its own reference or RELAVIUM_<P>_API_KEY).

    An unreadable provider settings file is left to the run, which fails the
    first agent node with the file's own message, as before.
    """
    from relavium_desktop.providers.config import ProviderConfigError
    from relavium_desktop.providers.preflight import missing_keys
    from relavium_desktop.providers.wiring import host_resolver
    from relavium_desktop.services import provider_entries

    try:
        entries = provider_entries(settings_file=Path(providers_file) if providers_file else None)
    except ProviderConfigError:
        return []
    return missing_keys(wf, entries, host_resolver(), pending=pending)


def _not_resumable(run: dict[str, Any]) -> str:
    """Why an interrupted run cannot continue: it was stopped on purpose, not cut off mid-run."""
    error = run.get("error") or {}
    why = f": {error['message']}" if isinstance(error, dict) and error.get("message") else ""
    return (f"run {run['id']!r} was interrupted{why}. It cannot continue: it was stopped rather than cut off "
            f"between two nodes; start the workflow again with: relavium run {run['source']}")


def _record_crash(store: RunStore, run_id: str, exc: BaseException) -> None:
    """A run the engine left unfinished on an unexpected error is interrupted, not running forever."""
    try:
        row = store.get_run(run_id)
        if row is not None and row["status"] == "running":
            store.mark_interrupted(run_id, "internal", f"the run stopped on an unexpected error ({type(exc).__name__})")
    except Exception:  # noqa: BLE001 -- recording is best effort; the original error propagates
        pass
