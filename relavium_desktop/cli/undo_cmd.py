"""``relavium undo list|restore``: take back file writes an agent made, per checkpoint, chat or run.

``list`` shows the checkpoints of a chat (``--chat``) or run (``--run``; a
one-off ``relavium tool call`` is its own run, ``tool-…``), oldest first, in
local time.  ``restore`` prints the plan -- each file and what happens to it
(restore, delete a file the agent created, conflict, refused) -- and carries
it out.  A file that changed since the agent wrote it is a conflict: with
any conflict nothing is restored and the exit status is 1, unless
``--force`` confirms overwriting it.  A path that is now protected or
outside its project is refused, with the reason, whatever ``--force`` says.
Before a file is restored its current content is kept, so the undo can be
undone: ``restore --checkpoint`` with the id printed after "undo with".
"""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING, Any

from relavium_desktop.cli import EXIT_FAILED, EXIT_OK, UsageError
from relavium_desktop.cli.jsonargs import print_json, print_result

if TYPE_CHECKING:
    from relavium_desktop.application.undo import Checkpoint, RestorePlan, RestoreResult, UndoService

_WORDS = {
    "restore": "restore",
    "delete": "delete (the agent created it)",
    "conflict": "CONFLICT",
    "refused": "refused",
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["list", "restore"], help="list checkpoints, or restore them")
    p.add_argument("--chat", metavar="ID", help="the chat session's checkpoints")
    p.add_argument(
        "--run", metavar="ID", help="the workflow run's (or a tool call's tool-… run's) checkpoints"
    )
    p.add_argument("--checkpoint", metavar="ID", help="restore: just this checkpoint")
    p.add_argument(
        "--since-message",
        type=int,
        metavar="N",
        help="restore --chat: only the writes made from message N on (its turn included)",
    )
    p.add_argument(
        "--force", action="store_true", help="restore: overwrite files that changed since (conflicts)"
    )
    p.add_argument("--json", action="store_true", help="print JSON only")


def run(args: argparse.Namespace) -> int:
    chosen = [name for name in ("chat", "run", "checkpoint") if getattr(args, name)]
    if args.action == "list":
        if args.checkpoint or args.force:
            raise UsageError("list takes --chat ID or --run ID")
        if len(chosen) != 1:
            raise UsageError("list needs exactly one of --chat ID or --run ID")
    elif len(chosen) != 1:
        raise UsageError("restore needs exactly one of --checkpoint ID, --chat ID or --run ID")
    if args.since_message is not None and not args.chat:
        raise UsageError("--since-message applies to --chat only")
    if args.since_message is not None and args.since_message < 0:
        raise UsageError("--since-message must be 0 or more")
    service: UndoService = args.app.undo()
    if args.action == "list":
        return _list(service, args)
    return _restore(service, args)


def _checkpoints(service: UndoService, args: argparse.Namespace) -> list[Checkpoint] | None:
    if args.checkpoint:
        found = service.get(args.checkpoint)
        return [found] if found is not None else None
    return service.checkpoints(chat=args.chat, run=args.run, since_message=args.since_message)


def _local(checkpoint: Checkpoint) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(checkpoint.created_at.timestamp()))


def _as_json(checkpoint: Checkpoint) -> dict[str, Any]:
    return {
        "id": checkpoint.id,
        "scope": checkpoint.scope,
        "scopeId": checkpoint.scope_id,
        "toolCallId": checkpoint.tool_call_id,
        "nodeId": checkpoint.node_id,
        "path": str(checkpoint.path),
        "project": str(checkpoint.project) if checkpoint.project else None,
        "existed": checkpoint.existed,
        "kept": checkpoint.kept,
        "createdAt": checkpoint.created_at.isoformat().replace("+00:00", "Z"),
        "createdLocal": _local(checkpoint),
        "linesAdded": checkpoint.lines_added,
        "linesRemoved": checkpoint.lines_removed,
        "messageIndex": checkpoint.message_index,
        "undoes": list(checkpoint.undoes),
    }


