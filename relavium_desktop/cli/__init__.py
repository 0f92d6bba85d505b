"""The headless ``relavium`` command: the same engine and host as the window.

Subcommands live in their own modules and are imported only when named, so
``relavium --help`` stays fast.  With ``--json`` stdout carries only JSON.
Exit status: 0 success, 1 the tool/run failed or was denied, 2 usage error.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from collections.abc import Sequence

# name -> (module, one-line help); each module has add_arguments(p) and run(args) -> int.
COMMANDS: dict[str, tuple[str, str]] = {
    "tools": ("relavium_desktop.cli.tools_cmd", "list the registered tools"),
    "tool": ("relavium_desktop.cli.tool_call_cmd", "dispatch one tool call through the full pipeline"),
    "secret": ("relavium_desktop.cli.secret_cmd", "set, list or delete keyring secrets"),
    "agent": ("relavium_desktop.cli.agent_cmd", "run an agent once, headless"),
    "chat": ("relavium_desktop.cli.chat_cmd", "interactive chat with an agent"),
    "run": ("relavium_desktop.cli.run_cmd", "run or resume a workflow, headless"),
    "validate": ("relavium_desktop.cli.validate_cmd", "check a workflow file without running it"),
}

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A bad invocation: printed as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="relavium", description="Relavium headless command line.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, (module, help_text) in COMMANDS.items():
        if importlib.util.find_spec(module) is None:
            continue  # that command's issue has not landed in this build
        p = sub.add_parser(name, help=help_text)
        importlib.import_module(module).add_arguments(p)
        p.set_defaults(_module=module)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "_module", None):
            raise UsageError("missing command; try 'relavium --help'")
        code: int = importlib.import_module(args._module).run(args)
        return code
    except UsageError as exc:
        print(f"relavium: usage error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("relavium: interrupted", file=sys.stderr)
        return 130


def entry() -> None:
    sys.exit(main())
