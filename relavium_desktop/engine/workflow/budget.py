"""A workflow's ``budget``: a pre-egress cost cap, enforced as the spec defines it (ADR-0028).

Before every LLM request of the run (each turn, retry and fallback entry of
every agent node and ``invoke_agent`` delegate) the governor checks the run's
spend so far -- finished nodes, plus the turns the requesting node already
paid for -- plus the request's worst-case cost (engine/agent/egress_check.py)
against ``max_cost_microcents``, and applies ``on_exceed``:

* ``fail``: the request is not sent; ``budget:exceeded`` (a local additive
  event with the figures), then the node fails and the run fails with
  ``budget_exceeded``;
* ``pause_for_approval``: the request is not sent; the node waits behind a
  budget gate, announced by ``budget:paused`` and answered like a human gate
  (``relavium run --resume RUN_ID --decision approve|reject``, the app's gate
  panel).  Approving lifts the cap for the rest of the run and runs the node
  again from its start; rejecting fails the run with ``budget_exceeded``;
* ``warn``: ``budget:warning`` once per run, and the request goes ahead.

A cap the engine could not enforce is refused at validation: every model a
node may call (its agent's model or the node's override, and each
``fallback_chain`` entry) must have a known price.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from relavium_desktop.engine.agent.egress_check import EgressRefused, PreEgress, worst_case_microcents
from relavium_desktop.engine.agent.pricing import price_for
from relavium_desktop.engine.events import BudgetExceeded, BudgetWarning, Emit
from relavium_desktop.engine.jsontypes import JsonDict
from relavium_desktop.engine.workflow.budget_words import money
from relavium_desktop.engine.workflow.errors import Issue
from relavium_desktop.engine.workflow.models import AgentDef, AgentNode, Budget, WorkflowBody
from relavium_desktop.engine.workflow.source import SourceMap

if TYPE_CHECKING:
    from relavium_desktop.engine.agent.routing import Route
    from relavium_desktop.engine.llm.provider import ChatRequest

PAUSE_REASON = "pause_for_approval"
EXCEEDED_REASON = "budget_exceeded"


class BudgetGovernor:
    """The run's one cap: reads and marks the run state, so a resumed run keeps its spend and answers."""

    def __init__(self, budget: Budget, state: JsonDict, emit: Emit) -> None:
        self.limit = budget.max_cost_microcents
        self.on_exceed = budget.on_exceed
        self.state = state
        self.emit = emit

    def for_node(self, node_id: str) -> PreEgress:
        def check(route: Route, request: ChatRequest, spent_in_node: int) -> None:
            self.check(node_id, route, request, spent_in_node)

        return check

    def check(self, node_id: str, route: Route, request: ChatRequest, spent_in_node: int) -> None:
        if self.state.get("budgetApproved"):
            return  # a person approved going past the cap for this run
        spent = int(self.state["costMicrocents"]) + spent_in_node
        estimate = worst_case_microcents(request)
        if estimate is None:  # validation requires prices; fail closed if one is missing anyway
            raise EgressRefused("budget_exceeded", f"budget: no price is known for model {route.model!r}, so the "
                                "run's cost cap cannot be enforced; the request was not sent", reason=EXCEEDED_REASON)
        if spent + estimate <= self.limit:
            return
        if self.on_exceed == "warn":
            if not self.state.get("budgetWarned"):
                self.state["budgetWarned"] = True
                self.emit(BudgetWarning(spent_microcents=spent, limit_microcents=self.limit,
                                        threshold_pct=max(0, min(100, round(spent * 100 / self.limit)))))
            return
        # Dollars first (what a person approves in a gate panel), the exact figures after.
        message = (f"budget: the run has spent {money(spent)} of its {money(self.limit)} limit ({spent} of "
                   f"{self.limit} micro-cents), and node {node_id!r}'s next request to {route.model} may cost up "
                   f"to {money(estimate)} more (max_tokens {request.max_tokens or 'default'}); the request was "
                   "not sent")
        if self.on_exceed == "fail":
            self.emit(BudgetExceeded(node_id=node_id, spent_microcents=spent, limit_microcents=self.limit,
                                     estimated_microcents=estimate))
            raise EgressRefused("budget_exceeded", message, reason=EXCEEDED_REASON)
        self.state["budgetPause"] = {"spentMicrocents": spent, "limitMicrocents": self.limit,
                                     "estimatedMicrocents": estimate}
        raise EgressRefused("budget_exceeded", message + "; waiting for approval to go past the cap",
                            reason=PAUSE_REASON)


def _models_of(agent: AgentDef, node: AgentNode) -> list[tuple[str, bool]]:
    """(model, named by the node's own ``model``?) for every model a node of this agent may call."""
    primary = [(node.model, True)] if node.model else [(agent.model, False)] if agent.model else []
    return primary + [(entry.model, False) for entry in agent.fallback_chain or []]


def budget_issues(
    body: WorkflowBody, agents: Mapping[str, AgentDef], placed: Mapping[str, int], smap: SourceMap,
    price: Callable[[str], object] = price_for,
) -> list[Issue]:
    """A budget whose cap could not be enforced: a model with no known price. ``placed``: agent id -> index."""
    if body.budget is None:
        return []
    issues: list[Issue] = []
    seen: set[tuple[str, str]] = set()
    for n, node in enumerate(body.nodes):
        if not isinstance(node, AgentNode) or node.agent_ref not in agents:
            continue
        agent = agents[node.agent_ref]
        for model, on_node in _models_of(agent, node):
            if price(model) is not None or (node.agent_ref, model) in seen:
                continue
            seen.add((node.agent_ref, model))
            path: tuple[str | int, ...] = (
                ("workflow", "nodes", n, "model") if on_node else ("workflow", "agents", placed.get(agent.id, 0)))
            issues.append(smap.issue(path, (
                f"budget: no price is known for model {model!r} (agent {agent.id!r}), so the run's "
                f"max_cost_microcents could not be enforced before its requests; use a priced model or remove "
                f"the budget")))
    return issues
