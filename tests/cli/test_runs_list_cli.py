"""``relavium runs list`` finds runs, and ``relavium run`` names its run before anything else (real CLI)."""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

from tests.conftest import relavium_cmd
from tests.helpers import run_cli

WORKFLOW = """schema_version: '1.0'
workflow:
  id: {wid}
  name: {name}
  tools: {{allowedCommands: ['true']}}
  nodes:
    - {{id: s, type: input}}
    - id: step
      type: tool
      tool_config: {{tool_name: run_command, input_mapping: {{command: '{command}', args: []}}}}
    - {{id: out, type: output}}
  edges: [{{from: s, to: step}}, {{from: step, to: out}}]
"""


def _workflow(tmp_path: Path, wid: str, name: str, command: str) -> Path:
    path = tmp_path / f"{wid}.relavium.yaml"
    path.write_text(WORKFLOW.format(wid=wid, name=name, command=command))
    return path


def _run_text(wf: Path, env: dict[str, str], cwd: Path) -> tuple[int, str, str]:
    proc = subprocess.run(
        [*relavium_cmd(), "run", str(wf)],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return proc.returncode, proc.stdout, proc.stderr


def test_run_prints_its_id_first_and_runs_list_finds_it(cli_env: dict[str, str], tmp_path: Path) -> None:
    ok = _workflow(tmp_path, "good", "Good flow", "true")
    bad = _workflow(tmp_path, "bad", "Bad flow", "false")  # not allowed: the step fails
    ids = []
    for wf in (ok, bad, ok):
        _code, _out, err = _run_text(wf, cli_env, tmp_path)
        first = err.splitlines()[0]
        match = re.fullmatch(r"run (run-[0-9a-f]+) started", first)
        assert match, err  # the id comes before any event, so a killed run can still be found
        ids.append(match.group(1))
        time.sleep(0.01)  # distinct start times

    code, out, err = run_cli("runs", "list", env=cli_env, cwd=tmp_path)
    assert code == 0, err
    lines = out.splitlines()
    assert [line.split()[0] for line in lines[:-1]] == ids[::-1]  # newest first
    assert "Good flow" in lines[0] and "completed" in lines[0]
    assert "Bad flow" in lines[1] and "failed" in lines[1]
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", lines[0])  # local time, readable
    assert lines[-1] == "showing 3 of 3 runs"

    code, doc, _ = run_cli("runs", "list", "--status", "failed", "--json", env=cli_env, cwd=tmp_path)
    assert code == 0
    assert [r["id"] for r in doc["runs"]] == [ids[1]] and doc["total"] == 1 and doc["shown"] == 1
    assert doc["runs"][0]["workflow_name"] == "Bad flow" and doc["runs"][0]["started_local"]

    code, out, _ = run_cli("runs", "list", "--limit", "2", env=cli_env, cwd=tmp_path)
    assert code == 0 and out.splitlines()[-1] == "showing 2 of 3 runs (use --limit for more)"

    code, _out, err = run_cli("runs", "list", "--limit", "0", env=cli_env, cwd=tmp_path)
    assert code == 2 and "--limit" in err


def test_runs_list_on_an_empty_history(cli_env: dict[str, str], tmp_path: Path) -> None:
    code, out, err = run_cli("runs", "list", env=cli_env, cwd=tmp_path)
    assert code == 0, err
    assert out.strip() == "no runs yet; start one with: relavium run FILE.relavium.yaml"
