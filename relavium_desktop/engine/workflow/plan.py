"""The run plan: graph checks and a deterministic topological order.

Three edge sources are unioned (as upstream's run-plan): authored ``edges``,
materialized routing (``parallel_of`` members, ``condition`` branch targets
and ``default``) and data edges (a template reading ``run.outputs["x"]``
runs after ``x``).  The order is Kahn's algorithm with authored-order ties,
so a plan is reproducible byte for byte — checkpoint/resume relies on it.
Every structural fault is collected as an :class:`Issue` at the author's
line:column before anything runs.
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Collection
from dataclasses import dataclass, field

from relavium_desktop.engine.workflow.errors import Issue, TemplateError
from relavium_desktop.engine.workflow.models import (
    AgentDef,
    AgentNode,
    AnyNode,
    ConditionNode,
    InputNode,
    MergeNode,
    ParallelNode,
    ToolNode,
    WorkflowFile,
)
from relavium_desktop.engine.workflow.source import SourceMap
from relavium_desktop.engine.workflow.templates import Site, sites_in

DEFAULT_KEY = "__default__"
DEFAULT_MAX_PARALLEL = 8


def when_key(value: bool | int | float | str) -> str:
    """A canonical key for a branch ``when`` value (strict ===: type matters)."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return json.dumps(value)


def _handle_matches(handle: str, when: bool | int | float | str) -> bool:
    if isinstance(when, bool):
        return handle == ("true" if when else "false")
    if isinstance(when, int | float):
        try:
            return float(handle) == float(when)
        except ValueError:
            return False
    return handle == when


@dataclass(slots=True)
class PlanEdge:
    source: str
    target: str
    # None: unconditional.  Otherwise the condition's branch keys this edge serves.
    keys: set[str] | None = None
    condition: str | None = None  # an authored edge ``condition`` (JS)


@dataclass(slots=True)
class RunPlan:
    order: list[str]
    nodes: dict[str, AnyNode]
    in_edges: dict[str, list[PlanEdge]]
    out_edges: dict[str, list[PlanEdge]]
    merge_branches: dict[str, list[str]]
    delegates: frozenset[str]
    max_parallel: int
    index: dict[str, int] = field(default_factory=dict)

    def scheduled(self) -> list[str]:
        return [n for n in self.order if n not in self.delegates]

    def descendants(self, node_id: str) -> set[str]:
        seen: set[str] = set()
        stack = [node_id]
        while stack:
            for e in self.out_edges[stack.pop()]:
                if e.target not in seen:
                    seen.add(e.target)
                    stack.append(e.target)
        return seen


# Template fields per node type, as (field name, allows read_file).
TEMPLATE_FIELDS: dict[str, tuple[str, ...]] = {
    "agent": ("prompt_template", "system_prompt_append"),
    "human_gate": ("message_template", "assignee"),
}
_TEXT_FIELDS = ("prompt_template", "system_prompt_append", "message_template", "assignee")


def _node_sites(node: AnyNode) -> list[tuple[str, list[Site]]]:
    out: list[tuple[str, list[Site]]] = []
    for name in TEMPLATE_FIELDS.get(node.type, ()):
        out.append((name, sites_in(getattr(node, name))))
    if isinstance(node, ToolNode):
        out.append(("tool_config", sites_in(node.tool_config.input_mapping)))
    return out


