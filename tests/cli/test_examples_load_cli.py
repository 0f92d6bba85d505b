"""Every shipped example loads where a user would use it: ``agent run``, ``chat --agent``, ``validate``.

The real ``relavium`` console script as a subprocess; the examples' ``anthropic``
provider is pointed at the scripted LLM server (tests/fixtures/llm_server.py),
so each agent really runs one turn.  "Add example workflows" copies these files
into a user's project, so one that loads in one command and not another is a
broken first step.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from relavium_desktop.application.agents import load_agent
from tests.cli.llm_cli import KEY
from tests.conftest import relavium_cmd
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.helpers import run_cli

REPO = Path(__file__).resolve().parents[2]
AGENTS = sorted((REPO / "resources").rglob("*.agent.yaml"))
WORKFLOWS = sorted((REPO / "resources" / "examples").glob("*.relavium.yaml"))


@pytest.fixture
def example_env(
    cli_env: dict[str, str], relavium_home: Path, llm_server: ScriptedLLMServer
) -> dict[str, str]:
    """The examples name ``anthropic``: that provider name goes to the scripted server (opted in as local)."""
    entries = {
        "providers": {
            "anthropic": {
                "kind": "anthropic",
                "base_url": llm_server.base_url,
                "api_key": "env:RELAVIUM_TEST_KEY",
                "allow_local": True,
            }
        }
    }
    (relavium_home / "providers.yaml").write_text(json.dumps(entries))
    return {**cli_env, "RELAVIUM_TEST_KEY": KEY}


def test_the_examples_are_there() -> None:
    assert [p.name for p in AGENTS] == ["reviewer.agent.yaml"]
    assert len(WORKFLOWS) >= 6


@pytest.mark.parametrize("agent", AGENTS, ids=lambda p: p.name)
def test_each_example_agent_runs_with_agent_run(
    agent: Path, example_env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    spec = load_agent(str(agent))  # the application's reading, which every surface shares
    llm_server.script(Reply.say("- looks fine"))
    code, events, err = run_cli(
        "agent",
        "run",
        str(agent),
        "--prompt",
        "review nothing",
        "--workspace",
        str(tmp_path),
        "--json",
        env=example_env,
    )
    assert code == 0, err
    assert events[-1]["type"] == "run:completed" and events[-1]["output"] == "- looks fine"
    sent = llm_server.requests[0].body
    assert sent["model"] == spec.model
    assert spec.system_prompt.strip() in json.dumps(sent)
    assert sorted(t["name"] for t in sent["tools"]) == sorted(spec.tools)


@pytest.mark.parametrize("agent", AGENTS, ids=lambda p: p.name)
def test_each_example_agent_chats_with_chat_agent(
    agent: Path, example_env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    spec = load_agent(str(agent))
    llm_server.script(Reply.say("Hello from the example"))
    proc = subprocess.run(
        [*relavium_cmd(), "chat", "--agent", str(agent), "--workspace", str(tmp_path)],
        input="hi\n",
        env=example_env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Hello from the example" in proc.stdout
    sent = llm_server.requests[0].body
    assert sent["model"] == spec.model and spec.system_prompt.strip() in json.dumps(sent)


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_each_example_workflow_validates(workflow: Path, example_env: dict[str, str]) -> None:
    code, out, err = run_cli("validate", str(workflow), "--json", env=example_env)
    assert code == 0, err
    assert out["ok"] is True
