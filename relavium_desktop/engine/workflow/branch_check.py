"""Branch targets that could run outside their branch, found before a run.

A condition's ``branches[].target_node`` (and ``default``) runs only when the
condition routes to it.  The scheduler makes that so for template reads (a
template reading an earlier node's output orders the nodes but never makes the
target runnable), yet an authored edge, an edge ``condition`` or a
``parallel_of`` membership into a branch target from a node that does not pass
through the condition would still start it when the condition took another
branch.  Such a layout contradicts the author's own routing, so validation
names it at the offending edge's line:column.

A join after the branches (a node fed by two branches of the same condition,
as upstream's ``synthesize-report``) is not a bypass: every one of its routes
passes through the condition.
"""

from __future__ import annotations

from relavium_desktop.engine.workflow.errors import Issue
from relavium_desktop.engine.workflow.models import ConditionNode, ParallelNode, WorkflowBody
from relavium_desktop.engine.workflow.plan import PlanEdge, RunPlan
from relavium_desktop.engine.workflow.source import SourceMap


def _control_descendants(plan: RunPlan, node_id: str) -> set[str]:
    """Every node a route from ``node_id`` reaches (template reads do not route)."""
    seen: set[str] = set()
    stack = [node_id]
    while stack:
        for edge in plan.out_edges[stack.pop()]:
            if not edge.data and edge.target not in seen:
                seen.add(edge.target)
                stack.append(edge.target)
    return seen


def _where(body: WorkflowBody, plan: RunPlan, edge: PlanEdge) -> tuple[str | int, ...]:
    """The authored place of a plan edge: its ``edges`` entry, else the ``parallel_of`` member."""
    for j, authored in enumerate(body.edges):
        if authored.source == edge.source and authored.to == edge.target:
            return ("workflow", "edges", j, "from")
    source = plan.nodes[edge.source]
    if isinstance(source, ParallelNode) and edge.target in source.parallel_of:
        return ("workflow", "nodes", plan.index[edge.source], "parallel_of", source.parallel_of.index(edge.target))
    return ("workflow", "nodes", plan.index[edge.target])


def branch_bypass_issues(body: WorkflowBody, plan: RunPlan, smap: SourceMap) -> list[Issue]:
    """An issue per route into a branch target that does not pass through its condition."""
    issues: list[Issue] = []
    reported: set[tuple[str, str]] = set()
    for cid, node in plan.nodes.items():
        if not isinstance(node, ConditionNode):
            continue
        inside = _control_descendants(plan, cid)
        for branch_edge in plan.out_edges[cid]:
            if branch_edge.keys is None or branch_edge.data:
                continue
            target = branch_edge.target
            for edge in plan.in_edges[target]:
                if edge.data or edge.source == cid or edge.source in inside:
                    continue
                if (edge.source, target) in reported:
                    continue
                reported.add((edge.source, target))
                issues.append(smap.issue(
                    _where(body, plan, edge),
                    f"node {target!r} is a branch target of condition {cid!r}, but the route from "
                    f"{edge.source!r} reaches it without passing through {cid!r}, so it would run when "
                    f"{cid!r} takes another branch; route it through the condition (an edge from "
                    f"'{cid}:<when>') or remove the edge",
                ))
    return issues
