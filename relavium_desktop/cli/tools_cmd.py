"""``relavium tools list``."""

from __future__ import annotations

import argparse

from relavium_desktop.cli import EXIT_OK, UsageError
from relavium_desktop.cli.jsonargs import print_json


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["list"], help="what to do")
    p.add_argument("--json", action="store_true", help="print JSON only")


def run(args: argparse.Namespace) -> int:
    from relavium_desktop.services import tool_registry

    if args.action != "list":
        raise UsageError(f"unknown action {args.action!r}")
    # Listing needs no capability: a bare registry describes the same tools.
    tools = tool_registry().describe()
    if args.json:
        print_json(tools)
    else:
        width = max(len(t["id"]) for t in tools)
        for t in tools:
            print(f"{t['id']:<{width}}  {t['policy']['actionClass']:<8}  {t['description']}")
    return EXIT_OK
