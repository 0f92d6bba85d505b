"""kill -9 of ``relavium run`` while a ``run_command`` child runs: no child survives, resume completes.

Real console script, real ``sleep`` and ``setsid`` children found in
``/proc`` by a unique marker in their command line, real history.db.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil
import pytest

from tests.chat_kills import KEPT_WITHIN_S, Streamed, check_kept, kill_mid_answer, session_of, shown_answer
from tests.cli.llm_cli import KEY, write_agent, write_providers
from tests.cli.run_processes import read_until, runs_from_a_new_process, start_run
from tests.conftest import relavium_cmd
from tests.fixtures.llm_server import Reply
from tests.fixtures.slow_llm import SlowLLMServer, long_answer, slow_llm_server

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc, parent-death signal")

KILLS = 5


def _workflow(escaped: str, waiting: str) -> str:
    """Two steps side by side, both killed mid-sleep.

    ``wait`` is a plain child.  ``bg`` runs ``setsid -w``, which (being a group
    leader) forks the sleeper into a session of its own and waits for it: the
    sleeper is neither a direct child nor in the step's group, so only the
    watcher can reach it.
    """
    return f"""schema_version: '1.0'
workflow:
  id: orphans
  name: Orphan check
  tools: {{allowedCommands: ['setsid -w sleep {escaped}', 'sleep {waiting}']}}
  nodes:
    - {{id: s, type: input}}
    - id: bg
      type: tool
      tool_config: {{tool_name: run_command, input_mapping: {{command: setsid, args: ['-w', 'sleep', '{escaped}']}}}}
    - id: wait
      type: tool
      tool_config: {{tool_name: run_command, input_mapping: {{command: sleep, args: ['{waiting}']}}}}
    - {{id: out, type: output}}
  edges: [{{from: s, to: bg}}, {{from: s, to: wait}}, {{from: bg, to: out}}, {{from: wait, to: out}}]
"""


def _with_marker(marker: str) -> list[int]:
    """Live (non-zombie) processes whose command line carries ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            if marker.encode() in cmdline and psutil.Process(int(entry)).status() != psutil.STATUS_ZOMBIE:
                found.append(int(entry))
        except (OSError, psutil.Error):
            continue
    return found


