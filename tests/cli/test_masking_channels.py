"""Issue 21 item 3, acceptance: no piece of a key leaves through any channel.

Random key-shaped values -- one of every family the masking policy knows
(Anthropic, OpenAI, GitHub, AWS, Slack, Google, GitLab, JWT) plus a generic
high-entropy provider key that only its value identifies -- go into a tool id,
tool arguments, workflow inputs and MCP server answers (results, structured
content, progress and log notifications, an ``isError`` result with the key
split across lines, a JSON-RPC error).  Everything runs through the real
``relavium`` console script as subprocesses with ``RELAVIUM_LOG=debug``:

* ``relavium tool call <key>`` (JSON and text), ``tool call http_request`` with
  the key in the URL, ``tool call run_command`` whose output spills to a file;
* ``relavium run`` of a workflow whose tool nodes (run_command, write_file,
  read_file, list_directory, four MCP tools) receive the inputs, ending in
  an MCP error so ``node:failed`` and ``run:failed`` carry the server's text;
* ``relavium tool call mcp_call`` of a tool answering with a JSON-RPC error;
* ``relavium agent run`` against the scripted LLM server, whose model calls a
  tool with the provider key itself (masked by value: it has no known shape).

Then every channel is searched: stdout, stderr (log lines included), every
file under ``$RELAVIUM_HOME`` as raw bytes (history.db and its WAL, spill
files under ``runs/``) and every text column of history.db read back through
SQLite (a row can straddle pages on disk).  No eight-character piece of any
key may survive anywhere.  The keys are drawn from a seeded generator; the
seed is printed on failure and ``RELAVIUM_MASK_SEED`` replays it.

The MCP servers are real processes (``tests/fixtures/mcp_leaky_server.py``),
the LLM server is the scripted wire-format fixture: nothing is mocked.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import string
import sys
from pathlib import Path
from typing import Any

from tests.cli.llm_cli import write_agent, write_providers
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.helpers import run_cli

LEAKY = str(Path(__file__).resolve().parents[1] / "fixtures" / "mcp_leaky_server.py")
ALNUM = string.ascii_letters + string.digits


def _keys(rng: random.Random) -> dict[str, str]:
    def draw(n: int, alphabet: str = ALNUM) -> str:
        return "".join(rng.choice(alphabet) for _ in range(n))

    upper = string.ascii_uppercase + string.digits
    return {
        "anthropic": "sk-ant-api03-" + draw(40),
        "anthropic_split": "sk-ant-api03-" + draw(44),
        "openai": "sk-proj-" + draw(40),
        "github": "ghp_" + draw(36),
        "aws": "AKIA" + draw(16, upper),
        "slack": f"xoxb-{draw(11, string.digits)}-{draw(12, string.digits)}-{draw(24)}",
        "google": "AIza" + draw(35),
        "gitlab": "glpat-" + draw(20),
        "jwt": f"eyJ{draw(20)}.{draw(30)}.{draw(30)}",
        "generic": draw(40),  # known only by value: the provider key
    }


def _pieces(key: str) -> set[str]:
    return {key[i:i + 8] for i in range(len(key) - 7)}


def _split(key: str) -> str:
    """The key broken across lines, as a wrapped error message shows it."""
    return f"{key[:24]}\n{key[24:]}"


def _db_texts(home: Path) -> str:
    conn = sqlite3.connect(home / "history.db")
    try:
        out: list[str] = []
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            for row in conn.execute(f'SELECT * FROM "{table}"'):  # table names come from sqlite_master
                out += [str(v) for v in row if isinstance(v, str)]
        return "\n".join(out)
    finally:
        conn.close()


def _leaks(keys: dict[str, str], channels: dict[str, bytes]) -> list[str]:
    """Each surviving piece, with the channel and the bytes around it (what a reader would see)."""
    found = []
    for family, key in keys.items():
        for piece in sorted(_pieces(key)):
            for name, data in channels.items():
                at = data.find(piece.encode())
                if at >= 0:
                    found.append(f"{family} piece {piece!r} in {name}: {data[max(0, at - 60):at + 40]!r}")
    return found


WORKFLOW = """schema_version: '1.0'
workflow:
  id: masking-channels
  inputs:
    - {name: who, type: string}
    - {name: note, type: string}
    - {name: extra, type: string}
    - {name: token_like, type: string}
    - {name: structured, type: string}
    - {name: chatter, type: string}
    - {name: broken, type: string}
  tools: {allowedCommandGlobs: ['echo * *']}
  nodes:
    - {id: s, type: input}
    - id: say
      type: tool
      tool_config:
        tool_name: run_command
        input_mapping: {command: echo, args: ['{{ inputs.who }}', '{{ inputs.note }}']}
    - id: save
      type: tool
      tool_config:
        tool_name: write_file
        input_mapping: {path: notes.txt, content: '{{ inputs.extra }} and {{ inputs.token_like }}'}
    - id: load
      type: tool
      tool_config:
        tool_name: read_file
        input_mapping: {path: notes.txt}
    - id: listing
      type: tool
      tool_config:
        tool_name: list_directory
        input_mapping: {path: .}
    - id: echoed
      type: tool
      tool_config:
        tool_name: mcp_leaky_echo
        input_mapping: {text: '{{ inputs.who }}'}
    - id: shaped
      type: tool
      tool_config:
        tool_name: mcp_leaky_echo_structured
        input_mapping: {text: '{{ inputs.structured }}'}
    - id: noisy
      type: tool
      tool_config:
        tool_name: mcp_leaky_chatter
        input_mapping: {text: '{{ inputs.chatter }}'}
    - id: refused
      type: tool
      tool_config:
        tool_name: mcp_leaky_fail_with
        input_mapping: {text: '{{ inputs.broken }}'}
    - {id: out, type: output}
  edges:
    - {from: s, to: say}
    - {from: say, to: save}
    - {from: save, to: load}
    - {from: load, to: listing}
    - {from: listing, to: echoed}
    - {from: echoed, to: shaped}
    - {from: shaped, to: noisy}
    - {from: noisy, to: refused}
    - {from: refused, to: out}
