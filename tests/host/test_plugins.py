"""Plugins: listed from metadata without import, loaded only when enabled, refused with a reason when broken."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from relavium_desktop.engine.host import ToolHost
from relavium_desktop.host.plugins import (
    PluginsFileError,
    enabled_names,
    installed,
    load_enabled,
    set_enabled,
    statuses,
)
from tests.fixtures.plugin_dists import make_plugin_site
from tests.helpers import dispatch


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = make_plugin_site(tmp_path / "site")
    monkeypatch.syspath_prepend(str(root))
    yield root
    for name in [m for m in sys.modules if m.startswith("relavium_test_plugin_")]:
        del sys.modules[name]


def test_listing_imports_nothing(site: Path, relavium_home: Path) -> None:
    names = {p.name: p for p in installed()}
    assert {"good", "broken", "nothing", "badcap", "zclash", "wordcount"} <= set(names)
    assert names["good"].value == "relavium_test_plugin_good:TOOL" and names["good"].dist == "test-plugin-good"
    rows = {r.name: r for r in statuses(relavium_home)}
    assert rows["good"].state == "disabled" and rows["broken"].state == "disabled"
    assert not [m for m in sys.modules if m.startswith("relavium_test_plugin_")]


def test_enabled_plugins_load_and_broken_ones_are_refused_with_a_reason(site: Path, relavium_home: Path) -> None:
    for name in ("good", "broken", "nothing", "badcap", "zclash", "gone"):
        set_enabled(relavium_home, name, True)
    report = load_enabled(relavium_home)
    assert report.tool_ids == {"good": ["plugin_shout"]}
    assert report.refused["broken"] == "failed to import (ImportError: needs libfoo)"
    assert report.refused["nothing"] == "exports no PluginTool"
    assert "declares unknown capability 'network'" in report.refused["badcap"]
    assert report.refused["zclash"] == "tool id(s) plugin_shout already taken"
    assert report.missing == ["gone"]
    rows = {r.name: r for r in statuses(relavium_home)}
    assert rows["broken"].describe() == "broken 0.1: refused: failed to import (ImportError: needs libfoo)"
    assert rows["gone"].state == "missing"


def test_a_plugin_tool_may_not_take_a_reserved_id(site: Path, relavium_home: Path) -> None:
    set_enabled(relavium_home, "good", True)
    report = load_enabled(relavium_home, reserved=["plugin_shout"])
    assert report.tools == [] and "already taken" in report.refused["good"]


async def test_a_handler_gets_only_the_capabilities_it_declared(site: Path, relavium_home: Path) -> None:
    set_enabled(relavium_home, "good", True)
    (tool,) = load_enabled(relavium_home).tools
    assert tool.source == "plugin" and tool.id == "plugin_shout"

    class Anything:
        async def read_file(self, path: str) -> dict[str, str]:
            return {}

    # A host offering every capability: the plugin still sees only fs.
    host = ToolHost(fs=Anything(), process=Anything(), egress=Anything(), os=Anything(),  # type: ignore[arg-type]
                    output_store=Anything())  # type: ignore[arg-type]
    out = await dispatch("plugin_shout", {"text": "hi"}, tools=(tool,), host=host)
    assert out.ok and out.result == {"text": "HI", "caps": ["fs"]}


def test_plugins_yaml_is_written_atomically_and_read_strictly(relavium_home: Path) -> None:
    assert enabled_names(relavium_home) == []
    assert set_enabled(relavium_home, "b", True) == ["b"]
    assert set_enabled(relavium_home, "a", True) == ["a", "b"]
    assert set_enabled(relavium_home, "b", False) == ["a"]
    assert enabled_names(relavium_home) == ["a"]
    assert [p.name for p in relavium_home.iterdir() if p.name.startswith(".plugins-")] == []
    (relavium_home / "plugins.yaml.bak").unlink()  # no last good copy to run on (tests/host/test_settings_files.py)
    (relavium_home / "plugins.yaml").write_text("enabled: wordcount\n")
    with pytest.raises(PluginsFileError, match="expected 'enabled: \\[plugin names\\]'"):
        enabled_names(relavium_home)
    # A broken file never crashes loading: it is reported and nothing loads.
    report = load_enabled(relavium_home)
    assert report.tools == [] and "plugins.yaml" in report.refused


RUNNER = '''
from pydantic import BaseModel
from relavium_desktop.engine.host import EgressRequest, SpawnOptions
from relavium_desktop.engine.tools.plugin_api import PluginTool

class Args(BaseModel):
    what: str

async def run(args, caps):
    if args.what == "spawn":
        out = await caps.process.spawn("echo", ["hi"], {}, SpawnOptions(run_id=caps.run_id))
        return out["stdout"]
    if args.what == "spawn_env":  # the plugin grants itself an allowedEnv: the workflow's wins
        opts = SpawnOptions(run_id=caps.run_id, allowed_env=("GREETING",))
        out = await caps.process.spawn("printenv", ["GREETING"], {"GREETING": "hi"}, opts)
        return out["stdout"]
    if args.what == "git":
        return await caps.process.git(["status"], SpawnOptions(run_id=caps.run_id))
    return await caps.egress.fetch(EgressRequest(method="GET", url="https://api.example.test/", run_id=caps.run_id))

TOOL = PluginTool(name="runner", description="Runs things.", args_model=Args, handler=run, action="process",
                  capabilities=("process", "egress"))
'''


async def test_declared_capabilities_keep_the_workflow_guardrails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  relavium_home: Path) -> None:
    from relavium_desktop.application.tools import surface_host
    from relavium_desktop.engine.tools.tooldef import ToolPolicy
    from tests.fixtures.plugin_dists import make_dist

    root = tmp_path / "site"
    root.mkdir()
    make_dist(root, "runner", RUNNER)
    monkeypatch.syspath_prepend(str(root))
    set_enabled(relavium_home, "runner", True)
    (tool,) = load_enabled(relavium_home).tools
    assert tool.policy.action_class == "process"
    host = surface_host(tmp_path, surface="workflow", home=relavium_home)  # the real process and egress hosts
    try:
        out = await dispatch("plugin_runner", {"what": "spawn"}, tools=(tool,), host=host)
        assert out.error is not None and out.error.reason == "commands_disabled"
        out = await dispatch("plugin_runner", {"what": "spawn"}, tools=(tool,), host=host,
                             policy=ToolPolicy(allowed_commands=("echo hi",)))
        assert out.ok and out.result == "hi\n", out.error
        out = await dispatch("plugin_runner", {"what": "spawn_env"}, tools=(tool,), host=host,
                             policy=ToolPolicy(allowed_commands=("printenv GREETING",)))
        assert out.error is not None and out.error.reason == "env_not_allowed", out
        out = await dispatch("plugin_runner", {"what": "spawn_env"}, tools=(tool,), host=host,
                             policy=ToolPolicy(allowed_commands=("printenv GREETING",), allowed_env=("GREETING",)))
        assert out.ok and out.result == "hi\n", out.error
        out = await dispatch("plugin_runner", {"what": "git"}, tools=(tool,), host=host,
                             policy=ToolPolicy(allowed_commands=("git status",)))
        assert out.error is not None and "plugins cannot run git" in out.error.message
        out = await dispatch("plugin_runner", {"what": "fetch"}, tools=(tool,), host=host,
                             policy=ToolPolicy(allowed_domains=("other.example.test",)))
        assert out.error is not None and out.error.reason == "domain_not_allowed"
    finally:
        sys.modules.pop("relavium_test_plugin_runner", None)
