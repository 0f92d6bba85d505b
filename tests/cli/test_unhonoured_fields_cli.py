"""A field the engine cannot honour is refused by ``relavium validate`` (a real subprocess), never ignored.

Each case writes a workflow that is valid but for one field the engine would
otherwise accept and then not act on, and checks that ``validate`` exits 2
naming the file's line:column of that field and why it is refused; the same
workflow without the field validates, so the refusal is the field's alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import run_cli

WF = """schema_version: '1.0'
workflow:
  id: unhonoured
  agents:
    - id: a
      provider: scripted-openai
      model: gpt-4o-mini
      system_prompt: You help.
{agent_extra}
  nodes:
    - {{id: start, type: input}}
    - id: ask
      type: agent
      agent_ref: a
      prompt_template: hello
{node_extra}
    - {{id: out, type: output}}
  edges: [{{from: start, to: ask}}, {{from: ask, to: out}}]
"""

CASES = {
    # (agent_extra, node_extra, the field's line text, message parts)
    "output_modalities": (
        "",
        "      output_modalities: [text, image]",
        "output_modalities:",
        ["output_modalities image is not supported", "text only", "later phase upstream"],
    ),
    "node retry_on": (
        "",
        "      retry: {max: 2, retry_on: [provider_auth]}",
        "retry:",
        [
            "retry_on 'provider_auth' is not a failure this engine retries",
            "tool_failed, provider_unavailable, provider_rate_limit, run_timeout, sandbox_error",
        ],
    ),
    "agent base_url": (
        "      base_url: https://llm.example.com/v1",
        "",
        "base_url:",
        ["base_url on an agent is not supported", "providers.yaml", "relavium providers add"],
    ),
}


def _write(tmp_path: Path, agent_extra: str, node_extra: str) -> Path:
    wf = tmp_path / "unhonoured.relavium.yaml"
    text = WF.format(agent_extra=agent_extra, node_extra=node_extra)
    wf.write_text("\n".join(line for line in text.splitlines() if line) + "\n")
    return wf


def test_the_workflow_without_the_fields_validates(env: dict[str, str], tmp_path: Path) -> None:
    code, out, err = run_cli("validate", str(_write(tmp_path, "", "")), env=env)
    assert code == 0, out + err


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_field_the_engine_cannot_honour_is_refused_at_its_line_and_column(
    case: str, env: dict[str, str], tmp_path: Path
) -> None:
    agent_extra, node_extra, needle, parts = CASES[case]
    wf = _write(tmp_path, agent_extra, node_extra)
    line = next(i for i, text in enumerate(wf.read_text().splitlines(), 1) if needle in text)
    code, out, err = run_cli("validate", str(wf), env=env)
    assert code == 2, out + err
    text = out + err
    assert f"{wf}:{line}:" in text, text
    for part in parts:
        assert part in text, text


def test_text_alone_in_output_modalities_and_a_retryable_code_still_validate(
    env: dict[str, str], tmp_path: Path
) -> None:
    wf = _write(
        tmp_path,
        "",
        "      output_modalities: [text]\n      retry: {max: 2, retry_on: [provider_rate_limit]}",
    )
    code, out, err = run_cli("validate", str(wf), env=env)
    assert code == 0, out + err
