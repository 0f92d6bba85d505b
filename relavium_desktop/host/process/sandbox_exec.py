"""The sandbox launcher: ``python -I -S sandbox_exec.py RULESET_FD EXECUTABLE [ARG...]``.

For children started through anyio (the stdio MCP servers), which takes no
``preexec_fn``: the parent builds the ruleset (sandbox.py) and passes its
descriptor; this launcher sets no-new-privileges, enforces the ruleset, closes
the descriptor and ``execv``s the server -- one process, no shell.  Any
failure exits 126 with a one-line reason on stderr before the server runs, so
a server is never started unconfined.

Run with ``-I -S`` (no site, no user paths, no environment hooks), so it
imports only the standard library and :mod:`landlock`, loaded by path.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

EXIT_NOT_CONFINED = 126


def _landlock() -> Any:
    """The Landlock calls: from the package when run as a module (the bundle's ``--relavium-helper``),
    else loaded by path (a script with no site and no user paths)."""
    if __package__:
        return importlib.import_module(f"{__package__}.landlock")
    found = importlib.util.spec_from_file_location("landlock", Path(__file__).with_name("landlock.py"))
    if found is None or found.loader is None:
        raise OSError(0, "landlock.py is missing")
    module = importlib.util.module_from_spec(found)
    found.loader.exec_module(module)
    return module


def main(argv: list[str]) -> int:
    if len(argv) < 3 or not argv[1].isdigit():
        sys.stderr.write("sandbox launcher: usage: RULESET_FD EXECUTABLE [ARG...]\n")
        return EXIT_NOT_CONFINED
    try:
        landlock = _landlock()
        ruleset = int(argv[1])
        landlock.restricter(ruleset)()
        os.close(ruleset)
        os.execv(argv[2], argv[2:])
    except OSError as exc:
        sys.stderr.write(
            f"sandbox launcher: the sandbox could not be applied ({exc.strerror or exc}); not started\n"
        )
        return EXIT_NOT_CONFINED
    return EXIT_NOT_CONFINED  # not reached: execv replaced this process


if __name__ == "__main__":
    sys.exit(main(sys.argv))
