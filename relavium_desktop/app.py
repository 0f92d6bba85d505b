"""The GUI entry point (``relavium-desktop`` / ``python -m relavium_desktop``).

Qt runs on a qasync event loop so every engine call is awaited on the same
loop the window paints from.  Heavy imports stay inside ``main`` so the first
paint is not held up by modules the window does not need yet.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence

NO_DISPLAY_MESSAGE = (
    "relavium-desktop: no graphical display found (neither DISPLAY nor WAYLAND_DISPLAY is set).\n"
    "Start it from a desktop session, or on a headless machine use the command line "
    "(`relavium --help`: tools, workflows, agents, chat) or a virtual screen: "
    "`xvfb-run relavium-desktop`."
)


def display_problem(env: Mapping[str, str], platform: str = sys.platform) -> str | None:
    """Why Qt could not open a window here, said before Qt aborts with its own cryptic text."""
    if not platform.startswith("linux") or env.get("QT_QPA_PLATFORM"):
        return None
    if env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"):
        return None
    return NO_DISPLAY_MESSAGE


DESKTOP_ENTRY_FLAGS = ("--install-desktop-entry", "--uninstall-desktop-entry")


def desktop_entry_command(args: Sequence[str]) -> int:
    """``--install-desktop-entry`` / ``--uninstall-desktop-entry``: file work only, no window.

    Handled before the display check so it works over ssh or in a package's
    post-install step, where there is no display at all.
    """
    from relavium_desktop.host import desktop_entry

    action = "uninstall" if "--uninstall-desktop-entry" in args else "install"
    try:
        report = desktop_entry.uninstall() if action == "uninstall" else desktop_entry.install()
    except OSError as exc:  # a read-only or missing data folder, a full disk: one line, not a traceback
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"relavium-desktop: cannot {action} the desktop entry: {where}{exc.strerror or exc}",
              file=sys.stderr)
        return 1
    for line in report.lines:
        print(line)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    from relavium_desktop.ui import startup_probe

    startup_probe.mark("interpreter")  # Python itself is up (bench/startup.py's first phase)
    args = list(sys.argv if argv is None else argv)
    if len(args) > 1 and args[1] == "--relavium-helper":  # the bundle's watcher or sandbox launcher
        from relavium_desktop.application.helper_programs import run_helper_if_asked

        code = run_helper_if_asked(args)
        return code if code is not None else 2
    if any(flag in args[1:] for flag in DESKTOP_ENTRY_FLAGS):
        return desktop_entry_command(args[1:])
    problem = display_problem(os.environ)
    if problem is not None:
        print(problem, file=sys.stderr)
        return 2
    from relavium_desktop.ui import pyside_import_scan

    pyside_import_scan.install()  # before the app's own Qt modules load: their sources stay out of linecache
    # httpx imports its command-line client (click, rich, pygments: ~6 MB) whenever they are installed and
    # falls back when the import fails; the window never runs that client.
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
    from relavium_desktop.application.paths import AppPaths
    from relavium_desktop.host.log_masking import configure_logging
    from relavium_desktop.ui.shell import run_app

    configure_logging()  # every log line masked, RELAVIUM_LOG=debug to see them
    startup_probe.mark("imports")
    # The one read of the environment ($RELAVIUM_HOME) for the window's whole process: the settings file,
    # the single-instance socket and the Application's stores all take these paths.
    return run_app(args, AppPaths.from_environment())


if __name__ == "__main__":
    sys.exit(main())
