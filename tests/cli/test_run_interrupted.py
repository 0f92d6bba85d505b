"""``relavium run`` whose process dies (SIGKILL) or whose stdout goes away (``| head``).

Real console script, real process host (``sleep`` through ``run_command``),
real history.db read back from a new process.
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
import pytest

from tests.conftest import relavium_cmd
from tests.helpers import run_cli

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and sleep(1)")

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


def runs_from_a_new_process(env: dict[str, str]) -> dict[str, dict[str, Any]]:
    """RunStore.list_runs as another process (the window, a later command) sees it."""
    code = ("import json; from relavium_desktop.host.datadir import data_dir; "
            "from relavium_desktop.store.runs import RunStore; s = RunStore.open(data_dir()); "
            "print(json.dumps(s.list_runs())); s.close()")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True,
                         timeout=60).stdout
    return {r["id"]: r for r in json.loads(out)}


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


# The node cut off by the kill sleeps 3 s, so continuing the run re-runs it quickly.
KILLABLE = SLOW.replace("'sleep 30']", "'sleep 3']").replace("args: ['30']", "args: ['3']")


def test_a_killed_run_reads_interrupted_and_continues_from_its_checkpoint(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    wf = tmp_path / "slow.relavium.yaml"
    wf.write_text(KILLABLE)
    proc = start_run(wf, cli_env, tmp_path)
    children: list[psutil.Process] = []
    try:
        events = read_until(proc, "node:started", "wait")
        run_id = events[0]["runId"]
        # While its process lives, any other process sees the run as running.
        deadline = time.monotonic() + 20
        while (row := runs_from_a_new_process(cli_env).get(run_id)) is None or row["status"] != "running":
            assert time.monotonic() < deadline, row
            time.sleep(0.1)
        assert row["owner_pid"] == proc.pid
        children = sleep_child(proc)  # `sleep 3`, in its own session: killed by hand below
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

    row = runs_from_a_new_process(cli_env)[run_id]
    assert row["status"] == "interrupted"
    assert row["error"]["code"] == "process_ended" and f"pid {proc.pid}" in row["error"]["message"]

    # A gate decision makes no sense for it: a usage error, one clear line, nothing re-run.
    code, _out, err = run_cli("run", "--resume", run_id, "--decision", "approve", env=cli_env, cwd=tmp_path)
    assert code == 2 and "give --resume RUN_ID alone" in err and "Traceback" not in err
    assert runs_from_a_new_process(cli_env)[run_id]["status"] == "interrupted"

    # --resume alone continues it: `nap` (finished before the kill) is kept, `wait` runs again.
    done = subprocess.run([*relavium_cmd(), "run", "--resume", run_id, "--json"], check=False, env=cli_env,
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    resumed = [json.loads(line) for line in done.stdout.splitlines()]
    started = [e["nodeId"] for e in resumed if e["type"] == "node:started"]
    assert started == ["wait", "out"] and resumed[-1]["type"] == "run:completed"
    assert resumed[0]["sequenceNumber"] > 0  # numbering goes on from the checkpoint
    row = runs_from_a_new_process(cli_env)[run_id]
    assert row["status"] == "completed" and row["error"] is None
    code = ("import json; from relavium_desktop.host.datadir import data_dir; "
            "from relavium_desktop.store.runs import RunStore; s = RunStore.open(data_dir()); "
            f"print(json.dumps([e['sequenceNumber'] for e in s.events({run_id!r})])); s.close()")
    seqs = json.loads(subprocess.run([sys.executable, "-c", code], env=cli_env, capture_output=True, text=True,
                                     check=True, timeout=60).stdout)
    assert seqs == list(range(len(seqs)))  # one gap-free log across both processes

    # Once finished it is not interrupted any more: --resume alone is a usage error again.
    code, _out, err = run_cli("run", "--resume", run_id, env=cli_env, cwd=tmp_path)
    assert code == 2 and "--decision" in err


def test_a_closed_stdout_stops_the_run_quietly_and_records_it_interrupted(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    wf = tmp_path / "slow.relavium.yaml"
    wf.write_text(SLOW)
    proc = start_run(wf, cli_env, tmp_path)
    assert proc.stdout is not None and proc.stderr is not None
    first = json.loads(proc.stdout.readline())
    assert first["type"] == "run:started"
    proc.stdout.close()  # `relavium run … | head -1`
    started = time.monotonic()
    try:
        code = proc.wait(60)
        err = proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()
    assert code == 1
    assert "Traceback" not in err and "Exception ignored" not in err and "BrokenPipe" not in err, err
    assert time.monotonic() - started < 25  # it stopped; it did not sit out `sleep 30`

    row = runs_from_a_new_process(cli_env)[first["runId"]]
    assert row["status"] == "interrupted"
    assert row["error"]["code"] == "output_closed"
    code, _out, err = run_cli("run", "--resume", first["runId"], env=cli_env, cwd=tmp_path)
    assert code == 2 and "stdout was closed" in err


def test_a_closed_stdout_without_json_is_quiet_too(cli_env: dict[str, str], tmp_path: Path) -> None:
    wf = tmp_path / "slow.relavium.yaml"
    wf.write_text(SLOW)
    proc = subprocess.Popen([*relavium_cmd(), "run", str(wf), "--workspace", str(tmp_path)], env=cli_env,
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stderr is not None
    assert "run:started" in proc.stdout.readline()
    proc.stdout.close()
    try:
        code = proc.wait(60)
        err = proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()
    assert code == 1 and "Traceback" not in err and "Exception ignored" not in err, err
    (row,) = runs_from_a_new_process(cli_env).values()
    assert row["status"] == "interrupted"


def test_a_run_that_finishes_is_not_touched(cli_env: dict[str, str], tmp_path: Path) -> None:
    wf = tmp_path / "quick.relavium.yaml"
    wf.write_text(SLOW.replace("args: ['30']", "args: ['1']"))
    code, events, err = run_cli("run", str(wf), "--workspace", str(tmp_path), "--json", env=cli_env, cwd=tmp_path)
    assert code == 0, err
    assert runs_from_a_new_process(cli_env)[events[-1]["runId"]]["status"] == "completed"


def test_the_printer_stops_the_run_instead_of_raising_into_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """In process: the event callback swallows the closed pipe, says why once, and asks the run to stop."""
    import io

    from relavium_desktop.cli.run_cmd import _Printer

    class Gone(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", Gone())
    stops: list[bool] = []
    printer = _Printer(as_json=True)
    printer.on_lost = lambda: stops.append(True)
    event = {"type": "node:started", "runId": "r", "sequenceNumber": 3, "nodeId": "a"}
    printer(event)
    printer(event)
    assert printer.lost == "stdout was closed before the run ended" and stops == [True]
    assert not isinstance(sys.stdout, Gone)  # later writes (and the exit flush) go nowhere, quietly
    print("ignored")