"""


def test_no_piece_of_a_key_survives_on_any_channel(
    cli_env: dict[str, str], relavium_home: Path, tmp_path: Path, llm_server: ScriptedLLMServer,
) -> None:
    seed = int(os.environ.get("RELAVIUM_MASK_SEED") or random.SystemRandom().randrange(2**32))
    keys = _keys(random.Random(seed))
    why = f"masking seed {seed} (replay with RELAVIUM_MASK_SEED={seed})"
    env = {**cli_env, "RELAVIUM_LOG": "debug", "RELAVIUM_TEST_KEY": keys["generic"]}
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / f"{keys['gitlab']}.txt").write_text("a file named like a key\n")
    lines = "".join(f"row {i}: {keys['aws']} then {_split(keys['openai'])}\n" for i in range(1200))
    (ws / "big.txt").write_text(lines)  # past run_command's 50 KB capture ceiling: it spills
    (relavium_home / "mcp.yaml").write_text(
        f"servers:\n  leaky:\n    transport: stdio\n    command: {json.dumps(sys.executable)}\n"
        f"    args: [{json.dumps(LEAKY)}]\n"
    )
    write_providers(relavium_home, llm_server.base_url)
    channels: dict[str, bytes] = {}

    def cli(name: str, *argv: str, codes: tuple[int, ...] = (0, 1)) -> Any:
        code, out, err = run_cli(*argv, env=env, cwd=ws, timeout=90)
        channels[f"{name} stdout"] = (out if isinstance(out, str) else json.dumps(out, ensure_ascii=False)).encode()
        channels[f"{name} stderr"] = err.encode()
        assert code in codes, (name, code, err, why)
        assert "Traceback" not in err and "internal error" not in err, (name, err, why)
        return out, err

    # A key-shaped tool id, echoed by the unknown-tool error: JSON and text.
    out, _ = cli("unknown id json", "tool", "call", keys["anthropic"], "--json")
    assert out["tool"] == "***" and "no tool named '***'" in out["error"]["message"], why
    out, _ = cli("unknown id text", "tool", "call", keys["anthropic"])
    assert out.startswith("***: unknown_tool"), (out, why)
    # A key in a URL argument, refused; the debug log line names the arguments (masked).
    _, err = cli("http url", "tool", "call", "http_request", "--json",
                 "--args", json.dumps({"url": f"https://api.example.com/v1?key={keys['github']}", "method": "GET"}))
    assert "relavium DEBUG relavium.cli: tool call http_request" in err and "key=***" in err, (err, why)
    # Output past the capture ceiling goes to a spill file that stays for a `tool call`.
    out, _ = cli("spill", "tool", "call", "run_command", "--json", "--args",
                 json.dumps({"command": "cat", "args": ["big.txt"]}),
                 "--policy", json.dumps({"allowedCommands": ["cat big.txt"]}))
    assert out["ok"] is True, (out, why)
    spills = [p for p in (relavium_home / "runs").rglob("*") if p.is_file()]
    assert spills and all(b"***" in p.read_bytes() for p in spills), (spills, why)

    # A workflow: inputs into tool arguments, four MCP answers, and a failure carrying a split key.
    wf = tmp_path / "masking.relavium.yaml"
    wf.write_text(WORKFLOW)
    inputs = {"who": keys["github"], "note": keys["slack"], "extra": keys["aws"], "token_like": keys["jwt"],
              "structured": keys["openai"], "chatter": keys["google"], "broken": _split(keys["anthropic_split"])}
    events, _ = cli("run", "run", str(wf), "--workspace", str(ws), "--json",
                      *(a for k, v in inputs.items() for a in ("--input", f"{k}={v}")))
    kinds = [e["type"] + ":" + e.get("nodeId", "") for e in events]
    assert kinds[-1] == "run:failed:" and "node:failed:refused" in kinds, (kinds, why)
    assert events[0]["inputs"] == dict.fromkeys(inputs, "***"), (events[0], why)
    assert "***" in events[-1]["error"]["message"], (events[-1], why)
    assert any(e["type"] == "agent:tool_log" and "***" in e["message"] for e in events), why

    # mcp_call of a tool answering with a JSON-RPC error that quotes the key.
    out, _ = cli("mcp_call", "tool", "call", "mcp_call", "--json", "--args",
                 json.dumps({"server": "leaky", "tool": "rpc_error", "arguments": {"text": keys["anthropic"]}}))
    assert out["ok"] is False and "backend refused ***" in out["error"]["message"], (out, why)

    # An agent whose model calls a tool with the provider key: masked by value.
    agent = write_agent(tmp_path / "helper.agent.yaml", tools=["run_command"])
    llm_server.script(Reply.call("run_command", {"command": "echo", "args": [keys["generic"]]}), Reply.say("Done."))
    events, _ = cli("agent", "agent", "run", str(agent), "--prompt", "go", "--workspace", str(ws),
                    "--approve-all", "process", "--policy",
                    json.dumps({"allowedCommands": [f"echo {keys['generic']}"]}), "--json")
    assert events[-1]["type"] == "run:completed", (events[-1], why)
    result = next(e for e in events if e["type"] == "agent:tool_result")
    assert result["success"] and "***" in result["outputSummary"], (result, why)

    for path in relavium_home.rglob("*"):
        if path.is_file():
            channels[f"file {path.relative_to(relavium_home)}"] = path.read_bytes()
    channels["history.db rows"] = _db_texts(relavium_home).encode()
    assert any(name.startswith("file history.db") for name in channels), why
    assert _leaks(keys, channels) == [], why
