"""The official MCP conformance suite's client scenarios, run against the real CLI.

``@modelcontextprotocol/conformance`` (pinned in tests/fixtures/conformance,
installed by scripts/setup) starts each scenario's server(s) and runs
:mod:`tests.conformance.adapter` as the client: the real ``relavium`` CLI,
with a scripted browser behind ``$BROWSER`` and stdin on a pseudo-terminal.
Every scenario the pinned version lists for a client is run, except the ones
named in ``expected_failures.txt`` with their reason; a scenario listed there
that now passes fails the test too, so the list only shrinks.

The keyring is real: gnome-keyring on a session bus of its own (sign-in tokens
and a pre-registered client's secret live there).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.fixtures.desktop_bus import DesktopBus, start_desktop_bus

HERE = Path(__file__).resolve().parent
SUITE_DIR = HERE.parent / "fixtures" / "conformance"
SUITE = SUITE_DIR / "node_modules" / ".bin" / "conformance"
EXPECTED = HERE / "expected_failures.txt"
SCENARIO_TIMEOUT_MS = 90_000


def expected_failures() -> dict[str, str]:
    out: dict[str, str] = {}
    for raw in EXPECTED.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            name, _, reason = line.partition(" ")
            out[name] = reason.strip()
    return out


def client_scenarios(env: dict[str, str]) -> list[str]:
    listed = subprocess.run(
        [str(SUITE), "list", "--client"], capture_output=True, text=True, env=env, check=True, cwd=SUITE_DIR
    )
    return re.findall(r"^\s+-\s+(\S+)$", listed.stdout, flags=re.M)


def run_scenario(name: str, env: dict[str, str], out_dir: Path) -> tuple[str, bool, str]:
    command = f"{sys.executable} {HERE / 'adapter.py'}"
    done = subprocess.run(
        [
            str(SUITE),
            "client",
            "--command",
            command,
            "--scenario",
            name,
            "--timeout",
            str(SCENARIO_TIMEOUT_MS),
            "-o",
            str(out_dir),
        ],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        cwd=SUITE_DIR,
        timeout=SCENARIO_TIMEOUT_MS / 1000 + 60,
    )
    text = done.stdout + done.stderr
    return name, done.returncode == 0 and "OVERALL: PASSED" in text, text


_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_ROUTINE = re.compile(r"\] +(SUCCESS|INFO) ")


def digest(text: str) -> str:
    """A failed scenario's output without its colours and routine request lines: what failed and
    the client's own stderr, short enough that CI's log keeps it whole."""
    lines = [_ANSI.sub("", line) for line in text.splitlines()]
    return "\n".join(line for line in lines if line.strip() and not _ROUTINE.search(line))[-6000:]


@pytest.fixture(name="own_keyring")
def own_keyring_fixture(tmp_path: Path) -> Iterator[DesktopBus]:
    """A bus and keyring for this test alone: the worker's shared one carries whatever earlier tests
    on the worker left there, and this test's scenarios store dozens of sign-ins of their own."""
    bus = start_desktop_bus(tmp_path / "desktop")
    try:
        yield bus
    finally:
        bus.stop()


def test_every_client_scenario_passes_or_is_a_named_expected_failure(
    own_keyring: DesktopBus, tmp_path: Path
) -> None:
    assert SUITE.exists(), "the conformance suite is not installed: run scripts/setup"
    env = {**own_keyring.full_env(), "NO_COLOR": "1", "FORCE_COLOR": "0"}
    env.pop("PYTHON_KEYRING_BACKEND", None)
    env.pop("RELAVIUM_HOME", None)  # the adapter makes one per scenario
    scenarios = client_scenarios(env)
    assert len(scenarios) >= 20, scenarios
    only = os.environ.get("RELAVIUM_CONFORMANCE_ONLY")
    if only:
        scenarios = [s for s in scenarios if re.search(only, s)]
    expected = expected_failures()
    assert set(expected) <= set(scenarios) or only, (
        f"expected_failures.txt names unknown scenarios: {set(expected) - set(scenarios)}"
    )
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda s: run_scenario(s, env, tmp_path / "results"), scenarios))
    table = {name: ok for name, ok, _ in results}
    (tmp_path / "table.json").write_text(json.dumps(table, indent=1))
    print("\n".join(f"{name}: {'pass' if ok else 'FAIL'}" for name, ok in table.items()))
    unexpected = {name: digest(text) for name, ok, text in results if not ok and name not in expected}
    now_passing = sorted(name for name, ok, _ in results if ok and name in expected)
    keyring_log = own_keyring.root / "gnome-keyring.log"
    daemon = own_keyring.processes[-1]  # started after the bus
    alive = "still running" if daemon.poll() is None else f"exited with {daemon.returncode}"
    assert not unexpected, (
        "scenarios failed:\n"
        + "\n\n".join(f"== {n}\n{t}" for n, t in unexpected.items())
        + f"\n\n== the keyring daemon ({alive}) and its log: sign-ins and client secrets live there\n"
        + (keyring_log.read_text(errors="replace")[-3000:] if keyring_log.exists() else "(none)")
        + f"\n(free space where the keyring lives: {shutil.disk_usage(tmp_path).free // 2**20} MiB)"
    )
    assert not now_passing, f"these pass now; remove them from expected_failures.txt: {now_passing}"
