"""A model no catalog knows is a validation warning naming the provider's live list.

Through the real ``relavium``: ``validate`` passes (exit 0) but warns; once
``relavium providers models NAME`` has fetched the provider's live list from
the scripted server, the warning names the models that list has.  A model
the price table or the live list knows is not warned about.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.fixtures.llm_server import ScriptedLLMServer
from tests.helpers import run_cli

WORKFLOW = """schema_version: '1.0'
workflow:
  id: typo
  agents:
    - {{id: w, provider: box, model: {model}}}
  nodes:
    - {{id: s, type: input}}
    - {{id: write, type: agent, agent_ref: w, prompt_template: hi}}
  edges: [{{from: s, to: write}}]
"""


def test_an_unknown_model_is_a_warning_naming_the_live_list(
    cli_env: dict[str, str], relavium_home: Path, llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    entries = {"providers": {"box": {"kind": "openai", "base_url": llm_server.base_url + "/v1",
                                     "api_key": "env:BOX_KEY", "allow_local": True}}}
    (relavium_home / "providers.yaml").write_text(json.dumps(entries))
    env = {**cli_env, "BOX_KEY": "sk-box-0123456789abcdefghijklmnop"}
    wf = tmp_path / "typo.relavium.yaml"
    wf.write_text(WORKFLOW.format(model="scripted-lrage"))

    code, out, err = run_cli("validate", str(wf), "--json", env=env)
    assert code == 0 and out["ok"] is True, err
    (warning,) = out["warnings"]
    assert warning == ("agent node 'write': model 'scripted-lrage' is not in any catalog this install knows; "
                       "no live list of box's models is cached yet (relavium providers models box fetches it)")

    assert run_cli("providers", "models", "box", env=env)[0] == 0  # fetches and caches the live list
    code, text, err = run_cli("validate", str(wf), env=env)
    assert code == 0 and "valid workflow 'typo'" in text
    assert err.strip() == ("relavium: warning: agent node 'write': model 'scripted-lrage' is not in any catalog "
                           "this install knows; box's live list has: scripted-large, scripted-small")

    # Known to the live list, or to the price table: no warning.
    for model in ("scripted-large", "gpt-4o-mini"):
        wf.write_text(WORKFLOW.format(model=model))
        code, out, err = run_cli("validate", str(wf), "--json", env=env)
        assert code == 0 and out["warnings"] == [], (model, out)
