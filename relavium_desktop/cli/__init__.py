"""The headless ``relavium`` command: the same engine and host as the window.

Subcommands live in their own modules and are imported only when named, so
``relavium --help`` stays fast.  With ``--json`` stdout carries only JSON.
Exit status: 0 success, 1 the tool/run failed or was denied, 2 usage error.

No command prints a Python traceback.  A stdout whose reader went away
(``relavium ... | head``) or that was closed ends the command quietly with
exit 1; any other unexpected exception is one secret-free line on stderr,
``relavium: internal error: TYPE: MESSAGE`` (with ``--json`` also one JSON
document, error code ``internal``), exit 1.  ``RELAVIUM_DEBUG=1`` re-raises
it instead, traceback and all.  Everything on stdout and stderr is masked
(``masked_streams``): no credential is printed, whichever command wrote it.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import importlib
import io
import os
import sys
from collections.abc import Sequence

# name -> (module, one-line help); each module has add_arguments(p) and run(args) -> int.
COMMANDS: dict[str, tuple[str, str]] = {
    "tools": ("relavium_desktop.cli.tools_cmd", "list the registered tools"),
    "tool": ("relavium_desktop.cli.tool_call_cmd", "dispatch one tool call through the full pipeline"),
    "secret": ("relavium_desktop.cli.secret_cmd", "set, list or delete keyring secrets"),
    "providers": ("relavium_desktop.cli.providers_cmd", "list, add, remove, test providers and their models"),
    "agent": ("relavium_desktop.cli.agent_cmd", "run an agent once, headless"),
    "chat": ("relavium_desktop.cli.chat_cmd", "interactive chat with an agent"),
    "run": ("relavium_desktop.cli.run_cmd", "run or resume a workflow, headless"),
    "runs": ("relavium_desktop.cli.runs_cmd", "list workflow runs (ids, status, local start times)"),
    "validate": ("relavium_desktop.cli.validate_cmd", "check a workflow file without running it"),
    "media": ("relavium_desktop.cli.media_cmd", "media store stats, temporary sweep and garbage collection"),
    "plugins": ("relavium_desktop.cli.plugins_cmd", "list, enable or disable relavium.tools plugins"),
    "mcp": ("relavium_desktop.cli.mcp_cmd", "list and read MCP resources and prompts; sign in to remote servers (login, logout, status)"),
    "gate": ("relavium_desktop.cli.gate_cmd", "list pending human gates, approve or reject one"),
    "undo": ("relavium_desktop.cli.undo_cmd", "list the file writes of a chat or run, restore what they replaced"),
    "doctor": ("relavium_desktop.cli.doctor_cmd", "what this machine can enforce: the OS sandbox's protections"),
}

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
# Under --json these commands write a fault as {"type": "error", ...} on stderr (upstream's CI contract).
JSON_FAULTS_ON_STDERR = frozenset({"run", "validate", "gate"})


class UsageError(Exception):
    """A bad invocation: printed as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="relavium", description="Relavium headless command line.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, (module, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text)
        importlib.import_module(module).add_arguments(p)
        p.set_defaults(_module=module)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    _harden_streams()
    from relavium_desktop.application.logs import configure_logging
    from relavium_desktop.cli.masked_streams import masked_std_streams

    configure_logging()
    # Every line on stdout and stderr is masked here, once, whichever command wrote it.
    with masked_std_streams():
        return _main(argv)


def _main(argv: list[str]) -> int:
    args: argparse.Namespace | None = None
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "_module", None):
            raise UsageError("missing command; try 'relavium --help'")
        code = _run_command(args)
        # A command that caught a closed stdout itself (``run`` records the run as
        # interrupted) may leave output buffered: flush it here, not at exit.
        if sys.stdout is not None:
            sys.stdout.flush()
        return code
    except UsageError as exc:
        if "--json" in argv and argv[0] in JSON_FAULTS_ON_STDERR:
            from relavium_desktop.cli.validate_cmd import print_error_json

            print_error_json("usage", f"usage error: {exc}")  # the CI contract: stdout stays empty
        else:
            _say_error(f"relavium: usage error: {exc}")
        return EXIT_USAGE
    except KeyboardInterrupt:
        _say_error("relavium: interrupted")
        return 130
    except Exception as exc:
        if _stdout_gone(exc):
            discard_stdout()
            return EXIT_FAILED
        if os.environ.get("RELAVIUM_DEBUG") == "1":
            raise
        from relavium_desktop.cli import storage_faults

        app = getattr(args, "app", None)  # the command's Application, when it got that far
        # A damaged history.db, a full disk: name the file and the cause.
        fault = storage_faults.storage_fault(exc, app.paths if app is not None else None)
        on_stderr = "--json" in argv and argv[0] in JSON_FAULTS_ON_STDERR  # stdout keeps run events only
        if fault is not None and on_stderr:
            from relavium_desktop.cli.validate_cmd import print_error_json

            print_error_json("storage", fault)
            return EXIT_FAILED
        if fault is not None:
            return storage_faults.report(fault, "--json" in argv)
        return _internal_error(exc, "--json" in argv, on_stderr=on_stderr)
    except BaseException as exc:
        import asyncio

        if not isinstance(exc, asyncio.CancelledError):
            raise  # SystemExit (--help) and the like
        _say_error("relavium: cancelled")
        return 130


