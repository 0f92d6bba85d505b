"""Start-up phase marks for ``bench/startup.py`` and the first-paint import test.

With ``RELAVIUM_STARTUP_PROBE`` set, the app prints one line per start-up
phase on the shared CLOCK_MONOTONIC clock with the process's CPU seconds so far
(``relavium-phase NAME SECONDS CPU_SECONDS``), so the bench can say where the
time to first paint goes, and then the
``relavium-first-paint SECONDS CPU_SECONDS`` line.  ``RELAVIUM_STARTUP_PROBE=stay`` keeps
the app running after the first paint (the bench reads its idle memory);
any other value quits at once.  ``RELAVIUM_STARTUP_MODULES=PATH`` writes the
names in ``sys.modules`` at the first paint to PATH: what the first screen
cost in imports, checked by tests/ui/test_first_paint_imports.py.

Unset (every normal start), each call is one environment lookup.
"""

from __future__ import annotations

import os
import sys
import time

PROBE_ENV = "RELAVIUM_STARTUP_PROBE"
MODULES_ENV = "RELAVIUM_STARTUP_MODULES"
STAY = "stay"

_seen: set[str] = set()


def enabled() -> bool:
    return bool(os.environ.get(PROBE_ENV))


def stays() -> bool:
    """Whether the probed app keeps running after its first paint (for the idle measurement)."""
    return os.environ.get(PROBE_ENV) == STAY


def mark(phase: str) -> None:
    """Print the end of ``phase`` (once: a later window or re-applied theme is not start-up)."""
    if phase in _seen or not enabled():
        return
    _seen.add(phase)
    print(f"relavium-phase {phase} {time.monotonic():.6f} {time.process_time():.6f}", flush=True)


def first_paint() -> None:
    """The first paint: dump the imported modules if asked, then print the first-paint line."""
    if not enabled() or "first-paint" in _seen:
        return
    _seen.add("first-paint")
    now = time.monotonic()
    if sys._xoptions.get("importtime"):  # -X importtime: where the imports before the first paint end
        print("relavium-first-paint-mark", file=sys.stderr, flush=True)
    target = os.environ.get(MODULES_ENV)
    if target:
        with open(target, "w", encoding="utf-8") as out:
            # Only modules really loaded: a None entry is an import blocked on purpose (app.py's httpx._main).
            out.write("\n".join(sorted(n for n, m in sys.modules.items() if m is not None)) + "\n")
    # The process's CPU seconds too: on a loaded machine they vary less than the wall clock.
    print(f"relavium-first-paint {now:.6f} {time.process_time():.6f}", flush=True)
