"""``relavium run FILE`` in text mode shows what each node produced and the run's outputs (real console script).

Text mode is for a person at a terminal: each ``node:completed`` line ends
with the node's result (masked, clipped, through the display rule), and a
completed run ends with ``outputs:`` and one ``name: value`` per output.
``--json`` is the scripts' contract and stays one event per line, nothing
else on stdout.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import run_cli

# A token of a recognised family: the run's text must never print it.
SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"

REPORT = """schema_version: '1.0'
workflow:
  id: report
  inputs: [{name: topic, type: string}]
  nodes:
    - {id: s, type: input}
    - id: summarize
      type: transform
      transform: '"Summary of " + inputs.topic + ": " + "word ".repeat(80) + "end"'
    - id: note_text
      type: transform
      transform: '"first line\\nsecond line\\u001b[2K with token SECRET"'
    - {id: count, type: transform, transform: '({words: 80, topic: inputs.topic})'}
    - {id: summary, type: output}
    - {id: note, type: output}
    - {id: counts, type: output}
  edges: [{from: s, to: summarize}, {from: s, to: note_text}, {from: s, to: count},
          {from: summarize, to: summary}, {from: note_text, to: note}, {from: count, to: counts}]
""".replace("SECRET", SECRET)


def write(tmp_path: Path) -> Path:
    wf = tmp_path / "report.relavium.yaml"
    wf.write_text(REPORT)
    return wf


def test_each_node_line_shows_its_clipped_result_and_the_outputs_follow(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    code, out, err = run_cli(
        "run", str(write(tmp_path)), "--input", "topic=rivers", "--workspace", str(tmp_path), env=cli_env
    )
    assert code == 0, out + err
    lines = out.splitlines()
    summarize = next(line for line in lines if "node:completed summarize" in line)
    summary = "Summary of rivers: " + "word " * 80 + "end"
    # The first 200 characters of the result, then how much was cut.
    assert summarize.endswith(
        f"node:completed summarize: {summary[:200]}… [{len(summary) - 200:,} more characters]"
    )
    count = next(line for line in lines if "node:completed count" in line)
    assert count.endswith('node:completed count: {words: 80, topic: "rivers"}')
    # A multi-line result is one line; its escape is shown, not obeyed; the token is masked.
    note = next(line for line in lines if "node:completed note_text" in line)
    assert "first line second line⟦\\x1b⟧[2K with token" in note
    assert SECRET not in out + err and "\x1b" not in out

    # After the terminal event: the outputs, one per line, a text's further lines indented.
    at = lines.index(next(line for line in lines if "] run:completed" in line))
    assert lines[at + 1] == "outputs:"
    assert lines[at + 2].startswith("  ")
    rest = lines[at + 2 :]
    assert f"  summary: {summary}" in rest
    note_at = rest.index("  note: first line")
    assert (
        rest[note_at + 1].startswith("    second line⟦\\x1b⟧[2K with token ")
        and SECRET not in rest[note_at + 1]
    )
    assert "completed" in err  # the run's end is said on stderr, as before


def test_json_mode_is_still_one_event_per_line_and_nothing_else(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    code, events, err = run_cli(
        "run",
        str(write(tmp_path)),
        "--input",
        "topic=rivers",
        "--workspace",
        str(tmp_path),
        "--json",
        env=cli_env,
    )
    assert code == 0, err
    assert isinstance(events, list) and all(isinstance(e, dict) and "type" in e for e in events)
    assert events[-1]["type"] == "run:completed"
    completed = next(e for e in events if e["type"] == "node:completed" and e["nodeId"] == "summarize")
    assert completed["output"].startswith("Summary of rivers: word word")  # the full output, as before
    assert "outputs:" not in json.dumps(events)


def test_a_run_that_does_not_complete_prints_no_outputs(cli_env: dict[str, str], tmp_path: Path) -> None:
    wf = tmp_path / "broken.relavium.yaml"
    wf.write_text(REPORT.replace("'({words: 80, topic: inputs.topic})'", "'nope.nothing'"))
    code, out, err = run_cli(
        "run", str(wf), "--input", "topic=rivers", "--workspace", str(tmp_path), env=cli_env
    )
    assert code == 1, out + err
    assert "node:failed count" in out and "outputs:" not in out
    assert "failed" in err