def _run_command(args: argparse.Namespace) -> int:
    """Run the parsed command with the process's one Application (``args.app``), closed when it returns.

    Built here, after parsing, so ``relavium --help`` and a usage error the
    parser catches never create the data folder; each command takes its
    paths and stores from ``args.app`` instead of opening its own.
    """
    from relavium_desktop.application.app import Application

    module = importlib.import_module(args._module)
    args.app = Application.from_environment()
    try:
        code: int = module.run(args)
    finally:
        args.app.close()
    return code


def _harden_streams() -> None:
    """Text that UTF-8 cannot carry (lone surrogates) is escaped, never an encode error."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="backslashreplace")
    if sys.stdout is None:  # started with stdout closed (``relavium ... >&-``)
        sys.stdout = _ClosedStdout()


class _ClosedStdout(io.TextIOBase):
    """Stands in for a stdout the command was started without: writing is a closed pipe."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise BrokenPipeError(errno.EPIPE, "stdout is closed")


def _stdout_gone(exc: BaseException) -> bool:
    """Whether ``exc`` says the reader of stdout went away (``| head``) or stdout was closed."""
    if isinstance(exc, BrokenPipeError):
        return True
    if isinstance(exc, OSError) and exc.errno == errno.EPIPE:
        return True
    if isinstance(exc, ValueError) and "closed file" in str(exc):
        return sys.stdout is None or bool(getattr(sys.stdout, "closed", False))
    return False


def discard_stdout() -> None:
    """Send whatever is still buffered for a vanished stdout to the null device.

    The interpreter flushes stdout at exit; on a closed pipe that flush fails
    again and prints "Exception ignored ...".  Pointing the file descriptor at
    ``os.devnull`` (as the Python docs recommend for SIGPIPE) makes it quiet.
    Safe to call more than once; commands that catch ``BrokenPipeError``
    themselves may call it too.
    """
    from relavium_desktop.cli.masked_streams import unwrap

    stdout = unwrap(sys.stdout)
    if stdout is sys.__stdout__ and stdout is not None:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(devnull, stdout.fileno())
            finally:
                os.close(devnull)
            return
        except (OSError, ValueError):
            pass
    # Not the process's own stdout (an in-process caller), or its descriptor is gone.
    sys.stdout = _ClosedStdout()


def _say_error(line: str) -> None:
    """One line on stderr; a closed stderr is not worth a second failure."""
    with contextlib.suppress(OSError, ValueError):
        print(line, file=sys.stderr, flush=True)


_DETAIL_LIMIT = 500


def _internal_error(exc: BaseException, as_json: bool, *, on_stderr: bool = False) -> int:
    """One secret-free line for a failure no command anticipated; never a traceback."""
    try:
        from relavium_desktop.engine.tools.masking import mask_text

        detail = " ".join(mask_text(str(exc)).split())
    except Exception:  # noqa: BLE001 -- the masker itself is broken: name the type only
        detail = ""
    if len(detail) > _DETAIL_LIMIT:
        detail = detail[: _DETAIL_LIMIT - 3] + "..."
    message = f"internal error: {type(exc).__name__}" + (f": {detail}" if detail else "")
    if on_stderr:  # the CI contract: the one fault document on stderr, stdout untouched
        from relavium_desktop.cli.validate_cmd import print_error_json

        with contextlib.suppress(OSError, ValueError):
            print_error_json("internal", f"{message} (RELAVIUM_DEBUG=1 shows the traceback)")
        return EXIT_FAILED
    _say_error(f"relavium: {message} (RELAVIUM_DEBUG=1 shows the traceback)")
    if as_json:
        from relavium_desktop.cli.jsonargs import print_json

        try:
            print_json({"ok": False, "error": {"code": "internal", "message": message}}, flush=True)
        except (OSError, ValueError) as again:  # stdout itself is what failed
            if _stdout_gone(again):
                discard_stdout()
    return EXIT_FAILED


def entry() -> None:
    from relavium_desktop.application.helper_programs import run_helper_if_asked

    helper = run_helper_if_asked(sys.argv)  # the bundle's watcher or sandbox launcher, not a command
    if helper is not None:
        sys.exit(helper)
    from relavium_desktop.cli.masked_streams import mask_std_streams

    # For the whole process, so even RELAVIUM_DEBUG's traceback (printed after
    # main() returns, by the interpreter) is masked.
    mask_std_streams()
    sys.exit(main())