def _list(service: UndoService, args: argparse.Namespace) -> int:
    found = service.checkpoints(chat=args.chat, run=args.run, since_message=args.since_message)
    lines = []
    for c in found:
        what = "created" if not c.existed else f"+{c.lines_added} -{c.lines_removed}"
        lines.append(f"{c.id}  {_local(c)}  {what:<12}  {c.path}")
    lines.append(f"{len(found)} checkpoint{'s' if len(found) != 1 else ''}")
    print_result(args.json, {"ok": True, "checkpoints": [_as_json(c) for c in found]}, "\n".join(lines))
    return EXIT_OK


def _plan_json(plan: RestorePlan) -> list[dict[str, Any]]:
    return [
        {
            "path": str(f.path),
            "action": f.action,
            "reason": f.reason,
            "checkpointId": f.checkpoint_id,
            "checkpointIds": list(f.checkpoint_ids),
        }
        for f in plan.files
    ]


def _plan_lines(plan: RestorePlan) -> list[str]:
    lines = []
    for f in plan.files:
        why = f": {f.reason}" if f.reason else ""
        lines.append(f"  {_WORDS[f.action]:<28} {f.path}{why}")
    return lines


def _restore(service: UndoService, args: argparse.Namespace) -> int:
    found = _checkpoints(service, args)
    if found is None:
        return _fail(
            args.json, "not_found", f"no checkpoint {args.checkpoint} (it may have been removed by retention)"
        )
    plan = service.plan(found)
    lines = ["Plan:", *_plan_lines(plan)] if plan.files else ["Nothing to undo."]
    if plan.conflicts and not args.force:
        names = ", ".join(str(f.path) for f in plan.conflicts)
        message = (
            f"{len(plan.conflicts)} file(s) changed since the agent wrote them ({names}); nothing was "
            "restored. Rerun with --force to overwrite them (their current content is kept first)."
        )
        if args.json:
            print_json(
                {
                    "ok": False,
                    "plan": _plan_json(plan),
                    "restored": [],
                    "deleted": [],
                    "skipped": [],
                    "undoCheckpointIds": [],
                    "error": {"code": "conflict", "message": message},
                }
            )
        else:
            print("\n".join(lines))
        return _stderr(message)
    result = service.restore(plan, force=args.force)
    return _report(args.json, plan, result, lines)


def _report(as_json: bool, plan: RestorePlan, result: RestoreResult, lines: list[str]) -> int:
    failed = bool(result.skipped)
    out: dict[str, Any] = {
        "ok": not failed,
        "plan": _plan_json(plan),
        "restored": [str(p) for p in result.restored],
        "deleted": [str(p) for p in result.deleted],
        "skipped": [{"path": str(f.path), "action": f.action, "reason": f.reason} for f in result.skipped],
        "undoCheckpointIds": list(result.undo_checkpoint_ids),
    }
    message = ""
    if failed:
        message = f"{len(result.skipped)} file(s) not restored: " + "; ".join(
            f"{f.path}: {f.reason}" for f in result.skipped
        )
        code = "conflict" if all(f.action == "conflict" for f in result.skipped) else "refused"
        out["error"] = {"code": code, "message": message}
    lines = [*lines, *(f"restored {p}" for p in result.restored), *(f"deleted {p}" for p in result.deleted)]
    if result.undo_checkpoint_ids:
        lines.append(
            "undo with: "
            + " ".join(f"relavium undo restore --checkpoint {cid}" for cid in result.undo_checkpoint_ids)
        )
    print_result(as_json, out, "\n".join(lines))
    return _stderr(message) if failed else EXIT_OK


def _fail(as_json: bool, code: str, message: str) -> int:
    if as_json:
        print_json({"ok": False, "error": {"code": code, "message": message}})
    return _stderr(message)


def _stderr(message: str) -> int:
    import sys

    print(f"relavium: undo: {message}", file=sys.stderr)
    return EXIT_FAILED
