"""Upstream's agent-file fields through ``relavium agent run``, as a real subprocess.

``reasoning_effort`` reaches the request the scripted OpenAI-format server
received; ``input_schema`` refuses a prompt it does not allow before any
request (exit 2); ``mcp_servers`` in upstream's list form and ``memory:
{type: none}`` are accepted, ``memory: {type: window}`` refused saying why.
"""

from __future__ import annotations

from pathlib import Path

from tests.cli.llm_cli import write_agent
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.helpers import run_cli


def test_reasoning_effort_and_input_schema_in_an_agent_file(
    env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    agent = write_agent(tmp_path / "a.agent.yaml", tools=[], extra=(
        "reasoning_effort: medium\n"
        "input_schema: {type: string, maxLength: 20}\n"
        "memory: {type: none}\n"
        "mcp_servers: []\n"
    ))
    llm_server.script(Reply.say("fine"))
    code, _, err = run_cli("agent", "run", str(agent), "--prompt", "is it fine?", "--json", env=env)
    assert code == 0, err
    assert llm_server.requests[0].body["reasoning_effort"] == "medium"

    code, _, err = run_cli("agent", "run", str(agent), "--prompt", "a prompt far longer than twenty", env=env)
    assert code == 2
    assert "--prompt: input does not match the agent's input_schema (maxLength: 20)" in err
    assert len(llm_server.requests) == 1  # nothing was sent for the refused prompt


def test_window_memory_is_refused_saying_it_is_a_later_phase(env: dict[str, str], tmp_path: Path) -> None:
    agent = write_agent(tmp_path / "a.agent.yaml", tools=[], extra="memory: {type: window, window_size: 4}\n")
    code, _, err = run_cli("agent", "run", str(agent), "--prompt", "hi", env=env)
    assert code == 2 and "window and summary memory are a later phase upstream" in err
