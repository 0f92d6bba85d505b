"""A field the engine cannot honour is refused by ``relavium validate`` (a real subprocess), never ignored.

Each case writes a workflow that is valid but for one field the engine would
otherwise accept and then not act on, and checks that ``validate`` exits 2
naming the file's line:column of that field and why it is refused; the same
workflow without the field validates, so the refusal is the field's alone.
``output_format``, which the engine does honour, is checked by a run, and an
agent file's ``output_schema`` by ``relavium agent run``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.llm_cli import write_agent
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.helpers import run_cli

WF = """schema_version: '1.0'
workflow:
  id: unhonoured
{workflow}
  agents:
    - id: a
      provider: scripted-openai
      model: gpt-4o-mini
      system_prompt: You help.
{agent}
  nodes:
    - {{id: start, type: input}}
    - id: ask
      type: agent
      agent_ref: a
      prompt_template: hello
{node}
    - {{id: out, type: output}}
  edges: [{{from: start, to: ask}}, {{from: ask, to: out}}]
"""

# case: (where the field goes, its lines, the text of the line it is reported at, what the message says)
CASES = {
    "output_modalities": (
        "node",
        "      output_modalities: [text, image]",
        "output_modalities:",
        ["output_modalities image is not supported", "text only", "later phase upstream"],
    ),
    "node retry_on": (
        "node",
        "      retry: {max: 2, retry_on: [provider_auth]}",
        "retry:",
        [
            "retry_on 'provider_auth' is not a failure this engine retries",
            "tool_failed, provider_unavailable, provider_rate_limit, run_timeout, sandbox_error",
        ],
    ),
    "agent base_url": (
        "agent",
        "      base_url: https://llm.example.com/v1",
        "base_url:",
        ["base_url on an agent is not supported", "providers.yaml", "relavium providers add"],
    ),
    "trigger type": (
        "workflow",
        "  trigger:\n    type: file_change\n    file_change: {glob: 'src/**/*.ts'}",
        "trigger:",
        ["trigger file_change is not supported", "starts a workflow only when asked", "set type: manual"],
    ),
    "trigger schedule beside manual": (
        "workflow",
        "  trigger: {type: manual, schedule: '0 9 * * *'}",
        "trigger:",
        ["trigger schedule is not supported", "keeps a schedule"],
    ),
}


def _write(tmp_path: Path, **extra: str) -> Path:
    wf = tmp_path / "unhonoured.relavium.yaml"
    text = WF.format(**{"workflow": "", "agent": "", "node": "", **extra})
    wf.write_text("\n".join(line for line in text.splitlines() if line) + "\n")
    return wf


def test_the_workflow_without_the_fields_validates(env: dict[str, str], tmp_path: Path) -> None:
    code, out, err = run_cli("validate", str(_write(tmp_path)), env=env)
    assert code == 0, out + err


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_field_the_engine_cannot_honour_is_refused_at_its_line_and_column(
    case: str, env: dict[str, str], tmp_path: Path
) -> None:
    where, lines, needle, parts = CASES[case]
    wf = _write(tmp_path, **{where: lines})
    line = next(i for i, text in enumerate(wf.read_text().splitlines(), 1) if needle in text)
    code, out, err = run_cli("validate", str(wf), env=env)
    assert code == 2, out + err
    text = out + err
    assert f"{wf}:{line}:" in text, text
    for part in parts:
        assert part in text, text


def test_what_the_engine_honours_still_validates(env: dict[str, str], tmp_path: Path) -> None:
    wf = _write(
        tmp_path,
        workflow="  trigger: {type: manual}",
        node="      output_modalities: [text]\n      retry: {max: 2, retry_on: [provider_rate_limit]}",
    )
    code, out, err = run_cli("validate", str(wf), env=env)
    assert code == 0, out + err


OUTPUT_FORMAT_WF = """schema_version: '1.0'
workflow:
  id: formats
  nodes:
    - {{id: start, type: input}}
    - {{id: facts, type: transform, transform: '({{name: "Ada", langs: ["en", "fr"]}})'}}
    - {{id: out, type: output{fmt}}}
  edges: [{{from: start, to: facts}}, {{from: facts, to: out}}]
"""


@pytest.mark.parametrize(
    ("fmt", "expected"),
    [
        ("", {"name": "Ada", "langs": ["en", "fr"]}),
        (", output_format: json", {"name": "Ada", "langs": ["en", "fr"]}),
        (", output_format: text", '{\n  "name": "Ada",\n  "langs": [\n    "en",\n    "fr"\n  ]\n}'),
        (", output_format: markdown", '{\n  "name": "Ada",\n  "langs": [\n    "en",\n    "fr"\n  ]\n}'),
    ],
)
def test_output_format_text_or_markdown_delivers_text(
    fmt: str, expected: object, env: dict[str, str], tmp_path: Path
) -> None:
    wf = tmp_path / "formats.relavium.yaml"
    wf.write_text(OUTPUT_FORMAT_WF.format(fmt=fmt))
    code, events, err = run_cli("run", str(wf), "--workspace", str(tmp_path), "--json", env=env)
    assert code == 0, err
    assert events[-1]["type"] == "run:completed" and events[-1]["outputs"] == {"out": expected}


@pytest.mark.parametrize(
    ("reply", "code", "said"),
    [
        ('{"verdict": "ship"}', 0, None),
        ("Sure! It looks fine to ship.", 1, "has an output_schema but its reply is not JSON"),
        ('{"note": "no verdict"}', 1, "output does not match output_schema: output.verdict is required"),
    ],
)
def test_an_agent_files_output_schema_is_asked_for_and_checked_by_agent_run(
    reply: str,
    code: int,
    said: str | None,
    env: dict[str, str],
    llm_server: ScriptedLLMServer,
    tmp_path: Path,
) -> None:
    agent = write_agent(
        tmp_path / "a.agent.yaml",
        tools=[],
        extra="output_schema: {type: object, required: [verdict]}\n",
    )
    llm_server.script(Reply.say(reply))
    got, events, err = run_cli("agent", "run", str(agent), "--prompt", "ship it?", "--json", env=env)
    assert got == code, err
    system = llm_server.requests[0].body["messages"][0]
    assert system["role"] == "system" and '"required": ["verdict"]' in str(system["content"])
    last = events[-1]
    if said is None:
        assert last["type"] == "run:completed" and last["output"] == reply
    else:
        assert last["type"] == "run:failed" and last["error"]["code"] == "validation"
        assert said in last["error"]["message"]
    assert len(llm_server.requests) == 1  # a reply that misses its contract is not asked again
