"""``relavium run``: run a workflow headless, or resume one paused at a human gate.

Exit status: 0 completed, 1 failed or cancelled, 2 invalid workflow or input,
or a provider an agent node needs has no key (checked before anything runs),
3 paused at a human gate (resume it later, from any process, with
``relavium gate approve|reject RUN_ID`` or ``relavium run --resume RUN_ID
--decision approve|reject``).  With ``--json`` stdout carries one run event
per line (NDJSON), ending with the terminal event (or ``run:paused``); a
fault before the run (exit 2) is one ``{"type": "error", "code", "message"}``
document on stderr and stdout stays empty, as upstream's CI tutorial has it.
Without ``--json`` each event is one line, a node's result is shown on its
``node:completed`` line (clipped), and a completed run's outputs follow
under ``outputs:``, one ``name: value`` each.

When stdout goes away mid-run (``relavium run … | head``, a closed pipe) the
run is stopped, recorded as ``interrupted`` in history, and the command ends
quietly with exit status 1.  A run whose process died (killed, crashed) is
found by the store's liveness check and shows as ``interrupted`` too; such a
run continues from its last node-boundary checkpoint with ``relavium run
--resume RUN_ID`` (no decision): finished nodes are kept, nodes that were
running start again.  A run stopped on purpose (its output closed) cannot.

The run itself is assembled by :class:`~relavium_desktop.application.runs.RunService`,
the same one the window uses; this module parses, words refusals for the
command line and prints.
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import json
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relavium_desktop.cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError
from relavium_desktop.cli.jsonargs import load_json_option
from relavium_desktop.cli.validate_cmd import (
    load_or_report,
    model_warnings,
    report_error,
    report_invalid,
)

if TYPE_CHECKING:
    from relavium_desktop.application.app import Application
    from relavium_desktop.application.runs import RunHandle, RunRefusal, RunService
    from relavium_desktop.engine.workflow.run import RunResult

EXIT_PAUSED = 3
NODE_RESULT_CHARS = 200  # a node's result on its node:completed line: enough to recognise it


def add_run_environment(p: argparse.ArgumentParser) -> None:
    """What a run (started, resumed or driven on by ``relavium gate``) needs for its agents and servers."""
    p.add_argument(
        "--providers", help="provider settings file for agent nodes (default: $RELAVIUM_HOME/providers.yaml)"
    )
    p.add_argument(
        "--approve-mcp",
        action="append",
        default=[],
        metavar="NAME",
        help="let this stdio MCP server the workflow declares start (repeatable)",
    )


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", nargs="?", help="a .relavium.yaml workflow")
    p.add_argument("--input", action="append", default=[], metavar="KEY=VALUE", help="a workflow input")
    p.add_argument("--workspace", help="workspace folder (default: the current folder)")
    p.add_argument("--tier", choices=["sandboxed", "project", "full"], default="project")
    p.add_argument(
        "--resume",
        metavar="RUN_ID",
        help="resume a run paused at a human gate (with --decision), "
        "or continue an interrupted one from its last checkpoint (alone)",
    )
    p.add_argument("--decision", choices=["approve", "reject"], help="the gate decision (with --resume)")
    p.add_argument("--gate", metavar="GATE_ID", help="which pending gate (when several are open)")
    p.add_argument("--payload", help="gate payload as JSON (or @file.json)")
    p.add_argument(
        "--hold-gates",
        action="store_true",
        help="stay running while a pending human gate has a timeout_ms and apply its "
        "timeout_action when it runs out (instead of exiting 3 at once)",
    )
    add_run_environment(p)
    p.add_argument("--json", action="store_true", help="print NDJSON run events only")


# -- printing ---------------------------------------------------------------------------


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
    elif kind in (
        "human_gate:paused",
        "agent:retrying",
    ):  # a gate's question; "rate limited, retrying in 5 s"
        extra = f": {event.get('message')}"
    elif kind == "node:completed":
        result = _readable(event.get("output"), NODE_RESULT_CHARS)
        extra = f": {result}" if result else ""
    return f"{kind}{node}{extra}"


def _readable(value: Any, limit: int) -> str:
    """A node's result as one masked line of at most ``limit`` characters (plus how much was cut)."""
    from relavium_desktop.engine.display_text import compact, one_spaced
    from relavium_desktop.engine.tools.masking import clip, mask_value

    if value is None:
        return ""
    if isinstance(value, dict) and value.get("truncated") is True and isinstance(value.get("preview"), str):
        value = value["preview"]  # an output too big for an event: its preview
    value = mask_value(value)
    text = value if isinstance(value, str) else compact(value)
    return clip(one_spaced(text), limit)


