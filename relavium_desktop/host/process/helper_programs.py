"""How Relavium starts its own small helper programs: the orphan watcher and the sandbox launcher.

From the source tree each is a script run by the same interpreter with
``-I -S`` (no site, no user paths), so it imports only what it needs.  In the
installed bundle there is no interpreter and no script on disk --
``sys.executable`` is the app's own executable -- so the helper is asked for
by name: ``relavium --relavium-helper NAME ARG...`` (or ``relavium-desktop``),
which both entry points hand to :func:`run_helper_if_asked` before anything
else.  Without this, the bundle would start no watcher and no sandboxed MCP
server (never an unconfined one: the launcher refuses to run a server it did
not confine).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from pathlib import Path

HELPER_FLAG = "--relavium-helper"
# name -> the module whose ``main(argv)`` runs it (argv[0] is the helper's name).
HELPERS = {
    "guard-watcher": "relavium_desktop.host.process.guard_main",
    "sandbox-exec": "relavium_desktop.host.process.sandbox_exec",
}
EXIT_UNKNOWN_HELPER = 2


def frozen() -> bool:
    """True in the installed bundle (PyInstaller sets ``sys.frozen``)."""
    return bool(getattr(sys, "frozen", False))


def helper_argv(name: str, script: Path, *args: str) -> list[str]:
    """The argv that runs helper ``name`` (its ``script`` from the source tree) with ``args``."""
    if name not in HELPERS:
        raise ValueError(f"no helper program named {name!r}")
    if frozen():
        return [sys.executable, HELPER_FLAG, name, *args]
    return [sys.executable, "-I", "-S", str(script), *args]


def run_helper_if_asked(argv: Sequence[str]) -> int | None:
    """Run the helper ``argv`` asks for (``PROG --relavium-helper NAME ARG...``) and return its exit code.

    None when ``argv`` asks for no helper: the entry point goes on as usual.
    """
    if len(argv) < 3 or argv[1] != HELPER_FLAG:
        return None
    module = HELPERS.get(argv[2])
    if module is None:
        sys.stderr.write(f"relavium: no helper program named {argv[2]!r}\n")
        return EXIT_UNKNOWN_HELPER
    code: int = importlib.import_module(module).main([argv[2], *argv[3:]])
    return code
