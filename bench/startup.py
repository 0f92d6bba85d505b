"""Start-up and idle-memory profile: first paint against a bare Qt window, per phase, per import.

    .venv/bin/python bench/startup.py [RUNS] [--idle-seconds 10] [--no-idle] [--bundle PATH]

Starts ``python -m relavium_desktop`` with RELAVIUM_STARTUP_PROBE=1 on two
data folders the script makes itself: a fresh one (the first-run screen) and
one holding 200 chats and 50 workflow runs written through the project's
stores (``application.stores.session_store`` / ``run_store``), with a provider
set up and the welcome done, so the chat is the first screen.  The app
prints the end of each start-up phase and its first paint on the shared
CLOCK_MONOTONIC clock (``relavium_desktop/ui/startup_probe.py``) and quits.
The baseline is a bare PySide6 QMainWindow doing the same, interleaved with
the app runs in the same invocation (bare, fresh, populated, bare, ...), so
a loaded machine slows all three alike: the ratio of the medians is the
figure (target ≤ 1.5).  The CPU seconds each child spent until its first
paint are printed too; they move less than the wall clock when other
programs compete for the cores.

Then, on the fresh home:

* the imports before the first paint, from ``-X importtime`` of one child run
  cut at the first paint: the 15 slowest top-level imports (cumulative) and
  the time per top-level package (self time summed);

and on both homes (unless ``--no-idle``):

* the idle RSS: a child started with RELAVIUM_STARTUP_PROBE=stay stays up
  after its first paint (loading its chats, provider readiness, the tray),
  and VmRSS is read from /proc/PID/status ``--idle-seconds`` later (target
  ≤ 130 MB).

The children run with bytecode caching on (PYTHONDONTWRITEBYTECODE removed):
an installed app has its .pyc files, and without them every run would time
the compiler.  Uses the current DISPLAY, else the offscreen platform.

``--bundle PATH`` (the folder ``packaging/build`` made, e.g. dist/relavium,
or its ``relavium-desktop``) also times the bundled launcher on the fresh
home, interleaved with the same baseline, and prints its size.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

RATIO_TARGET = 1.5
PAGE_PAINTED = "first-view-paint"  # the probe's phase: the first page painted after the first frame
RSS_TARGET_MB = 130.0
CHATS, RUNS_IN_HISTORY = 200, 50

BARE = r"""
import time
def mark(phase):  # the same phase lines as relavium_desktop/ui/startup_probe.py, for the same table
    print(f"relavium-phase {phase} {time.monotonic():.6f} {time.process_time():.6f}", flush=True)
mark("interpreter")
from PySide6.QtWidgets import QApplication, QMainWindow
from PySide6.QtCore import QTimer
mark("imports")
class W(QMainWindow):
    done = False
    def paintEvent(self, e):
        super().paintEvent(e)
        if not self.done:
            self.done = True
            print(f"relavium-first-paint {time.monotonic():.6f} {time.process_time():.6f}", flush=True)
            QTimer.singleShot(0, app.quit)
