"""The workflow engine and the agent loop runner, built one way for every surface that runs a workflow.

A surface asks here for an engine over a freshly pinned host, so the
Workflows view, Runs / History and ``relavium run`` run, resume and answer
gates with the same tools, providers and spill-folder rules.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relavium_desktop.application.providers import provider_set
from relavium_desktop.application.tools import http_tools, surface_host, tool_registry, workflow_http_decls

if TYPE_CHECKING:
    from relavium_desktop.engine.host import OsCapability
    from relavium_desktop.engine.tools.tooldef import ApprovalRegime, FsScopeTier
    from relavium_desktop.engine.workflow.agent_loop_runner import AgentLoopRunner
    from relavium_desktop.engine.workflow.journal import RunJournal
    from relavium_desktop.engine.workflow.run import WorkflowEngine
    from relavium_desktop.providers.factory import ProviderSet


def agent_runner(providers_file: str | None = None, *, home: Path) -> AgentLoopRunner:
    """The real agent loop for agent nodes and ``invoke_agent``.

    Providers come from the provider settings (``home/providers.yaml`` or
    ``providers_file``), keys from the keyring (``secret:``) or the
    environment (``env:``), connections through the SSRF-guarded client.  The
    settings are read on the first agent turn, not at start, so a workflow of
    tool/transform nodes runs even when no provider is configured; a settings
    problem then fails the agent node with a clear ``validation`` message.
    """
    from relavium_desktop.engine.llm.errors import ProviderError, ProviderErrorCode
    from relavium_desktop.engine.llm.provider import Provider
    from relavium_desktop.engine.workflow.agent_loop_runner import AgentLoopRunner
    from relavium_desktop.providers.config import ProviderConfigError

    built: list[ProviderSet] = []

    def lookup(name: str) -> Provider:
        if not built:
            try:
                built.append(provider_set(home, settings_file=Path(providers_file) if providers_file else None))
            except ProviderConfigError as exc:
                raise ProviderError(ProviderErrorCode.VALIDATION, f"provider settings: {exc}") from None
        return built[0](name)

    return AgentLoopRunner(providers=lookup)


def build_workflow_engine(
    *,
    workspace: Path,
    tier: FsScopeTier,
    journal: RunJournal,
    os_capability: OsCapability | None = None,
    approval: ApprovalRegime | None = None,
    providers_file: str | None = None,
    hold_gates: bool = False,
    mcp_servers: Mapping[str, Any] | None = None,
    mcp_hooks: Any = None,
    home: Path,
) -> WorkflowEngine:
    """One engine over a freshly pinned host for ``workspace`` at ``tier``.

    The host is the run's: each run the engine starts or resumes binds its
    own spill folder (``runs/<run-id>/``) as the only one its file tools may
    read, so a surface keeps one engine per run.  ``mcp_servers`` is the
    workflow's own servers block (validated:
    :func:`~relavium_desktop.application.mcp.workflow_mcp_servers`),
    ``mcp_hooks`` the surface's consent/elicitation answers; ``home`` the
    Application's data folder (its paths' ``home``).
    """
    registry = tool_registry(home=home, host=surface_host(workspace, tier=tier, surface="workflow", os_capability=os_capability,
                                          mcp_servers=mcp_servers, mcp_hooks=mcp_hooks, home=home))
    return _run_scoped_engine()(registry, agent_runner=agent_runner(providers_file, home=home), journal=journal,
                                fs_scope=tier, approval=approval, hold_gates=hold_gates)


@functools.cache
def _run_scoped_engine() -> type[WorkflowEngine]:
    """WorkflowEngine whose runs bind their own spill folder on the host (made on first use)."""
    from relavium_desktop.engine.workflow.run import WorkflowEngine, WorkflowRun
    from relavium_desktop.host.assembly import bind_spill_scope

    class RunScopedEngine(WorkflowEngine):
        def start(self, *args: Any, **kwargs: Any) -> WorkflowRun:
            run = super().start(*args, **kwargs)
            bind_spill_scope(self.registry.host, run.run_id)
            self._add_http_tools(run)
            return run

        def resume(self, *args: Any, **kwargs: Any) -> WorkflowRun:
            run = super().resume(*args, **kwargs)
            bind_spill_scope(self.registry.host, run.run_id)
            self._add_http_tools(run)
            return run

        def resume_interrupted(self, *args: Any, **kwargs: Any) -> WorkflowRun:
            run = super().resume_interrupted(*args, **kwargs)
            self._add_http_tools(run)
            return run

        def _add_http_tools(self, run: WorkflowRun) -> None:
            # The workflow's declared http tools join this engine's registry (one engine per run);
            # the plan already refused a name that shadows a known tool.
            for tool in http_tools(workflow_http_decls(run.workflow)):
                if self.registry.get(tool.id) is None:
                    self.registry.register(tool)

    return RunScopedEngine