def _gone(marker: str, within_s: float = 2.0) -> list[int]:
    deadline = time.monotonic() + within_s
    while (left := _with_marker(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def test_kill_9_of_a_run_leaves_no_child_and_resume_completes(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    """Five runs side by side, each killed at its own random moment of its steps' sleeps, then resumed."""

    def one(attempt: int) -> None:
        # Unique per attempt (and per test run): a survivor of another attempt is never counted.
        # Long enough that neither ends on its own before it is looked for (2 s after the kill).
        escaped = f"10.{os.getpid()}{attempt}1"
        waiting = f"6.{os.getpid()}{attempt}"
        wf = tmp_path / f"orphans{attempt}.relavium.yaml"
        wf.write_text(_workflow(escaped, waiting))
        proc = start_run(wf, cli_env, tmp_path)
        try:
            events = read_until(proc, "node:started", "wait")
            run_id = events[0]["runId"]
            deadline = time.monotonic() + 60
            while not (_with_marker(waiting) and _with_marker(escaped)):
                assert time.monotonic() < deadline, "the run never started its sleep"
                time.sleep(0.02)
            leader = [p for p in psutil.Process(proc.pid).children() if p.name() == "setsid"]
            sleeper = [pid for pid in _with_marker(escaped) if psutil.Process(pid).name() == "sleep"]
            assert leader and sleeper and os.getsid(sleeper[0]) != os.getsid(leader[0].pid)  # it did escape
            time.sleep(
                random.Random(29 + attempt).uniform(0.0, 1.5)
            )  # a random moment of the children's life
            proc.send_signal(signal.SIGKILL)
            proc.wait(30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()
        # The direct child (parent-death signal) and the one that left the group (watcher) are gone.
        assert _gone(waiting) == [], f"attempt {attempt}: the step's child outlived the killed run"
        assert _gone(escaped) == [], f"attempt {attempt}: the setsid'ed grandchild outlived the killed run"

        # --resume alone is accepted only for an interrupted run: the kill was recorded as one.
        done = subprocess.run(
            [*relavium_cmd(), "run", "--resume", run_id, "--json"],
            check=False,
            env=cli_env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        resumed = [json.loads(line) for line in done.stdout.splitlines()]
        assert sorted(e["nodeId"] for e in resumed if e["type"] == "node:started") == ["bg", "out", "wait"]
        assert resumed[-1]["type"] == "run:completed"
        assert runs_from_a_new_process(cli_env)[run_id]["status"] == "completed"

    with ThreadPoolExecutor(KILLS) as pool:
        list(pool.map(one, range(KILLS)))  # re-raises the first attempt that failed


def test_resume_refuses_while_an_earlier_attempt_of_the_step_still_runs(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    """A survivor the watcher could not end (say it was killed too) blocks the step it belongs to."""
    waiting = f"2.{os.getpid()}9"
    wf = tmp_path / "survivor.relavium.yaml"
    wf.write_text(_workflow(f"2.{os.getpid()}91", waiting))
    proc = start_run(wf, cli_env, tmp_path)
    survivor: subprocess.Popen[bytes] | None = None
    try:
        run_id = read_until(proc, "node:started", "wait")[0]["runId"]
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        # Stand-in for a survivor: a live process recorded as the `wait` step's child.
        survivor = subprocess.Popen(["sleep", "60"])
        started = psutil.Process(survivor.pid).create_time()
        code = (
            "from relavium_desktop.host.datadir import data_dir; from relavium_desktop.store.runs import RunStore; "
            f"s = RunStore.open(data_dir()); s.child_started({run_id!r}, 'wait', {survivor.pid}, {started!r}); "
            "s.close()"
        )
        subprocess.run([sys.executable, "-c", code], env=cli_env, check=True, timeout=60)

        done = subprocess.run(
            [*relavium_cmd(), "run", "--resume", run_id],
            check=False,
            env=cli_env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 2
        assert f"step 'wait' of run '{run_id}' still has a process running" in done.stderr
        assert f"pid {survivor.pid}" in done.stderr and "Traceback" not in done.stderr
        assert runs_from_a_new_process(cli_env)[run_id]["status"] == "interrupted"  # nothing was claimed

        survivor.kill()
        survivor.wait()
        done = subprocess.run(
            [*relavium_cmd(), "run", "--resume", run_id, "--json"],
            check=False,
            env=cli_env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
    finally:
        for p in (proc, survivor):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


CHAT_KILLS = 10
SIDE_BY_SIDE = 5  # chats at once: the kills overlap with the next chats starting up


@pytest.fixture
def slow_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[SlowLLMServer]:
    with slow_llm_server(monkeypatch) as server:
        yield server


def test_kill_9_during_a_streamed_chat_answer_keeps_the_question_and_the_partial_answer(
    cli_env: dict[str, str], relavium_home: Path, slow_server: SlowLLMServer, tmp_path: Path
) -> None:
    """``relavium chat`` killed at random moments of a slow streamed answer, 10 times (real CLI, real server).

    The chats run a few at a time (each its own session in one history.db),
    each killed at its own random moment.
    """
    write_providers(relavium_home, slow_server.base_url)
    env = {**cli_env, "RELAVIUM_TEST_KEY": KEY}
    agent = write_agent(tmp_path / "helper.agent.yaml", tools=[])
    answer = long_answer()
    slow_server.script(*(Reply.say(answer) for _ in range(CHAT_KILLS)))

    def one(attempt: int) -> tuple[str, Streamed, float, float]:
        question = f"tell me a long story, take {attempt}"
        proc = subprocess.Popen(
            [*relavium_cmd(), "chat", "--agent", str(agent), "--workspace", str(tmp_path)],
            env=env,
            cwd=tmp_path,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=(tmp_path / f"err{attempt}").open("wb"),
        )
        try:
            streamed = Streamed(proc).start()
            assert proc.stdin is not None
            proc.stdin.write(question.encode() + b"\n")
            proc.stdin.flush()
            began, killed_at = kill_mid_answer(streamed, random.Random(2029 + attempt), "word000")
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            for stream in (proc.stdin, proc.stdout):
                if stream is not None:
                    stream.close()
        return question, streamed, began, killed_at

    with ThreadPoolExecutor(SIDE_BY_SIDE) as pool:
        runs = list(pool.map(one, range(CHAT_KILLS)))
    kept_lengths = []
    for question, streamed, began, killed_at in runs:
        shown = shown_answer(streamed.text_at(killed_at - KEPT_WITHIN_S), "word000")
        kept = check_kept(
            relavium_home,
            session_of(streamed.text()),
            question,
            answer,
            shown_before=shown,
            streamed_for_s=killed_at - began,
        )
        kept_lengths.append(len(kept))
    assert sum(1 for n in kept_lengths if n) >= CHAT_KILLS // 2, kept_lengths
