"""``relavium doctor``: what this machine can enforce, said before anything needs it.

Today it reports the OS sandbox: the Landlock ABI, each protection present or
missing, and which sandbox modes (strict, network, off) can run here.  A mode
the kernel cannot enforce refuses to run (``tool_unavailable``), never runs
unconfined; this is where a user finds out why, and that ``sandbox: off`` is
the explicit way to run unconfined.  With ``--json``: ``{"sandbox": {...}}``.
Exit status 0 even when protections are missing: the report is the answer.
"""

from __future__ import annotations

import argparse

from relavium_desktop.cli import EXIT_OK
from relavium_desktop.cli.jsonargs import print_json


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print JSON only")


def run(args: argparse.Namespace) -> int:
    from relavium_desktop.application.sandbox import sandbox_report

    report = sandbox_report()
    if args.json:
        print_json({"sandbox": report.to_json()})
    else:
        for line in report.lines():
            print(line)
    return EXIT_OK