def _outputs_text(outputs: Mapping[str, Any]) -> str:
    """A completed run's outputs: ``outputs:`` then ``  name: value`` (a text's further lines indented)."""
    from relavium_desktop.engine.display_text import compact, show_block, show_line
    from relavium_desktop.engine.tools.masking import mask_value

    if not outputs:
        return "outputs: none\n"
    lines = ["outputs:"]
    for name, value in mask_value(dict(outputs)).items():
        if isinstance(value, str):
            first, *rest = show_block(value.rstrip("\n")).split("\n")
            lines.append(f"  {show_line(str(name))}: {first}")
            lines += [f"    {line}" for line in rest]
        else:
            lines.append(f"  {show_line(str(name))}: {show_line(compact(value))}")
    return "\n".join(lines) + "\n"


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
        text = _format(event, self.as_json)
        if text is not None:
            self.write(text)

    def write(self, text: str) -> None:
        if self.lost is not None:
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


# -- one command's runs -------------------------------------------------------------------


class RunSession:
    """One command's run: the service with the command line's hooks, the printer, the words and exit codes.

    ``relavium run`` and ``relavium gate approve|reject`` both drive runs
    through it, so they print, refuse and exit alike.
    """

    def __init__(
        self,
        app: Application,
        *,
        as_json: bool,
        approve_mcp: list[str],
        providers: str | None,
        hold_gates: bool = False,
    ) -> None:
        from relavium_desktop.application.mcp import cli_mcp_hooks
        from relavium_desktop.application.runs import RunService, RunSurface

        self.app = app
        self.as_json = as_json
        self.printer = _Printer(as_json)
        approved = list(approve_mcp)
        # Author trust: no approval regime headless; the policy's allowlists still apply.
        surface = RunSurface(
            mcp_hooks=lambda project: cli_mcp_hooks(approved, project=project, consents=app.consents),
            preapproved_mcp=approved,  # nobody to ask: a stdio server not approved or consented to is refused
            hold_gates=hold_gates,
            providers_file=Path(providers) if providers else None,
            on_problem=lambda line: print(_shown(f"relavium: {line}"), file=sys.stderr),
        )
        self.service: RunService = RunService(app, surface)

    def refused(
        self,
        exc: RunRefusal,
        *,
        unknown: str | None = None,
        not_paused: Callable[[str], str] | None = None,
        mcp_where: str | None = None,
    ) -> int:
        """Report a refusal in the command line's words; its exit status."""
        from relavium_desktop.application import runs
        from relavium_desktop.application.mcp import consent_needed_message

        message = str(exc)
        if isinstance(exc, runs.McpConsentNeeded):
            report_error(exc.code, "; ".join(consent_needed_message(n) for n in exc.servers), self.as_json)
            return EXIT_FAILED
        if isinstance(exc, runs.WorkspaceNotFound):
            raise UsageError(f"--workspace: {exc.workspace} is not a folder") from None
        if isinstance(exc, runs.UnknownRun) and unknown is not None:
            message = unknown
        elif isinstance(exc, runs.RunNotPaused) and not_paused is not None:
            message = not_paused(exc.status)
        elif isinstance(exc, runs.GateNotChosen):
            message = (
                f"run {exc.run_id!r} has {len(exc.pending)} pending gates; name one with --gate "
                f"({', '.join(exc.pending)})"
            )
        elif isinstance(exc, runs.GateAlreadyAnswered):
            how = f" ({exc.decision} by {exc.decided_by})" if exc.decision and exc.decided_by else ""
            message = f"gate {exc.gate_id} of run {exc.run_id!r} was already answered{how}"
        elif isinstance(exc, runs.RunNotContinuable) and exc.status == "interrupted":
            message = f"{exc}; start the workflow again with: relavium run {exc.source}"
        elif isinstance(exc, runs.McpServersInvalid) and mcp_where is not None:
            message = f"{mcp_where}: {exc}"
        report_error(exc.code, message, self.as_json)
        return EXIT_USAGE

    def drive(
        self,
        begin: Callable[[], RunHandle],
        *,
        announce: Callable[[RunHandle], str | None],
        unknown: str | None = None,
        not_paused: Callable[[str], str] | None = None,
        mcp_where: str | None = None,
    ) -> int:
        """Start the run ``begin`` assembles, print its events, and end with its exit status."""
        from relavium_desktop.application.runs import RunRefusal
        from relavium_desktop.engine.workflow.errors import WorkflowError

        async def main() -> RunResult:
            handle = begin()
            line = announce(handle)
            if line and not self.as_json:  # the id first, so a run killed midway can be found and resumed
                print(line, file=sys.stderr, flush=True)
            self.printer.on_lost = handle.cancel
            return await handle.result()

        try:
            result = asyncio.run(main())
        except RunRefusal as exc:
            return self.refused(exc, unknown=unknown, not_paused=not_paused, mcp_where=mcp_where)
        except WorkflowError as exc:  # a checkpointed workflow that no longer loads
            report_invalid(exc, self.as_json)
            return EXIT_USAGE
        return self._ended(result)

    def _ended(self, result: RunResult) -> int:
        printer = self.printer
        if printer.lost is None and result.status == "completed" and not self.as_json:
            printer.write(_outputs_text(result.outputs))
        if printer.lost is not None:
            if result.status != "paused":
                # Nobody received the terminal event: not completed, not cancelled by the user.
                # (A paused run keeps its gate: nothing was lost, it can still be resumed.)
                self.app.runs().mark_interrupted(
                    result.run_id, "output_closed", f"{printer.lost}; the run was stopped"
                )
            return EXIT_FAILED
        if result.status == "paused":
            if not self.as_json:
                for gate in result.pending_gates:
                    print(
                        _shown(
                            f"paused at gate {gate['nodeId']}; resume with: relavium run --resume "
                            f"{result.run_id} --decision approve|reject"
                        ),
                        file=sys.stderr,
                    )
            return EXIT_PAUSED
        if not self.as_json:
            print(f"run {result.run_id} {result.status}", file=sys.stderr)
        return EXIT_OK if result.status == "completed" else EXIT_FAILED


