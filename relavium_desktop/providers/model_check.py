"""A workflow's models against the catalogs this install knows: a warning, never a refusal.

A typo in ``model:`` (``gpt-4o-mnii``) used to pass validation and fail at
the first request, after the nodes before it had run.  It is not an error:
a provider may serve a model newer than the price table, and the live list
may not be fetched yet.  So a model that neither the price table nor the
provider's cached live list (``relavium providers models NAME``) knows is a
warning that names the live list when there is one.  No network here.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from relavium_desktop.engine.workflow.loader import LoadedWorkflow
from relavium_desktop.providers.config import ProviderEntry
from relavium_desktop.providers.models import cached_models

_SHOWN = 12


def workflow_models(workflow: LoadedWorkflow) -> list[tuple[str, str, str]]:
    """(where, provider entry, model) for each agent node's model and its agent's fallback models, once each."""
    from relavium_desktop.engine.workflow.agent_loop_runner import infer_provider
    from relavium_desktop.engine.workflow.models import AgentNode

    seen: set[tuple[str, str]] = set()
    out: list[tuple[str, str, str]] = []
    for node_id in workflow.plan.order:
        node = workflow.plan.nodes.get(node_id)
        if not isinstance(node, AgentNode) or node.agent_ref not in workflow.agents:
            continue
        agent = workflow.agents[node.agent_ref]
        model = node.model or agent.model
        pairs = [(f"agent node {node_id!r}", agent.provider or (infer_provider(model) if model else None), model)]
        pairs += [(f"agent {agent.id!r} fallback_chain", f.provider, f.model) for f in agent.fallback_chain or []]
        for where, provider, name in pairs:
            if provider and name and (provider, name) not in seen:
                seen.add((provider, name))
                out.append((where, provider, name))
    return out


def unknown_model_warnings(workflow: LoadedWorkflow, entries: Mapping[str, ProviderEntry], home: Path) -> list[str]:
    """One warning per model no catalog knows (the price table, the provider's cached live list)."""
    from relavium_desktop.engine.agent.pricing import price_for

    warnings = []
    for where, provider, model in workflow_models(workflow):
        entry = entries.get(provider)
        listed = cached_models(home, provider, entry.base_url) if entry is not None else None
        live = [m.id for m in listed.models] if listed is not None else []
        if model in live or price_for(model) is not None:
            continue
        if live:
            more = f", and {len(live) - _SHOWN} more" if len(live) > _SHOWN else ""
            known = f"{provider}'s live list has: {', '.join(live[:_SHOWN])}{more}"
        else:
            known = (f"no live list of {provider}'s models is cached yet (relavium providers models {provider} "
                     "fetches it)")
        warnings.append(f"{where}: model {model!r} is not in any catalog this install knows; {known}")
    return warnings
