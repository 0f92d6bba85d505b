"""Real ``relavium run`` processes for tests that kill them or close their output.

Shared by the CLI and the Runs / History tests (a plain module, not a test
module, so neither imports the other's tests).
"""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil

from tests.conftest import relavium_cmd

SLOW = """schema_version: '1.0'
workflow:
  id: slow
  name: Slow steps
  tools: {allowedCommands: ['sleep 1', 'sleep 30']}
  nodes:
    - {id: s, type: input}
    - id: nap
      type: tool
      tool_config: {tool_name: run_command, input_mapping: {command: sleep, args: ['1']}}
    - id: wait
      type: tool
      tool_config: {tool_name: run_command, input_mapping: {command: sleep, args: ['30']}}
    - {id: out, type: output}
  edges: [{from: s, to: nap}, {from: nap, to: wait}, {from: wait, to: out}]
"""


def from_a_new_process(env: dict[str, str], expression: str) -> Any:
    """``expression`` over an open RunStore ``s``, evaluated in another process (as the window or a later command)."""
    code = ("import json; from relavium_desktop.host.datadir import data_dir; "
            "from relavium_desktop.store.runs import RunStore; s = RunStore.open(data_dir()); "
            f"print(json.dumps({expression})); s.close()")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True,
                         timeout=60).stdout
    return json.loads(out)


def runs_from_a_new_process(env: dict[str, str]) -> dict[str, dict[str, Any]]:
    """RunStore.list_runs as another process sees it, by run id."""
    return {r["id"]: r for r in from_a_new_process(env, "s.list_runs()")}


def start_run(wf: Path, env: dict[str, str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([*relavium_cmd(), "run", str(wf), "--workspace", str(cwd), "--json"], env=env, cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def read_until(proc: subprocess.Popen[str], kind: str, node: str | None = None) -> list[dict[str, Any]]:
    assert proc.stdout is not None
    events = []
    for line in proc.stdout:
        events.append(json.loads(line))
        if events[-1]["type"] == kind and events[-1].get("nodeId") == node:
            return events
    raise AssertionError(f"the run ended before {kind} {node}: {events}")


def sleep_child(proc: subprocess.Popen[str]) -> list[psutil.Process]:
    """Wait until the run's `sleep` is running (node:started comes just before it spawns); its process tree."""
    deadline = time.monotonic() + 20
    while True:
        children = psutil.Process(proc.pid).children(recursive=True)
        if any(c.name() == "sleep" for c in children):
            return children
        assert time.monotonic() < deadline, "the run never started its sleep"
        time.sleep(0.05)


@contextlib.contextmanager
def killed_at_its_sleep(proc: subprocess.Popen[str]) -> Any:
    """Run the body while ``proc`` lives, then SIGKILL it once its `sleep` runs; never leave a process behind.

    The run's `sleep` is in its own session, so it outlives a killed run: it is killed by hand.
    """
    children: list[psutil.Process] = []
    try:
        yield
        children = sleep_child(proc)
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for child in children:
            with contextlib.suppress(psutil.Error):
                child.kill()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def exit_after_stdout_closed(proc: subprocess.Popen[str]) -> tuple[int, str]:
    """Close the run's stdout (as ``| head`` does), then its exit code and stderr."""
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    try:
        code = proc.wait(60)
        err = proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()
    return code, err
