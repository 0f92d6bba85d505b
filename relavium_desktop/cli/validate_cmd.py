"""``relavium validate FILE``: load and check a workflow without running it (exit 0 or 2).

With ``--json`` a valid workflow prints ``{"ok": true, ...}`` on stdout; an
invalid one prints nothing there and ``{"type": "error", "code":
"validation", "message", "issues": [...]}`` on stderr (the CI contract).

Also the CLI's host side of loading a workflow (shared with ``relavium run``):
the engine parses text only, so reading the file and its ``$ref`` agent files
(relative to the workflow file's folder) happens here.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relavium_desktop.cli import EXIT_OK, EXIT_USAGE
from relavium_desktop.cli.jsonargs import dumps_json, print_json

if TYPE_CHECKING:
    from relavium_desktop.application.paths import AppPaths
    from relavium_desktop.engine.tools.known_ids import KnownTools


def read_workflow(path_text: str) -> tuple[str, str, Any]:
    """(text, display name, ref reader); raises OSError for an unreadable file."""
    path = Path(path_text).expanduser()
    text = path.read_text(encoding="utf-8")
    base = path.parent

    def read_ref(ref: str) -> str:
        try:
            return (base / ref).read_text(encoding="utf-8")
        except OSError as exc:
            raise ValueError(exc.strerror or type(exc).__name__) from None

    return text, path_text, read_ref


def known_tool_ids(paths: AppPaths) -> KnownTools:
    """What a tool id may resolve to: built-ins, enabled plugins, configured MCP servers' ``mcp_<server>_*``.

    The workflow's own http tools (and servers block) are added by the plan,
    which sees the file, so an id that resolves to nothing is reported at its
    file:line:column instead of vanishing at run time.
    """
    from relavium_desktop.application.tools import known_tool_ids as known

    return known(paths.home)


def report_invalid(exc: Any, as_json: bool) -> None:
    """One clear message per issue, file:line:column first; with --json the error document on stderr."""
    if not as_json:  # issues quote the author's text: shown by the display rule, so none rewrites its line
        from relavium_desktop.engine.display_text import show_block

        print(show_block(str(exc)), file=sys.stderr)
        return
    issues = [
        {"file": exc.filename, "line": i.line, "column": i.column, "message": i.message}
        for i in exc.issues
    ]
    print_error_json("validation", str(exc), {"issues": issues})


def report_error(code: str, message: str, as_json: bool) -> None:
    """A fault before anything ran: one line on stderr, or with --json the error document there."""
    if as_json:
        print_error_json(code, message)
    else:
        from relavium_desktop.engine.display_text import show_block

        print(f"relavium: {show_block(message)}", file=sys.stderr)


def print_error_json(code: str, message: str, extra: dict[str, Any] | None = None) -> None:
    """The CI contract's fault document: ``{"type": "error", "code", "message", ...}``, one line on stderr.

    ``relavium run`` and ``validate`` keep stdout for their result (run events,
    the valid summary), so a pipeline reads stdout for data and, when the exit
    status says so, stderr for the reason; stdout stays empty.
    """
    print(dumps_json({"type": "error", "code": code, "message": message, **(extra or {})}), file=sys.stderr,
          flush=True)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="a .relavium.yaml workflow")
    p.add_argument("--json", action="store_true", help="print JSON only")


def load_or_report(file: str, paths: AppPaths, as_json: bool) -> Any:
    """The workflow in ``file`` (a ``LoadedWorkflow``), or None once why it cannot be read or loaded is reported.

    ``relavium run`` and ``relavium validate`` read a file the same way and
    say the same thing about the same fault.
    """
    from relavium_desktop.engine.workflow.errors import WorkflowError
    from relavium_desktop.engine.workflow.loader import load_workflow

    try:
        text, name, read_ref = read_workflow(file)
    except OSError as exc:
        report_error("validation", f"cannot read {file}: {exc.strerror or exc}", as_json)
        return None
    try:
        return load_workflow(text, name, read_ref=read_ref, known_tools=known_tool_ids(paths))
    except WorkflowError as exc:
        report_invalid(exc, as_json)
        return None


def run(args: argparse.Namespace) -> int:
    from relavium_desktop.application.workflow_check import McpConfigError, check_mcp_servers

    wf = load_or_report(args.file, args.app.paths, args.json)
    if wf is None:
        return EXIT_USAGE
    name = args.file  # as given: what the user typed names the file
    try:
        # The workflow's and its agents' MCP servers as the run will start them: one block, by
        # mcp.yaml's rules (the engine keeps it raw), with a name declared twice differently refused.
        check_mcp_servers(wf)
    except McpConfigError as exc:
        report_error("validation", f"{args.file}: {exc}", args.json)
        return EXIT_USAGE
    warnings = model_warnings(wf, None, args.app.paths)
    if args.json:
        print_json({"ok": True, "workflow": wf.id, "nodes": len(wf.plan.nodes), "order": wf.plan.order,
                    "warnings": warnings})
    else:
        for line in warnings:
            print(f"relavium: warning: {line}", file=sys.stderr)
        print(f"{name}: valid workflow {wf.id!r} ({len(wf.plan.nodes)} nodes)")
    return EXIT_OK


def model_warnings(wf: Any, providers_file: str | None, paths: AppPaths) -> list[str]:
    """Models no catalog knows (price table, cached live lists): warnings, never a refusal."""
    from relavium_desktop.application.workflow_check import unknown_model_warnings

    return unknown_model_warnings(wf, paths, Path(providers_file) if providers_file else None)
