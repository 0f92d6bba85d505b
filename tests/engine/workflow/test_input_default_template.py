"""An input ``default`` may be a template over the inputs declared before it (upstream's spec allows it).

Rendered at admission, when the input is not given; a default reading
anything else (``ctx``, ``run``, a later input, ``read_file``) is refused at
validation, at its line, never left to fail at run time.
"""

from __future__ import annotations

import pytest

from relavium_desktop.engine.workflow.errors import WorkflowError
from tests.engine.workflow.wfhelpers import load, run

WF = """schema_version: '1.0'
workflow:
  id: defaults
  inputs:
    - {{name: topic, type: string}}
    - {{name: title, type: string, default: {default}}}
  nodes:
    - {{id: s, type: input}}
    - {{id: t, type: transform, transform: 'inputs.title'}}
    - {{id: out, type: output}}
  edges: [{{from: s, to: t}}, {{from: t, to: out}}]
"""


async def test_a_template_default_renders_over_the_earlier_inputs() -> None:
    text = WF.format(default="'Notes on {{ inputs.topic }}'")
    result, _ = await run(text, {"topic": "tides"})
    assert result.status == "completed", result.error
    assert result.outputs == {"out": "Notes on tides"}
    # Given explicitly, the default is not used.
    result, _ = await run(text, {"topic": "tides", "title": "Mine"})
    assert result.outputs == {"out": "Mine"}
    # A lone site keeps the earlier input's value as it is; a filter applies.
    result, _ = await run(WF.format(default="'{{ inputs.topic | length }}'").replace(
        "name: title, type: string", "name: title, type: number"), {"topic": "tides"})
    assert result.outputs == {"out": 5}


@pytest.mark.parametrize(("default", "words"), [
    ("'{{ ctx.k }}'", "a default template may read only the inputs declared before it"),
    ("'{{ run.id }}'", "a default template may read only the inputs declared before it"),
    ("'{{ inputs.later }}'", "which is not an input declared before 'title'"),
    ("'{{ inputs.topic | read_file }}'", "uses the read_file filter"),
])
def test_a_default_reading_anything_else_is_refused_at_validation(default: str, words: str) -> None:
    text = WF.format(default=default).replace("  nodes:", "    - {name: later, type: string}\n  nodes:")
    with pytest.raises(WorkflowError) as info:
        load(text)
    assert words in str(info.value), str(info.value)
    assert info.value.issues[0].line == 4  # the inputs block
