"""``relavium runs list``: find a run from the command line (its id is what ``--resume`` takes).

Newest first, in local time, with the status and the workflow's name; the
last line says how many of how many are shown.  ``--status`` keeps one
status (``interrupted`` finds the runs ``relavium run --resume RUN_ID``
can continue; ``paused`` those waiting at a human gate).  Listing also marks
runs whose process died as ``interrupted``, as every reader of the store does.
With ``--json``: ``{"runs": [...], "shown": N, "total": M}``.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from relavium_desktop.cli import EXIT_OK, UsageError
from relavium_desktop.cli.jsonargs import print_result

STATUSES = ("running", "paused", "completed", "failed", "cancelled", "interrupted")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["list"], help="what to do")
    p.add_argument("--status", choices=STATUSES, help="only runs with this status")
    p.add_argument(
        "--limit", type=int, default=20, metavar="N", help="at most N runs, newest first (default 20)"
    )
    p.add_argument("--json", action="store_true", help="print JSON only")


def _local(epoch: float | None) -> str:
    if epoch is None:
        return "-"
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(epoch))


def _line(run: dict[str, Any]) -> str:
    name = run.get("workflow_name") or run.get("workflow_id") or "?"
    duration = f"{run['duration_ms'] / 1000:.1f} s" if run.get("duration_ms") is not None else "-"
    return f"{run['id']}  {_local(run['started_at'])}  {run['status']:<11}  {duration:>9}  {name} ({run['source']})"


def run(args: argparse.Namespace) -> int:
    if args.limit < 1:
        raise UsageError("--limit must be 1 or more")
    store = args.app.runs()  # the entry point's Application closes it when the command returns
    runs = store.list_runs(status=args.status, limit=args.limit)
    total = store.count_runs(status=args.status)
    which = f" {args.status}" if args.status else ""
    lines = [_line(r) for r in runs]
    if total == 0:
        # An empty list says what to do next rather than "showing 0 of 0".
        lines.append(f"no{which} runs yet" + ("" if args.status else "; start one with: relavium run FILE.relavium.yaml"))
    else:
        lines.append(
            f"showing {len(runs)} of {total}{which} runs"
            + (" (use --limit for more)" if total > len(runs) else "")
        )
    out = {
        "runs": [
            {**r, "started_local": _local(r["started_at"]), "ended_local": _local(r.get("ended_at"))}
            for r in runs
        ],
        "shown": len(runs),
        "total": total,
    }
    print_result(args.json, out, "\n".join(lines))
    return EXIT_OK