app = QApplication([])
mark("qt-init")
w = W(); w.resize(1100, 700)
mark("window")
w.show()
mark("show")
app.exec()
"""
# The bare window kept open for the idle-memory baseline.
BARE_STAY = BARE.replace("QTimer.singleShot(0, app.quit)", "pass")


@dataclass
class Probe:
    """One child's start: seconds from spawn to its first paint, its CPU seconds, and each phase's end."""

    wall: float
    cpu: float
    phases: dict[str, float] = field(default_factory=dict)  # phase -> seconds since spawn
    cpu_phases: dict[str, float] = field(default_factory=dict)  # phase -> the child's CPU seconds at its end


def _parse(out: str, start: float, argv: list[str]) -> Probe:
    phases: dict[str, float] = {}
    cpu_phases: dict[str, float] = {}
    first_paint: tuple[float, float] | None = None
    for line in out.splitlines():  # the phases after the first paint too (the first page's)
        parts = line.split()
        if line.startswith("relavium-phase ") and len(parts) in (3, 4):
            phases[parts[1]] = float(parts[2]) - start
            if len(parts) == 4:
                cpu_phases[parts[1]] = float(parts[3])
        elif line.startswith("relavium-first-paint ") and first_paint is None:
            first_paint = (float(parts[1]) - start, float(parts[2]) if len(parts) > 2 else float("nan"))
    if first_paint is None:
        raise RuntimeError(f"no first-paint line from {argv}: {out!r}")
    return Probe(first_paint[0], first_paint[1], phases, cpu_phases)


def measure(argv: list[str], env: dict[str, str]) -> Probe:
    start = time.monotonic()
    out = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, check=True).stdout
    return _parse(out, start, argv)


# -- the two data folders -----------------------------------------------------------


def make_populated_home(home: Path, chats: int = CHATS, runs: int = RUNS_IN_HISTORY) -> None:
    """A data folder a user has worked in: chats, runs, a provider, the welcome done."""
    os.environ["RELAVIUM_HOME"] = str(home)  # the stores resolve the data folder from it
    from relavium_desktop.application.providers import provider_store
    from relavium_desktop.application.stores import run_store as open_run_store
    from relavium_desktop.application.stores import session_store
    from relavium_desktop.engine.llm.messages import Message, TextPart
    from relavium_desktop.engine.workflow.journal import RunInfo
    from relavium_desktop.providers.config import ProviderEntry

    sessions = session_store(home)
    now = time.time()
    for c in range(chats):
        sid = sessions.create(title=f"Chat {c}: pricing module refactor", agent_id="chat", mode="auto").id
        for t in range(3):
            sessions.append_message(sid, Message.user(f"Question {t} about the pricing module in chat {c}?"))
            sessions.append_message(sid, Message("assistant", (TextPart(
                f"Answer {t}: the discount is applied in `total()`; see **pricing.py**.\n\n" * 4),)))
    run_store = open_run_store(home)
    for r in range(runs):
        run_id = f"run-{r:03d}"
        run_store.run_started(RunInfo(run_id, "review", "Review a change", "review.relavium.yaml",
                                      now - 3600 * (runs - r)))
        for seq in range(12):
            run_store.record({"type": "node:completed" if seq % 3 else "node:started", "runId": run_id,
                              "sequenceNumber": seq, "timestamp": "2026-01-01T00:00:00Z", "nodeId": f"n{seq // 3}"})
        run_store.finished(run_id, "failed" if r % 7 == 0 else "completed", {"durationMs": 4200})
    run_store.close()
    provider_store(home).add("anthropic", ProviderEntry(
        kind="anthropic", base_url="https://api.anthropic.com", api_key="secret:anthropic"), replace=True)
    (home / "desktop-settings.ini").write_text("[welcome]\ndone=done\n", encoding="utf-8")


# -- imports before the first paint ----------------------------------------------------

_IMPORTTIME = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)$")


def import_profile(
    env: dict[str, str],
) -> tuple[list[tuple[str, int]], list[tuple[str, int]], list[tuple[str, int]], int]:
    """Before the first paint: (top-level imports by cumulative µs, packages by summed self µs,
    modules by self µs, module count).  A module's self time includes the Qt classes and enums
    its body is the first to touch (PySide6 creates them on first use)."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "relavium_desktop"], env=env,
                          capture_output=True, text=True, timeout=120, check=True)
    before = done.stderr.split("relavium-first-paint-mark", 1)[0]
    top: list[tuple[str, int]] = []
    modules: list[tuple[str, int]] = []
    packages: dict[str, int] = {}
    count = 0
    for line in before.splitlines():
        m = _IMPORTTIME.match(line)
        if not m:
            continue
        self_us, cumulative, indent, name = int(m[1]), int(m[2]), len(m[3]), m[4]
        count += 1
        modules.append((name, self_us))
        packages[name.split(".")[0]] = packages.get(name.split(".")[0], 0) + self_us
        if indent == 1:  # an import statement run by __main__ or a lazy import, not a nested one
            top.append((name, cumulative))
    top.sort(key=lambda item: -item[1])
    by_package = sorted(packages.items(), key=lambda item: -item[1])
    modules.sort(key=lambda item: -item[1])
    return top[:15], by_package[:15], modules[:15], count