def build_plan(
    wf: WorkflowFile,
    agents: dict[str, AgentDef],
    smap: SourceMap,
    *,
    known_tools: Collection[str] | None = None,
    agents_complete: bool = True,
) -> tuple[RunPlan, list[Issue]]:
    body = wf.workflow
    issues: list[Issue] = []
    nodes: dict[str, AnyNode] = {}
    index: dict[str, int] = {}
    for i, node in enumerate(body.nodes):
        if node.id in nodes:
            issues.append(smap.issue(("workflow", "nodes", i, "id"), f"duplicate node id {node.id!r}"))
            continue
        nodes[node.id] = node
        index[node.id] = i

    def npath(nid: str, *rest: str | int) -> tuple[str | int, ...]:
        return ("workflow", "nodes", index.get(nid, 0), *rest)

    in_edges: dict[str, list[PlanEdge]] = {n: [] for n in nodes}
    out_edges: dict[str, list[PlanEdge]] = {n: [] for n in nodes}
    pairs: dict[tuple[str, str], PlanEdge] = {}

    def add(source: str, target: str, key: str | None, condition: str | None = None) -> None:
        edge = pairs.get((source, target))
        if edge is None:
            edge = PlanEdge(source, target, None if key is None else {key}, condition)
            pairs[(source, target)] = edge
            in_edges[target].append(edge)
            out_edges[source].append(edge)
            return
        if key is None:
            edge.keys = None
        elif edge.keys is not None:
            edge.keys.add(key)
        if condition is not None:
            edge.condition = condition

    # Materialized routing edges.
    for nid, node in nodes.items():
        if isinstance(node, ConditionNode):
            for b, branch in enumerate(node.branches):
                if branch.target_node not in nodes:
                    issues.append(smap.issue(npath(nid, "branches", b, "target_node"),
                                             f"branch target {branch.target_node!r} is not a node"))
                else:
                    add(nid, branch.target_node, when_key(branch.when))
            if node.default is not None:
                if node.default not in nodes:
                    issues.append(smap.issue(npath(nid, "default"), f"default target {node.default!r} is not a node"))
                else:
                    add(nid, node.default, DEFAULT_KEY)
        elif isinstance(node, ParallelNode):
            for m, member in enumerate(node.parallel_of):
                if member not in nodes:
                    issues.append(smap.issue(npath(nid, "parallel_of", m), f"parallel_of member {member!r} is not a node"))
                else:
                    add(nid, member, None)

    # Authored edges.
    for j, edge in enumerate(body.edges):
        epath = ("workflow", "edges", j)
        src, handle = edge.source, edge.handle
        bad = False
        if src not in nodes:
            issues.append(smap.issue((*epath, "from"), f"edge source {src!r} is not a node"))
            bad = True
        if edge.to not in nodes:
            issues.append(smap.issue((*epath, "to"), f"edge target {edge.to!r} is not a node"))
            bad = True
        if bad:
            continue
        source = nodes[src]
        if isinstance(source, ConditionNode):
            if handle is None:
                issues.append(smap.issue((*epath, "from"),
                                         f"an edge from condition {src!r} needs a branch handle ({src}:<when>)"))
                continue
            match = [b for b in source.branches if _handle_matches(handle, b.when)]
            if not match:
                issues.append(smap.issue((*epath, "from"), f"condition {src!r} has no branch {handle!r}"))
                continue
            add(src, edge.to, when_key(match[0].when), edge.condition)
        elif handle is not None:
            issues.append(smap.issue((*epath, "from"), f"only condition nodes have branch handles ({edge.from_!r})"))
        elif isinstance(source, ParallelNode) and edge.to not in source.parallel_of:
            issues.append(smap.issue((*epath, "to"),
                                     f"parallel {src!r} fans out only to its parallel_of members, not {edge.to!r}"))
        else:
            add(src, edge.to, None, edge.condition)

    # Templates: syntax, data edges and the secret-taint gate.
    secret_inputs = {i.name for i in body.inputs if i.type == "secret"}
    tainted_ctx: set[str] = set()
    for c, entry in enumerate(body.context):
        try:
            ctx_sites = sites_in(entry.value)
        except TemplateError as exc:
            issues.append(smap.issue(("workflow", "context", c, "value"), exc.message))
            continue
        for site in ctx_sites:
            if site.ref[0] == "run" and site.ref[1] == "outputs":
                issues.append(smap.issue(("workflow", "context", c, "value"),
                                         "a context value cannot read run.outputs (no node has run yet)"))
            if (site.ref[0] == "inputs" and str(site.ref[1]) in secret_inputs) or (
                site.ref[0] == "ctx" and str(site.ref[1]) in tainted_ctx
            ):
                tainted_ctx.add(entry.key)
    for nid, node in nodes.items():
        try:
            field_sites = _node_sites(node)
        except TemplateError as exc:
            issues.append(smap.issue(npath(nid), f"node {nid!r}: {exc.message}"))
            continue
        for fname, found in field_sites:
            for site in found:
                producer = site.output_node
                if producer is not None and producer in nodes and producer != nid:
                    add(producer, nid, None)
                secret = (site.ref[0] == "inputs" and str(site.ref[1]) in secret_inputs) or (
                    site.ref[0] == "ctx" and str(site.ref[1]) in tainted_ctx
                )
                if secret and fname in _TEXT_FIELDS:
                    issues.append(smap.issue(npath(nid, fname),
                                             f"node {nid!r}: a secret input may not be interpolated into {fname}"))

    # Agents: references, narrowing, known tools.
    invokers = False
    for nid, node in nodes.items():
        if isinstance(node, AgentNode):
            agent = agents.get(node.agent_ref)
            if agent is None:
                if agents_complete:
                    issues.append(smap.issue(npath(nid, "agent_ref"),
                                             f"agent_ref {node.agent_ref!r} names no agent in agents"))
                continue
            granted = set(agent.tools)
            if node.tools is not None:
                wider = [t for t in node.tools if t not in granted]
                if wider:
                    issues.append(smap.issue(npath(nid, "tools"),
                                             f"node {nid!r} tools may only narrow agent {agent.id!r}'s tools; "
                                             f"not granted to the agent: {', '.join(wider)}"))
            effective = node.tools if node.tools is not None else agent.tools
            invokers = invokers or "invoke_agent" in effective
        elif (isinstance(node, ToolNode) and known_tools is not None
              and node.tool_config.tool_name not in known_tools):
            issues.append(smap.issue(npath(nid, "tool_config", "tool_name"),
                                     f"unknown tool {node.tool_config.tool_name!r}"))
    if known_tools is not None:
        for a, agent in enumerate(agents.values()):
            unknown = [t for t in agent.tools if t not in known_tools and not t.startswith("mcp:")]
            if unknown:
                issues.append(smap.issue(("workflow", "agents", a, "tools"),
                                         f"agent {agent.id!r} lists unknown tool(s): {', '.join(unknown)}"))

    # Agent nodes with no edges at all are invoke_agent delegates, not scheduled.
    delegates = frozenset(
        nid for nid, node in nodes.items()
        if invokers and isinstance(node, AgentNode) and not in_edges[nid] and not out_edges[nid]
    )

    # Kahn with authored-order ties.
    indeg = {n: len(in_edges[n]) for n in nodes}
    heap = [(index[n], n) for n in nodes if indeg[n] == 0]
    heapq.heapify(heap)
    order: list[str] = []
    while heap:
        _, n = heapq.heappop(heap)
        order.append(n)
        for e in sorted(out_edges[n], key=lambda e: index[e.target]):
            indeg[e.target] -= 1
            if indeg[e.target] == 0:
                heapq.heappush(heap, (index[e.target], e.target))
    if len(order) < len(nodes):
        cyc = _find_cycle([n for n in nodes if n not in order], out_edges)
        first = cyc[0] if cyc else next(n for n in nodes if n not in order)
        issues.append(smap.issue(npath(first), "cycle: " + " → ".join([*cyc, cyc[0]]) if cyc else "cycle"))
        order.extend(sorted((n for n in nodes if n not in order), key=lambda n: index[n]))

    # Reachability from the entry nodes.
    entries = [n for n, node in nodes.items() if isinstance(node, InputNode)]
    if not entries:
        entries = [n for n in nodes if not in_edges[n] and n not in delegates]
    reached = set(entries)
    stack = list(entries)
    while stack:
        for e in out_edges[stack.pop()]:
            if e.target not in reached:
                reached.add(e.target)
                stack.append(e.target)
    for n in nodes:
        if n not in reached and n not in delegates:
            issues.append(smap.issue(npath(n), f"node {n!r} is unreachable from the workflow's input"))

    merge_branches = {
        nid: _merge_order(nid, nodes, in_edges, index)
        for nid, node in nodes.items() if isinstance(node, MergeNode)
    }
    max_parallel = body.max_parallel or DEFAULT_MAX_PARALLEL
    plan = RunPlan(order, nodes, in_edges, out_edges, merge_branches, delegates, max_parallel, index)
    return plan, issues


def _merge_order(
    merge_id: str, nodes: dict[str, AnyNode], in_edges: dict[str, list[PlanEdge]], index: dict[str, int]
) -> list[str]:
    """Branch order for a merge: the paired parallel's ``parallel_of`` order, then the rest."""
    deps = sorted((e.source for e in in_edges[merge_id]), key=lambda n: index[n])
    for node in nodes.values():
        if isinstance(node, ParallelNode) and set(node.parallel_of) <= set(deps):
            rest = [d for d in deps if d not in node.parallel_of]
            return [*node.parallel_of, *rest]
    return deps


def _find_cycle(candidates: list[str], out_edges: dict[str, list[PlanEdge]]) -> list[str]:
    cand = set(candidates)
    for start in candidates:
        path: list[str] = [start]
        seen = {start}
        node = start
        while True:
            nxt = next((e.target for e in out_edges[node] if e.target in cand), None)
            if nxt is None:
                break
            if nxt in seen:
                return path[path.index(nxt):]
            path.append(nxt)
            seen.add(nxt)
            node = nxt
    return []
