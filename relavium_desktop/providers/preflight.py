"""Before a headless run starts: does every provider an agent node needs have a key?

A missing key used to surface as the first agent node's failure, after the
nodes before it had run (and spent); in CI that is exit 1 for what is really
a bad invocation.  The check looks at each agent node's primary provider
only (a ``fallback_chain`` provider is read only if the chain fails over to
it, so requiring its key would block valid runs) and resolves its key the way
the run will (:func:`factory.resolve_key`), discarding the value.
"""

from __future__ import annotations

from collections.abc import Mapping

from relavium_desktop.engine.workflow.loader import LoadedWorkflow
from relavium_desktop.providers.config import ProviderEntry, SecretResolver
from relavium_desktop.providers.factory import ProviderKeyError, resolve_key


def needed_providers(workflow: LoadedWorkflow, pending: set[str] | None = None) -> dict[str, str]:
    """Provider entry name -> the first agent node that needs it (its agent's provider, or the model's family).

    ``pending``: only these nodes (a resumed run's nodes that have not run yet).
    """
    from relavium_desktop.engine.workflow.agent_loop_runner import infer_provider
    from relavium_desktop.engine.workflow.models import AgentNode

    needed: dict[str, str] = {}
    for node_id in workflow.plan.order:
        node = workflow.plan.nodes.get(node_id)
        if not isinstance(node, AgentNode) or (pending is not None and node_id not in pending):
            continue
        agent = workflow.agents.get(node.agent_ref)
        if agent is None:
            continue
        model = node.model or agent.model
        provider = agent.provider or (infer_provider(model) if model else None)
        if provider:
            needed.setdefault(provider, node_id)
    return needed


def missing_keys(
    workflow: LoadedWorkflow, entries: Mapping[str, ProviderEntry], resolve_secret: SecretResolver,
    *, pending: set[str] | None = None,
) -> list[str]:
    """One secret-free message per needed provider whose key cannot be resolved (empty: all present).

    A provider with no entry is left to the run, which names the configured
    ones; an entry without a key reference is a keyless local server.
    """
    problems = []
    for provider, node_id in needed_providers(workflow, pending).items():
        entry = entries.get(provider)
        if entry is None:
            continue
        try:
            resolve_key(provider, entry, resolve_secret)
        except ProviderKeyError as exc:
            problems.append(f"agent node {node_id!r}: {exc}")
    return problems