# -- idle memory ---------------------------------------------------------------------


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def idle_rss(argv: list[str], env: dict[str, str], seconds: float) -> float:
    """VmRSS of a child ``seconds`` after its first paint, kept running and left alone."""
    child = subprocess.Popen(argv, env=dict(env, RELAVIUM_STARTUP_PROBE="stay"), stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True)
    try:
        assert child.stdout is not None
        deadline = time.monotonic() + 120
        for line in child.stdout:
            if line.startswith("relavium-first-paint") or time.monotonic() > deadline:
                break
        time.sleep(seconds)
        if child.poll() is not None:
            raise RuntimeError(f"{argv} ended before its idle memory was read (exit {child.returncode})")
        return rss_mb(child.pid)
    finally:
        child.terminate()
        try:
            child.wait(timeout=15)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


# -- report ----------------------------------------------------------------------------


def _bundle_launcher(path: str) -> tuple[Path, Path]:
    """(launcher, bundle folder) from either the folder or the launcher itself."""
    given = Path(path).resolve()
    launcher = given / "relavium-desktop" if given.is_dir() else given
    if not os.access(launcher, os.X_OK):
        raise SystemExit(f"startup.py: no executable relavium-desktop at {launcher}")
    return launcher, launcher.parent


def _size_mb(folder: Path) -> float:
    total = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
    return total / 1e6


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:6.0f} ms"