# -- the command --------------------------------------------------------------------------


def _parse_inputs(pairs: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--input expects KEY=VALUE, got {pair!r}")
        out[key] = value
    return out


def run(args: argparse.Namespace) -> int:
    if args.resume and args.file:
        raise UsageError("give either FILE or --resume RUN_ID, not both")
    if not args.resume and not args.file:
        raise UsageError("missing FILE (or --resume RUN_ID)")
    if not args.resume and (args.decision or args.gate or args.payload):
        raise UsageError("--decision, --gate and --payload go with --resume")
    from relavium_desktop.cli.settings_notices import say_all

    app: Application = args.app  # the entry point's, closed when the command returns
    say_all(app.paths.home, as_json=bool(args.json))  # a settings file running on its .bak is said first
    session = RunSession(
        app,
        as_json=args.json,
        approve_mcp=args.approve_mcp,
        providers=args.providers,
        hold_gates=args.hold_gates,
    )
    if args.resume:
        return _resume(args, session)
    return _start(args, session)


def _start(args: argparse.Namespace, session: RunSession) -> int:
    from relavium_desktop.engine.workflow.errors import InputError
    from relavium_desktop.engine.workflow.inputs import coerce_text_inputs

    workspace = Path(args.workspace or ".").expanduser().resolve()
    if not workspace.is_dir():
        raise UsageError(f"--workspace: {args.workspace or workspace} is not a folder")
    wf = load_or_report(args.file, session.app.paths, args.json)
    if wf is None:
        return EXIT_USAGE
    if not args.json:  # under --json stderr is kept for a fault's document
        for line in model_warnings(wf, args.providers, session.app.paths):
            print(_shown(f"relavium: warning: {line}"), file=sys.stderr)
        from relavium_desktop.application.sandbox import workflow_off_notices

        # One line per opt-out of the sandbox: the tools block's commands, each unconfined MCP server.
        for notice in workflow_off_notices(wf.file.workflow):
            print(_shown(f"relavium: warning: {notice}"), file=sys.stderr)
    try:
        inputs = coerce_text_inputs(wf.file.workflow.inputs, _parse_inputs(args.input))
    except InputError as exc:
        report_error("validation", str(exc), args.json)
        return EXIT_USAGE
    return session.drive(
        lambda: session.service.start(wf, inputs, workspace, args.tier, on_event=session.printer),
        announce=lambda handle: f"run {handle.run_id} started",
        mcp_where=args.file,
    )


def _resume(args: argparse.Namespace, session: RunSession) -> int:
    from relavium_desktop.engine.workflow.run import GateDecision

    run_id: str = args.resume
    row = session.service.run_record(run_id)  # reading it marks a run whose process died as interrupted
    workspace = Path(args.workspace) if args.workspace else None
    tier = args.tier if args.workspace else None  # else the tier the run was started with
    if row is not None and row["status"] == "interrupted":
        if args.decision or args.gate or args.payload:
            raise UsageError("an interrupted run continues from its checkpoint: give --resume RUN_ID alone")
        return session.drive(
            lambda: session.service.resume_interrupted(
                run_id, workspace=workspace, tier=tier, on_event=session.printer
            ),
            announce=lambda _h: (
                f"continuing run {run_id} from its last checkpoint; nodes that were running "
                "when it stopped start again"
            ),
        )
    if not args.decision:
        raise UsageError("--resume needs --decision approve|reject (or an interrupted run's id alone)")
    decision = GateDecision(
        "approved" if args.decision == "approve" else "rejected",
        decided_by="cli",
        payload=load_json_option("--payload", args.payload),
    )
    return session.drive(
        lambda: session.service.answer_gate(
            run_id, decision, args.gate, workspace=workspace, tier=tier, on_event=session.printer
        ),
        announce=lambda _h: None,
        unknown=f"no paused run with id {run_id!r}",
        not_paused=lambda status: f"no paused run with id {run_id!r}: it is {status}",
    )
