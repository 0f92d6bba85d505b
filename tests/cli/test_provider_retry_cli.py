"""``relavium agent run`` and ``chat`` against a server that rate-limits, fails or answers nothing.

Real subprocesses against the scripted LLM server (tests/fixtures/llm_server.py),
which records when each request arrived, so a retry's wait is measured on the
server's side.  The bounds are wide on purpose: this checks behaviour (the
wait is at least what the server asked, and far below the cap), not speed.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from relavium_desktop.engine.llm.retry import RETRY_AFTER_CAP_S
from tests.cli.llm_cli import write_agent
from tests.conftest import relavium_cmd
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.helpers import run_cli


def test_a_429_with_retry_after_2_is_retried_after_2_s_and_the_wait_is_shown_live(
    env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    agent = write_agent(tmp_path / "a.agent.yaml", tools=[])
    llm_server.script(Reply.error(429, retry_after="2"), Reply.say("Answered after the wait."))
    proc = subprocess.Popen([*relavium_cmd(), "agent", "run", str(agent), "--prompt", "hi"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    shown = proc.stderr.readline() + proc.stderr.readline()  # a newline, then the notice
    # Live: the notice is on screen while the second request has not been sent yet.
    assert "rate limited, retrying in 2 s" in shown
    assert len(llm_server.requests) == 1
    out, rest = proc.communicate(timeout=60)
    assert proc.returncode == 0, rest
    first, second = llm_server.requests
    waited = second.at - first.at
    assert 2.0 <= waited <= RETRY_AFTER_CAP_S, waited
    assert out.strip() == "Answered after the wait."
    # Plain output ends with a one-line usage summary (tokens, and the cost: gpt-4o-mini has a price).
    assert rest.strip().splitlines()[-1] == "relavium agent: usage: 12 input + 7 output tokens, $0.0000"


def test_a_500_is_retried_by_default_and_the_retry_is_said(
    env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    agent = write_agent(tmp_path / "a.agent.yaml", tools=[])
    llm_server.script(Reply.error(500), Reply.say("second time lucky"))
    code, events, err = run_cli("agent", "run", str(agent), "--prompt", "hi", "--json", env=env)
    assert code == 0, err
    retrying = [e for e in events if e["type"] == "agent:retrying"]
    assert len(retrying) == 1 and retrying[0]["attemptNumber"] == 2
    assert retrying[0]["message"].startswith("the server failed (HTTP 500), retrying in")
    assert 500 <= retrying[0]["delayMs"] <= 1000  # first backoff: 1 s with jitter down to half
    assert events[-1]["output"] == "second time lucky" and len(llm_server.requests) == 2


def test_an_agents_own_retry_wins_but_never_retries_sooner_than_retry_after(
    env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    agent = write_agent(tmp_path / "a.agent.yaml", tools=[],
                        extra="retry:\n  max: 2\n  backoff: fixed\n  backoff_ms: 100\n")
    llm_server.script(Reply.error(429, retry_after="1"), Reply.say("ok"))
    code, events, err = run_cli("agent", "run", str(agent), "--prompt", "hi", "--json", env=env)
    assert code == 0, err
    kinds = [e["type"] for e in events]
    assert "agent:retrying" not in kinds  # the agent's own retry: the node retries, not the turn
    (node_retry,) = [e for e in events if e["type"] == "node:retrying"]
    assert node_retry["delayMs"] >= 1000
    first, second = llm_server.requests
    assert second.at - first.at >= 1.0

    # Its max wins too: two attempts (one retry), then the run fails with the server's reason.
    llm_server.script(Reply.error(429, retry_after="0"), Reply.error(429, retry_after="0"), Reply.say("never"))
    code, events, err = run_cli("agent", "run", str(agent), "--prompt", "hi", "--json", env=env)
    assert code == 1 and events[-1]["error"]["code"] == "provider_rate_limit"
    assert llm_server.pending == 1


def test_an_empty_answer_is_said_and_fails_the_run(
    env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    agent = write_agent(tmp_path / "a.agent.yaml", tools=[])
    llm_server.script(Reply.say(""), Reply.say(""), Reply.say(""), Reply.say(""))
    code, out, err = run_cli("agent", "run", str(agent), "--prompt", "hi", env=env)
    assert code == 1 and out.strip() == ""  # no blank "answer"
    assert "the model returned an empty answer" in err
    assert err.strip().splitlines()[-1].startswith("relavium agent: usage: ")


def test_a_refused_write_names_the_flag_that_allows_it(
    env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    agent = write_agent(tmp_path / "a.agent.yaml", tools=["write_file"])
    llm_server.script(Reply.call("write_file", {"path": "out.txt", "content": "x"}), Reply.say("never"))
    code, _, err = run_cli("agent", "run", str(agent), "--prompt", "go", "--workspace", str(tmp_path), env=env)
    assert code == 1
    assert "--approve-all fs_write" in err
    assert not (tmp_path / "out.txt").exists()


def test_chat_shows_the_retry_and_each_turns_usage_and_an_empty_answer_exits_non_zero(
    env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    agent = write_agent(tmp_path / "a.agent.yaml", tools=[])
    llm_server.script(Reply.error(503, retry_after="1"), Reply.say("Hello there."))
    started = time.monotonic()
    code, out, err = run_cli("chat", "--agent", str(agent), "--workspace", str(tmp_path), input="hi\n", env=env)
    assert code == 0, err
    assert time.monotonic() - started >= 1.0
    assert "[retrying] the server is unavailable (HTTP 503), retrying in 1 s" in err
    assert "Hello there." in out and "[usage: 12 input + 7 output tokens, $0.0000]" in out

    llm_server.script(*[Reply.say("")] * 4)
    code, out, _ = run_cli("chat", "--agent", str(agent), "--workspace", str(tmp_path), input="hi\n", env=env)
    assert code == 1
    assert "the model returned an empty answer" in out
