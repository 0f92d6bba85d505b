"""``relavium media stats|verify|sweep|gc``: inspect and maintain the media store offline.

``stats`` counts intact objects, their bytes, corrupt objects (re-hashed:
a garbled object's size looks normal), quarantined ones and leftover
temporaries.  ``verify`` re-hashes every object and moves each one that no
longer matches its digest to ``media/quarantine/`` (kept, out of use),
listing them; exit status 1 when it found any (``--dry-run`` moves nothing).  ``sweep`` removes
publication temporaries whose producer is proven dead and that are older
than ``--min-age`` (24 h by default, the spec's floor for automatic
sweeps); everything kept is listed with its reason word.  ``gc`` deletes
published objects that no stored chat or run refers to and that are older
than ``--min-age`` (1 h), so a just-published object whose reference is
not written yet survives; it quarantines corrupt objects first, as verify
does.  None of them creates the store when it is absent.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from relavium_desktop.cli import EXIT_FAILED, EXIT_OK, UsageError
from relavium_desktop.cli.jsonargs import action_failed, print_result

if TYPE_CHECKING:
    from relavium_desktop.application.media import MediaStore
    from relavium_desktop.application.paths import AppPaths


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["stats", "verify", "sweep", "gc"], help="what to do")
    p.add_argument("--min-age", type=float, default=None, metavar="SECONDS",
                   help="minimum age before removal (sweep: 86400, gc: 3600)")
    p.add_argument("--dry-run", action="store_true",
                   help="gc, verify: report what would be removed or quarantined, move nothing")
    p.add_argument("--json", action="store_true", help="print JSON only")


def run(args: argparse.Namespace) -> int:
    from relavium_desktop.application.media import MediaError, media_store

    if args.min_age is not None and not args.min_age >= 0:
        raise UsageError("--min-age must be a number of seconds, 0 or more")
    if args.dry_run and args.action not in ("gc", "verify"):
        raise UsageError("--dry-run applies to gc and verify only")
    paths: AppPaths = args.app.paths
    store = media_store(paths)
    try:
        failed = False
        if args.action == "stats":
            out: dict[str, object] = dict(store.stats())
            text = f"{out['objects']} objects, {out['bytes']} bytes, {out['temps']} temporaries"
            if out["corrupt"] or out["quarantined"]:
                text += (f", {out['corrupt']} corrupt (not counted; 'relavium media verify' quarantines them), "
                         f"{out['quarantined']} in quarantine")
        elif args.action == "verify":
            out, text = _verify(store, args.dry_run)
            failed = bool(out["corrupt"])
        elif args.action == "sweep":
            report = store.sweep_temporaries(min_age_s=24 * 3600.0 if args.min_age is None else args.min_age)
            out = report.to_json()
            lines = [f"removed {name}" for name in sorted(report.removed)]
            lines += [f"kept {name} ({report.reasons[name]})" for name in sorted(report.retained)]
            lines.append(f"{len(report.removed)} removed, {len(report.retained)} kept")
            text = "\n".join(lines)
        else:
            out, text = _gc(store, paths, args)
    except (MediaError, OSError) as exc:
        code = exc.code if isinstance(exc, MediaError) else "io"
        message = str(exc) if isinstance(exc, MediaError) else f"{type(exc).__name__}: {exc.strerror or exc}"
        return action_failed(args.json, f"media {args.action}", code, message)
    print_result(args.json, out, text)
    return EXIT_FAILED if failed else EXIT_OK


def _verify(store: MediaStore, dry_run: bool) -> tuple[dict[str, object], str]:
    report = store.verify(quarantine=not dry_run)
    lines = []
    for sha, why in sorted(report.corrupt.items()):
        where = "would quarantine" if dry_run else f"quarantined to {store.root / report.moved[sha]}"
        lines.append(f"corrupt {sha}: {why}; {where}")
    lines.append(f"{len(report.intact)} intact, {len(report.corrupt)} corrupt")
    out: dict[str, object] = {**report.to_json(), "dry_run": dry_run}
    return out, "\n".join(lines)


def _gc(store: MediaStore, paths: AppPaths, args: argparse.Namespace) -> tuple[dict[str, object], str]:
    from relavium_desktop.application.media import collect_garbage

    min_age = 3600.0 if args.min_age is None else args.min_age
    result = collect_garbage(store, paths, min_age_s=min_age, dry_run=args.dry_run)
    verb = "would remove" if args.dry_run else "removed"
    lines = [f"{verb} {sha}" for sha in result["removed"]]
    moved = "would quarantine" if args.dry_run else "quarantined"
    lines += [f"{moved} {sha} (corrupt: it does not match its digest)" for sha in result["quarantined"]]
    lines.append(f"{len(result['removed'])} {verb}, {len(result['kept'])} kept, "
                 f"{len(result['quarantined'])} corrupt {moved}")
    out: dict[str, object] = {"removed": result["removed"], "kept": result["kept"],
                              "quarantined": result["quarantined"], "dry_run": args.dry_run}
    return out, "\n".join(lines)