def phase_table(series: dict[str, list[Probe]], cpu: bool = False) -> list[str]:
    """Median length of each phase (from the previous phase's end; the first from spawn), wall or CPU.

    A phase a series does not mark (the bare window has no theme) is part of its next marked one."""
    order: list[str] = []
    for probes in series.values():
        for probe in probes:
            ends = dict(probe.phases, **{"first-paint": probe.wall})
            for name in sorted(ends, key=ends.__getitem__):
                if name not in order:
                    order.append(name)
    what = "CPU ms" if cpu else "ms"
    lines = [f"phase (median {what}; each from the previous one's end)".ljust(40)
             + "".join(label.rjust(12) for label in series)]
    totals = {label: 0.0 for label in series}
    for i, name in enumerate(order):
        row = f"  {name}".ljust(40)
        for label, probes in series.items():
            lengths = []
            for probe in probes:
                if cpu:
                    ends = dict(probe.cpu_phases, **{"first-paint": probe.cpu})
                else:
                    ends = dict(probe.phases, **{"first-paint": probe.wall})
                if name not in ends:
                    continue
                previous = [ends[p] for p in order[:i] if p in ends]
                lengths.append(ends[name] - (previous[-1] if previous else 0.0))
            if lengths:
                totals[label] += statistics.median(lengths)
            row += (f"{statistics.median(lengths) * 1000:.0f}" if lengths else "-").rjust(12)
        lines.append(row)
    lines.append("  (sum of the medians)".ljust(40) + "".join(f"{t * 1000:.0f}".rjust(12) for t in totals.values()))
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("runs", nargs="?", type=int, default=9)
    parser.add_argument("--idle-seconds", type=float, default=10.0)
    parser.add_argument("--no-idle", action="store_true", help="skip the idle-memory measurement")
    parser.add_argument("--bundle", help="the PyInstaller bundle folder (or its relavium-desktop)")
    args = parser.parse_args()
    bundle = _bundle_launcher(args.bundle) if args.bundle else None
    env = dict(os.environ, RELAVIUM_STARTUP_PROBE="1")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if not env.get("DISPLAY"):
        env["QT_QPA_PLATFORM"] = "offscreen"
    app = [sys.executable, "-m", "relavium_desktop"]
    bare = [sys.executable, "-c", BARE]
    ok = True
    with tempfile.TemporaryDirectory() as fresh, tempfile.TemporaryDirectory() as populated:
        fresh_env = dict(env, RELAVIUM_HOME=fresh)
        populated_env = dict(env, RELAVIUM_HOME=populated)
        started = time.monotonic()
        make_populated_home(Path(populated))
        print(f"populated home: {CHATS} chats, {RUNS_IN_HISTORY} runs, 1 provider "
              f"(made in {time.monotonic() - started:.1f} s)")
        for warm in (bare, app):  # the OS file cache and the .pyc files
            measure(warm, fresh_env)
        measure(app, populated_env)
        if bundle:
            measure([str(bundle[0])], fresh_env)
        series: dict[str, list[Probe]] = {"bare": [], "fresh": [], "populated": []}
        bundle_probes: list[Probe] = []
        for _ in range(args.runs):
            series["bare"].append(measure(bare, fresh_env))
            series["fresh"].append(measure(app, fresh_env))
            series["populated"].append(measure(app, populated_env))
            if bundle:
                bundle_probes.append(measure([str(bundle[0])], fresh_env))

        print(f"platform: {env.get('QT_QPA_PLATFORM') or 'DISPLAY=' + env['DISPLAY']}; "
              f"runs: {args.runs}, interleaved; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        bare_wall = statistics.median(p.wall for p in series["bare"])
        bare_cpu = statistics.median(p.cpu for p in series["bare"])
        print(f"{'':34}{'first paint':>14}{'ratio':>8}{'CPU to paint':>15}{'CPU ratio':>11}")
        for label, key in (("bare PySide6 window", "bare"), ("app, fresh home", "fresh"),
                           (f"app, {CHATS} chats + {RUNS_IN_HISTORY} runs", "populated")):
            wall = statistics.median(p.wall for p in series[key])
            cpu = statistics.median(p.cpu for p in series[key])
            print(f"{label:34}{_ms(wall):>14}{wall / bare_wall:8.2f}{_ms(cpu):>15}{cpu / bare_cpu:11.2f}")
            ok = ok and wall / bare_wall <= RATIO_TARGET
        print(f"target: ratio ≤ {RATIO_TARGET} (medians of {args.runs}, same invocation)")
        # The first frame is the window's chrome; its first page (welcome flow or chat) paints right after.
        print(f"{'':34}{'page painted':>14}{'ratio':>8}{'CPU to page':>15}{'CPU ratio':>11}")
        for label, key in (("app, fresh home", "fresh"), (f"app, {CHATS} chats + {RUNS_IN_HISTORY} runs", "populated")):
            pages = [p for p in series[key] if PAGE_PAINTED in p.phases]
            if pages:
                wall = statistics.median(p.phases[PAGE_PAINTED] for p in pages)
                cpu = statistics.median(p.cpu_phases.get(PAGE_PAINTED, float("nan")) for p in pages)
                print(f"{label:34}{_ms(wall):>14}{wall / bare_wall:8.2f}{_ms(cpu):>15}{cpu / bare_cpu:11.2f}")
        if bundle:
            bundle_wall = statistics.median(p.wall for p in bundle_probes)
            print(f"bundled relavium-desktop, first paint: median {_ms(bundle_wall)}, "
                  f"ratio {bundle_wall / bare_wall:.2f} ({bundle[0]}); size {_size_mb(bundle[1]):.0f} MB")

        print()
        phase_series = {k: series[k] for k in ("fresh", "populated", "bare")}
        print("\n".join(phase_table(phase_series)))
        print()
        print("\n".join(phase_table(phase_series, cpu=True)))

        print()
        top, packages, modules, count = import_profile(fresh_env)
        print(f"imports before the first paint (fresh home, -X importtime, one run): {count} modules")
        print("  slowest top-level imports (cumulative):")
        for name, micros in top:
            print(f"    {micros / 1000:7.1f} ms  {name}")
        print("  per top-level package (self time summed):")
        for name, micros in packages:
            print(f"    {micros / 1000:7.1f} ms  {name}")
        print("  slowest modules (self time):")
        for name, micros in modules:
            print(f"    {micros / 1000:7.1f} ms  {name}")

        if not args.no_idle:
            print()
            rss = {
                "bare PySide6 window": idle_rss([*bare[:2], BARE_STAY], fresh_env, args.idle_seconds),
                "app, fresh home": idle_rss(app, fresh_env, args.idle_seconds),
                f"app, {CHATS} chats + {RUNS_IN_HISTORY} runs": idle_rss(app, populated_env, args.idle_seconds),
            }
            print(f"idle RSS {args.idle_seconds:.0f} s after the first paint (target ≤ {RSS_TARGET_MB:.0f} MB):")
            for label, mb in rss.items():
                print(f"  {label:34}{mb:7.1f} MB")
            ok = ok and all(mb <= RSS_TARGET_MB for label, mb in rss.items() if label.startswith("app"))
    print(json.dumps({"within_targets": ok}))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
