"""Wire a workflow engine for one surface: host, registry, agent runner, journal.

``relavium run`` and the desktop's Workflows view build the same engine; only
what differs per surface is passed in -- the OS capability (the desktop's
clipboard and notifications) and the approval regime (the desktop's confirm
hook; the CLI runs on author trust with none).  Heavy imports stay inside the
functions so the CLI's ``--help`` and the window's first paint do not pay them.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from relavium_desktop.engine.host import OsCapability
    from relavium_desktop.engine.tools.tooldef import ApprovalRegime, FsScopeTier
    from relavium_desktop.engine.workflow.journal import RunJournal
    from relavium_desktop.engine.workflow.run import WorkflowEngine


def agent_runner(providers_file: str | None = None) -> Any:
    """The real agent loop for agent nodes and ``invoke_agent``.

    Providers come from the provider settings (``$RELAVIUM_HOME/providers.yaml``
    or ``providers_file``), keys from the keyring (``secret:``) or the
    environment (``env:``), connections through the SSRF-guarded client.  The
    settings are read on the first agent turn, not at start, so a workflow of
    tool/transform nodes runs even when no provider is configured; a settings
    problem then fails the agent node with a clear ``validation`` message.
    """
    from relavium_desktop.engine.llm.errors import ProviderError, ProviderErrorCode
    from relavium_desktop.engine.workflow.agent_loop_runner import AgentLoopRunner
    from relavium_desktop.host.datadir import data_dir
    from relavium_desktop.providers.config import ProviderConfigError
    from relavium_desktop.providers.wiring import host_provider_set

    built: list[Any] = []

    def lookup(name: str) -> Any:
        if not built:
            try:
                built.append(host_provider_set(data_dir(), Path(providers_file) if providers_file else None))
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
) -> WorkflowEngine:
    """One engine over a freshly pinned host for ``workspace`` at ``tier``.

    The host is the run's: each run the engine starts or resumes binds its
    own spill folder (``runs/<run-id>/``) as the only one its file tools may
    read, so a surface keeps one engine per run.
    """
    from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS
    from relavium_desktop.engine.tools.registry import ToolRegistry
    from relavium_desktop.host.assembly import HostSettings, build_host

    host = build_host(HostSettings(workspace=workspace, tier=tier, surface="workflow", os_capability=os_capability))
    registry = ToolRegistry(BUILTIN_TOOLS, host)
    return _run_scoped_engine()(registry, agent_runner=agent_runner(providers_file), journal=journal,
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
            return run

        def resume(self, *args: Any, **kwargs: Any) -> WorkflowRun:
            run = super().resume(*args, **kwargs)
            bind_spill_scope(self.registry.host, run.run_id)
            return run

    return RunScopedEngine
