"""``relavium doctor``: what this machine can enforce, said before anything needs it.

Today it reports the OS sandbox: the Landlock ABI, each protection present or
missing, and which sandbox modes (strict, network, off) can run here.  A mode
the kernel cannot enforce refuses to run (``tool_unavailable``), never runs
unconfined; this is where a user finds out why, and that ``sandbox: off`` is
the explicit way to run unconfined.  Each stdio server of the user's mcp.yaml
is listed with its sandbox (an unconfined one said loudly).  With ``--json``:
``{"sandbox": {..., "mcpServers": [...]}}``.
Exit status 0 even when protections are missing: the report is the answer.
"""

from __future__ import annotations

import argparse
import sys

from relavium_desktop.cli import EXIT_OK
from relavium_desktop.cli.jsonargs import print_json


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print JSON only")


def run(args: argparse.Namespace) -> int:
    from relavium_desktop.application.paths import AppPaths
    from relavium_desktop.application.sandbox import mcp_server_sandboxes, sandbox_report

    report = sandbox_report()
    paths: AppPaths = args.app.paths  # the entry point's Application's
    servers, problem = mcp_server_sandboxes(paths.home)
    if args.json:
        print_json({"sandbox": {**report.to_json(), "mcpServers": [s.to_json() for s in servers]}})
    else:
        for line in report.lines():
            print(line)
        for server in servers:
            print(server.line())
    if problem is not None:
        print(f"relavium: {problem}", file=sys.stderr)
    return EXIT_OK
