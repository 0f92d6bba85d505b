"""``relavium plugins`` and plugin tools through the real console script.

Uses the example plugin (examples/relavium-plugin-wordcount, pip-installed by
scripts/setup) and, for refusals, real broken distributions on PYTHONPATH
(tests/fixtures/plugin_dists.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.fixtures.plugin_dists import make_plugin_site
from tests.helpers import run_cli

WORKFLOW = """schema_version: '1.0'
workflow:
  id: count-words
  inputs: [{name: text, type: string}]
  nodes:
    - {id: s, type: input}
    - id: count
      type: tool
      tool_config:
        tool_name: plugin_wordcount
        input_mapping: {text: '{{ inputs.text }}', top: 1}
        output_mapping: {words: words, top: 'topWords[0].word'}
    - {id: out, type: output}
  edges: [{from: s, to: count}, {from: count, to: out}]
"""


def test_enable_call_and_disable_the_example_plugin(cli_env: dict[str, str], tmp_path: Path) -> None:
    code, out, err = run_cli("plugins", "list", "--json", env=cli_env)
    assert code == 0, err
    row = next(p for p in out["plugins"] if p["name"] == "wordcount")
    assert (row["state"], row["distribution"], row["entryPoint"]) == (
        "disabled", "relavium-plugin-wordcount", "relavium_plugin_wordcount:TOOLS")
    code, out, _ = run_cli("tool", "call", "plugin_wordcount", "--args", '{"text": "a"}', "--json", env=cli_env)
    assert code == 1 and out["error"]["code"] == "unknown_tool"  # not offered until enabled

    code, out, err = run_cli("plugins", "enable", "wordcount", "--json", env=cli_env)
    assert code == 0, err
    assert out["plugin"]["tools"] == ["plugin_wordcount", "plugin_wordcount_file"]
    code, out, _ = run_cli("tools", "list", "--json", env=cli_env)
    described = {t["id"]: t for t in (out["tools"] if isinstance(out, dict) else out)}
    assert described["plugin_wordcount"]["source"] == "plugin"
    code, out, err = run_cli("tool", "call", "plugin_wordcount", "--args", '{"text": "to be or not to be", "top": 1}',
                             "--json", env=cli_env)
    assert code == 0, err
    assert out["result"] == {"words": 6, "lines": 1, "characters": 18, "topWords": [{"word": "to", "count": 2}]}
    # The fs capability it declared works under the project's path policy, like read_file.
    (tmp_path / "notes.txt").write_text("one two\nthree\n")
    code, out, err = run_cli("tool", "call", "plugin_wordcount_file", "--args", '{"path": "notes.txt"}',
                             "--workspace", str(tmp_path), "--json", env=cli_env)
    assert code == 0, err
    assert out["result"]["words"] == 3 and out["result"]["lines"] == 2
    code, out, _ = run_cli("tool", "call", "plugin_wordcount_file", "--args", '{"path": "/etc/passwd"}',
                           "--workspace", str(tmp_path), "--json", env=cli_env)
    assert code == 1 and out["error"]["code"] == "tool_denied"

    code, out, err = run_cli("plugins", "disable", "wordcount", env=cli_env)
    assert code == 0 and out.strip() == "wordcount 0.1.0: disabled", err
    code, out, _ = run_cli("tool", "call", "plugin_wordcount", "--args", '{"text": "a"}', "--json", env=cli_env)
    assert code == 1 and out["error"]["code"] == "unknown_tool"


def test_the_example_plugin_runs_in_a_workflow(cli_env: dict[str, str], tmp_path: Path) -> None:
    wf = tmp_path / "count.relavium.yaml"
    wf.write_text(WORKFLOW)
    code, _, err = run_cli("validate", str(wf), env=cli_env)
    assert code == 2 and f"{wf}:10:9: unknown tool 'plugin_wordcount'" in err  # disabled: unknown
    assert run_cli("plugins", "enable", "wordcount", env=cli_env)[0] == 0
    code, events, err = run_cli("run", str(wf), "--input", "text=the cat saw the dog", "--workspace", str(tmp_path),
                                "--json", env=cli_env)
    assert code == 0, err
    assert events[-1]["outputs"] == {"out": {"words": 5, "top": "the"}}


def _imported(env: dict[str, str], module: str) -> bool:
    """Whether the services a surface starts with (registry, known ids, plugin list) import ``module``."""
    code = ("import json, sys\n"
            "from relavium_desktop.application import tools\n"
            "from relavium_desktop.application.paths import AppPaths\n"
            "home = AppPaths.from_environment().home\n"
            "tools.tool_registry(home=home); tools.known_tool_ids(home); tools.plugin_statuses(home)\n"
            f"print(json.dumps({module!r} in sys.modules))\n")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60,
                          check=True)
    return bool(json.loads(proc.stdout))


def test_a_disabled_plugin_is_never_imported(cli_env: dict[str, str]) -> None:
    assert _imported(cli_env, "relavium_plugin_wordcount") is False
    assert run_cli("plugins", "enable", "wordcount", env=cli_env)[0] == 0
    assert _imported(cli_env, "relavium_plugin_wordcount") is True
    assert run_cli("plugins", "disable", "wordcount", env=cli_env)[0] == 0
    assert _imported(cli_env, "relavium_plugin_wordcount") is False


def test_broken_plugins_are_refused_with_a_reason_and_break_nothing(cli_env: dict[str, str], tmp_path: Path) -> None:
    site = make_plugin_site(tmp_path / "site")
    log = tmp_path / "imports.log"
    env = {**cli_env, "PYTHONPATH": os.pathsep.join(filter(None, (str(site), cli_env.get("PYTHONPATH")))),
           "RELAVIUM_TEST_IMPORT_LOG": str(log)}
    code, out, _ = run_cli("plugins", "list", "--json", env=env)
    assert code == 0 and {"good", "broken", "badcap"} <= {p["name"] for p in out["plugins"]}
    assert not log.exists()  # listing imported nothing
    code, out, err = run_cli("plugins", "enable", "broken", "--json", env=env)
    assert code == 1 and out["error"]["code"] == "plugin_refused"
    assert "relavium: plugins enable: broken is enabled but refused: failed to import (ImportError: needs libfoo)" in err
    code, _, err = run_cli("plugins", "enable", "badcap", env=env)
    assert code == 1 and "declares unknown capability 'network'" in err
    assert run_cli("plugins", "enable", "good", env=env)[0] == 0
    code, out, _ = run_cli("plugins", "list", env=env)
    assert code == 0
    assert "broken 0.1: refused: failed to import (ImportError: needs libfoo)" in out
    assert "good 0.1: enabled, tools plugin_shout" in out and "nothing 0.1: disabled" in out
    code, out, err = run_cli("tool", "call", "plugin_shout", "--args", '{"text": "hey"}', "--json", env=env)
    assert code == 0 and out["result"]["text"] == "HEY", err
    assert sorted(set(log.read_text().split())) == [
        "relavium_test_plugin_badcap", "relavium_test_plugin_broken", "relavium_test_plugin_good"]
    code, _, err = run_cli("plugins", "enable", "nosuch", env=env)
    assert code == 2 and "no installed plugin named 'nosuch'" in err
