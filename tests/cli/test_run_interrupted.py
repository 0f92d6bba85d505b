"""``relavium run`` whose process dies (SIGKILL) or whose stdout goes away (``| head``).

Real console script, real process host (``sleep`` through ``run_command``),
real history.db read back from a new process.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.run_processes import (
    SLOW,
    exit_after_stdout_closed,
    from_a_new_process,
    killed_at_its_sleep,
    read_until,
    runs_from_a_new_process,
    start_run,
)
from tests.conftest import relavium_cmd
from tests.helpers import run_cli

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and sleep(1)")

# The node cut off by the kill sleeps 3 s, so continuing the run re-runs it quickly.
KILLABLE = SLOW.replace("'sleep 30']", "'sleep 3']").replace("args: ['30']", "args: ['3']")


def test_a_killed_run_reads_interrupted_and_continues_from_its_checkpoint(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    wf = tmp_path / "slow.relavium.yaml"
    wf.write_text(KILLABLE)
    proc = start_run(wf, cli_env, tmp_path)
    with killed_at_its_sleep(proc):  # `sleep 3`, in its own session
        events = read_until(proc, "node:started", "wait")
        run_id = events[0]["runId"]
        # While its process lives, any other process sees the run as running.
        deadline = time.monotonic() + 20
        while (row := runs_from_a_new_process(cli_env).get(run_id)) is None or row["status"] != "running":
            assert time.monotonic() < deadline, row
            time.sleep(0.1)
        assert row["owner_pid"] == proc.pid

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
    seqs = from_a_new_process(cli_env, f"[e['sequenceNumber'] for e in s.events({run_id!r})]")
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
    started = time.monotonic()
    code, err = exit_after_stdout_closed(proc)  # `relavium run … | head -1`
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
    code, err = exit_after_stdout_closed(proc)
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
