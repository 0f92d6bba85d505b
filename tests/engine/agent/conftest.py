"""An agent loop wired to real parts: the scripted LLM server, real fs and process hosts."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from relavium_desktop.engine.agent.loop import AgentLoop
from relavium_desktop.engine.agent.spec import AgentSpec
from relavium_desktop.engine.events import RunEvent
from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS
from relavium_desktop.engine.tools.registry import ToolRegistry
from relavium_desktop.engine.tools.tooldef import ApprovalRegime, ToolDispatchContext, ToolPolicy
from relavium_desktop.host.assembly import HostSettings, build_host
from relavium_desktop.providers.config import ProviderEntry, basic_validate_base_url, env_resolver
from relavium_desktop.providers.factory import ProviderSet
from tests.fixtures.llm_server import ScriptedLLMServer

KEY = "sk-test-LOOPKEY0123456789abcdefghij"


@dataclass
class Rig:
    server: ScriptedLLMServer
    workspace: Path
    home: Path
    events: list[dict[str, Any]] = field(default_factory=list)
    sleeps: list[float] = field(default_factory=list)

    def providers(self) -> ProviderSet:
        base = self.server.base_url
        entries = {
            "openai": ProviderEntry(kind="openai", base_url=base + "/v1", api_key="env:K", allow_local=True),
            "anthropic": ProviderEntry(kind="anthropic", base_url=base, api_key="env:K", allow_local=True),
            "gemini": ProviderEntry(kind="gemini", base_url=base, api_key="env:K", allow_local=True),
        }
        return ProviderSet(entries, resolve_secret=env_resolver({"K": KEY}),
                           validate_base_url=basic_validate_base_url)

    def loop(self, *, tools: list[str], policy: ToolPolicy | None = None,
             approval: ApprovalRegime | None = None, chat: bool = False, **spec: Any) -> AgentLoop:
        agent = AgentSpec.model_validate({"id": "tester", "provider": "openai", "model": "gpt-4o-mini",
                                          "system_prompt": "You test tools.", "tools": tools, **spec})
        host = build_host(HostSettings(workspace=self.workspace, home=self.home,
                                       surface="chat" if chat else "workflow"))
        registry = ToolRegistry(BUILTIN_TOOLS, host)
        ctx = ToolDispatchContext(run_id="run-test", node_id="agent", granted_tool_ids=frozenset(tools),
                                  policy=policy or ToolPolicy(), approval=approval, emit=self.record)

        async def fake_sleep(seconds: float) -> None:
            # Recorded instead of waited: the tests assert which delay was chosen.
            self.sleeps.append(seconds)

        return AgentLoop(spec=agent, providers=self.providers(), registry=registry, ctx=ctx,
                         emit=self.record, chat=chat, sleep=fake_sleep)

    def record(self, event: RunEvent) -> None:
        """Keep the wire form: what the bus, the CLI and the UI see."""
        self.events.append(event.to_wire())

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == kind]


@pytest.fixture
def rig(llm_server: ScriptedLLMServer, tmp_path: Path, relavium_home: Path) -> Rig:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("remember the milk\n")
    return Rig(llm_server, workspace, relavium_home)
