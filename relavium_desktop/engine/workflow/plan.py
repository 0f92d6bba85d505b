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
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

from relavium_desktop.engine.agent.tool_config import parameter_problems
from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS
from relavium_desktop.engine.tools.env_policy import env_refusal
from relavium_desktop.engine.tools.http_tools import HttpToolDecl
from relavium_desktop.engine.tools.known_ids import KnownTools, as_known
from relavium_desktop.engine.workflow.errors import Issue, TemplateError
from relavium_desktop.engine.workflow.gates import layout_problem
from relavium_desktop.engine.workflow.models import (
    AgentDef,
    AgentNode,
    AnyNode,
    ConditionNode,
    HumanGateNode,
    InputNode,
    MergeNode,
    ParallelNode,
    ToolNode,
    WorkflowBody,
    WorkflowFile,
)
from relavium_desktop.engine.workflow.source import SourceMap
from relavium_desktop.engine.workflow.templates import Site, sites_in

# The tools whose argument models a workflow's tool_config can be checked against here.
_BUILTIN_TOOLS = {t.id: t for t in BUILTIN_TOOLS}

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
    # Only a template reads the source's output: the edge orders the two nodes but never
    # makes the target runnable (routing is the condition's alone); see WorkflowRun._ready.
    data: bool = False


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
    """The plan and every structural issue found (an empty list means runnable)."""
    return _PlanBuilder(wf, agents, smap, known_tools=known_tools, agents_complete=agents_complete).build()


class _PlanBuilder:
    """One plan under construction: each phase is a method so it can be read and tested alone.

    The phases run in a fixed order because each relies on the previous:
    edges must all exist before delegates are known, delegates before the
    reachability check, the order before merges can be laid out.
    """

    def __init__(
        self,
        wf: WorkflowFile,
        agents: dict[str, AgentDef],
        smap: SourceMap,
        *,
        known_tools: Collection[str] | None = None,
        agents_complete: bool = True,
    ) -> None:
        self.body = wf.workflow
        self.agents = agents
        self.smap = smap
        self.known_tools = known_tools
        self.agents_complete = agents_complete
        self.issues: list[Issue] = []
        self.nodes: dict[str, AnyNode] = {}
        self.index: dict[str, int] = {}
        self.in_edges: dict[str, list[PlanEdge]] = {}
        self.out_edges: dict[str, list[PlanEdge]] = {}
        self._pairs: dict[tuple[str, str], PlanEdge] = {}
        self.invokers = False
        self.delegates: frozenset[str] = frozenset()

    def build(self) -> tuple[RunPlan, list[Issue]]:
        self.collect_nodes()
        self.add_routing_edges()
        self.add_authored_edges()
        self.add_template_edges()
        self.check_agents_and_tools()
        self.delegates = self.find_delegates()
        order = self.topological_order()
        self.check_reachability()
        self.check_gate_dominance()
        merge_branches = {
            nid: _merge_order(nid, self.nodes, self.in_edges, self.index)
            for nid, node in self.nodes.items() if isinstance(node, MergeNode)
        }
        max_parallel = self.body.max_parallel or DEFAULT_MAX_PARALLEL
        plan = RunPlan(order, self.nodes, self.in_edges, self.out_edges, merge_branches, self.delegates,
                       max_parallel, self.index)
        return plan, self.issues

    # -- helpers ---------------------------------------------------------------

    def issue(self, path: tuple[str | int, ...], message: str) -> None:
        self.issues.append(self.smap.issue(path, message))

    def npath(self, nid: str, *rest: str | int) -> tuple[str | int, ...]:
        return ("workflow", "nodes", self.index.get(nid, 0), *rest)

    def add_edge(
        self, source: str, target: str, key: str | None, condition: str | None = None, *, data: bool = False
    ) -> None:
        """One plan edge per (source, target); a second route widens its branch keys.

        ``data`` marks an edge only a template implies; a routed or authored
        edge for the same pair makes it a control edge.
        """
        edge = self._pairs.get((source, target))
        if edge is None:
            edge = PlanEdge(source, target, None if key is None else {key}, condition, data)
            self._pairs[(source, target)] = edge
            self.in_edges[target].append(edge)
            self.out_edges[source].append(edge)
            return
        if data:
            return  # a template read adds nothing to an edge that already routes
        edge.data = False
        if key is None:
            edge.keys = None
        elif edge.keys is not None:
            edge.keys.add(key)
        if condition is not None:
            edge.condition = condition

    # -- phases ----------------------------------------------------------------

    def collect_nodes(self) -> None:
        for i, node in enumerate(self.body.nodes):
            if node.id in self.nodes:
                self.issue(("workflow", "nodes", i, "id"), f"duplicate node id {node.id!r}")
                continue
            self.nodes[node.id] = node
            self.index[node.id] = i
        self.in_edges = {n: [] for n in self.nodes}
        self.out_edges = {n: [] for n in self.nodes}

    def add_routing_edges(self) -> None:
        """Materialized routing: condition branch targets and defaults, parallel_of members."""
        nodes = self.nodes
        for nid, node in nodes.items():
            if isinstance(node, ConditionNode):
                for b, branch in enumerate(node.branches):
                    if branch.target_node not in nodes:
                        self.issue(self.npath(nid, "branches", b, "target_node"),
                                   f"branch target {branch.target_node!r} is not a node")
                    else:
                        self.add_edge(nid, branch.target_node, when_key(branch.when))
                if node.default is not None:
                    if node.default not in nodes:
                        self.issue(self.npath(nid, "default"), f"default target {node.default!r} is not a node")
                    else:
                        self.add_edge(nid, node.default, DEFAULT_KEY)
            elif isinstance(node, ParallelNode):
                for m, member in enumerate(node.parallel_of):
                    if member not in nodes:
                        self.issue(self.npath(nid, "parallel_of", m), f"parallel_of member {member!r} is not a node")
                    else:
                        self.add_edge(nid, member, None)

    def add_authored_edges(self) -> None:
        nodes = self.nodes
        for j, edge in enumerate(self.body.edges):
            epath = ("workflow", "edges", j)
            src, handle = edge.source, edge.handle
            bad = False
            if src not in nodes:
                self.issue((*epath, "from"), f"edge source {src!r} is not a node")
                bad = True
            if edge.to not in nodes:
                self.issue((*epath, "to"), f"edge target {edge.to!r} is not a node")
                bad = True
            if bad:
                continue
            source = nodes[src]
            if isinstance(source, ConditionNode):
                if handle is None:
                    self.issue((*epath, "from"),
                               f"an edge from condition {src!r} needs a branch handle ({src}:<when>)")
                    continue
                match = [b for b in source.branches if _handle_matches(handle, b.when)]
                if not match:
                    self.issue((*epath, "from"), f"condition {src!r} has no branch {handle!r}")
                    continue
                self.add_edge(src, edge.to, when_key(match[0].when), edge.condition)
            elif handle is not None:
                self.issue((*epath, "from"), f"only condition nodes have branch handles ({edge.from_!r})")
            elif isinstance(source, ParallelNode) and edge.to not in source.parallel_of:
                self.issue((*epath, "to"),
                           f"parallel {src!r} fans out only to its parallel_of members, not {edge.to!r}")
            else:
                self.add_edge(src, edge.to, None, edge.condition)

    def _tainted_context(self, secret_inputs: set[str]) -> set[str]:
        """Context keys whose value interpolates a secret input (directly or via other context)."""
        tainted: set[str] = set()
        for c, entry in enumerate(self.body.context):
            try:
                ctx_sites = sites_in(entry.value)
            except TemplateError as exc:
                self.issue(("workflow", "context", c, "value"), exc.message)
                continue
            for site in ctx_sites:
                if site.ref[0] == "run" and site.ref[1] == "outputs":
                    self.issue(("workflow", "context", c, "value"),
                               "a context value cannot read run.outputs (no node has run yet)")
                if (site.ref[0] == "inputs" and str(site.ref[1]) in secret_inputs) or (
                    site.ref[0] == "ctx" and str(site.ref[1]) in tainted
                ):
                    tainted.add(entry.key)
        return tainted

    def add_template_edges(self) -> None:
        """Template syntax, data edges (``run.outputs["x"]`` runs after x) and the secret-taint gate."""
        secret_inputs = {i.name for i in self.body.inputs if i.type == "secret"}
        tainted_ctx = self._tainted_context(secret_inputs)
        for nid, node in self.nodes.items():
            try:
                field_sites = _node_sites(node)
            except TemplateError as exc:
                self.issue(self.npath(nid), f"node {nid!r}: {exc.message}")
                continue
            for fname, found in field_sites:
                for site in found:
                    producer = site.output_node
                    if producer is not None and producer in self.nodes and producer != nid:
                        self.add_edge(producer, nid, None, data=True)
                    secret = (site.ref[0] == "inputs" and str(site.ref[1]) in secret_inputs) or (
                        site.ref[0] == "ctx" and str(site.ref[1]) in tainted_ctx
                    )
                    if secret and fname in _TEXT_FIELDS:
                        self.issue(self.npath(nid, fname),
                                   f"node {nid!r}: a secret input may not be interpolated into {fname}")

    def check_agents_and_tools(self) -> None:
        """Agent references, node tools that only narrow the agent's, and known tool ids.

        A known id is one the caller's ``known_tools`` resolves (builtins,
        enabled plugins, ``mcp_<server>_*`` of configured servers), or an http
        tool this workflow declares -- an agent's own http tools are known to
        that agent only.  An http tool may not take a known tool's id.
        """
        known = None if self.known_tools is None else as_known(self.known_tools)
        # The workflow's allowedEnv: pinned env names are checked against it now, not at the first call.
        allowed_env = tuple((self.body.tools.allowedEnv if self.body.tools else None) or ())
        if known is not None:
            known = known.with_servers(_workflow_servers(self.body, self.agents.values()))
            self.check_http_names(known)
            known = known.with_ids(d.name for d in self.body.http_tools)
        for nid, node in self.nodes.items():
            if isinstance(node, AgentNode):
                agent = self.agents.get(node.agent_ref)
                if agent is None:
                    if self.agents_complete:
                        self.issue(self.npath(nid, "agent_ref"), f"agent_ref {node.agent_ref!r} names no agent in agents")
                    continue
                granted = set(agent.tools)
                if node.tools is not None:
                    wider = [t for t in node.tools if t not in granted]
                    if wider:
                        self.issue(self.npath(nid, "tools"),
                                   f"node {nid!r} tools may only narrow agent {agent.id!r}'s tools; "
                                   f"not granted to the agent: {', '.join(wider)}")
                effective = node.tools if node.tools is not None else agent.tools
                self.invokers = self.invokers or "invoke_agent" in effective
            elif (isinstance(node, ToolNode) and known is not None
                  and node.tool_config.tool_name not in known):
                self.issue(self.npath(nid, "tool_config", "tool_name"),
                           f"unknown tool {node.tool_config.tool_name!r}{_hint(node.tool_config.tool_name)}")
            elif isinstance(node, ToolNode):
                self.check_pinned_env(nid, node, allowed_env)
        if known is not None:
            for a, agent in enumerate(self.agents.values()):
                mine = known.with_ids(d.name for d in agent.http_tools)
                for t, tool_id in enumerate(agent.tools):
                    if tool_id not in mine:
                        self.issue(("workflow", "agents", a, "tools", t),
                                   f"agent {agent.id!r} lists unknown tool {tool_id!r}{_hint(tool_id)}")
                # tool_config parameters must be fields of their (built-in) tool; values never echoed.
                for problem in parameter_problems(agent.tool_config, _BUILTIN_TOOLS.get, allowed_env=allowed_env):
                    self.issue(("workflow", "agents", a, "tool_config", *problem.path),
                               f"agent {agent.id!r} tool_config: {problem.message}")

    def check_pinned_env(self, nid: str, node: ToolNode, allowed_env: Collection[str]) -> None:
        """A tool node's pinned ``env`` names pass the env allowlist (names only: values may be templated)."""
        tool = _BUILTIN_TOOLS.get(node.tool_config.tool_name)
        env = node.tool_config.parameters.get("env")
        if tool is None or "env" not in tool.config_only or not isinstance(env, dict):
            return
        for name in env:
            message = env_refusal(tool.id, str(name), allowed_env)
            if message is not None:
                self.issue(self.npath(nid, "tool_config", "parameters", "env"), message)
                return

    def check_http_names(self, known: KnownTools) -> None:
        """An http tool's name may not shadow a built-in, plugin or MCP tool id, nor repeat in one scope."""
        scopes: list[tuple[tuple[str | int, ...], list[HttpToolDecl]]] = [
            (("workflow", "http_tools"), list(self.body.http_tools))]
        scopes += [(("workflow", "agents", a, "http_tools"), list(agent.http_tools))
                   for a, agent in enumerate(self.agents.values())]
        workflow_names = {d.name for d in self.body.http_tools}
        for base, decls in scopes:
            seen: set[str] = set()
            for d, decl in enumerate(decls):
                where = (*base, d, "name")
                if decl.name in known:
                    self.issue(where, f"http tool {decl.name!r} has the id of an existing tool; choose another name")
                elif decl.name in seen or (base[1] == "agents" and decl.name in workflow_names):
                    self.issue(where, f"http tool {decl.name!r} is declared twice")
                seen.add(decl.name)

    def find_delegates(self) -> frozenset[str]:
        """Agent nodes with no edges at all are invoke_agent delegates, not scheduled."""
        if not self.invokers:
            return frozenset()
        return frozenset(
            nid for nid, node in self.nodes.items()
            if isinstance(node, AgentNode) and not self.in_edges[nid] and not self.out_edges[nid]
        )

    def topological_order(self) -> list[str]:
        """Kahn's algorithm with authored-order ties; a cycle is an issue and its nodes go last."""
        nodes, index, out_edges = self.nodes, self.index, self.out_edges
        indeg = {n: len(self.in_edges[n]) for n in nodes}
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
            placed = set(order)
            left = [n for n in nodes if n not in placed]
            cyc = _find_cycle(left, out_edges)
            first = cyc[0] if cyc else left[0]
            self.issue(self.npath(first), "cycle: " + " → ".join([*cyc, cyc[0]]) if cyc else "cycle")
            order.extend(sorted(left, key=lambda n: index[n]))
        return order

    def check_reachability(self) -> None:
        """Every scheduled node is reachable from an input node (or a root when there is none)."""
        nodes = self.nodes
        entries = [n for n, node in nodes.items() if isinstance(node, InputNode)]
        if not entries:
            entries = [n for n in nodes if not self.in_edges[n] and n not in self.delegates]
        reached = set(entries)
        stack = list(entries)
        while stack:
            for e in self.out_edges[stack.pop()]:
                if e.target not in reached:
                    reached.add(e.target)
                    stack.append(e.target)
        for n in nodes:
            if n not in reached and n not in self.delegates:
                self.issue(self.npath(n), f"node {n!r} is unreachable from the workflow's input")

    def check_gate_dominance(self) -> None:
        """A tool node whose tool needs a person's gate approval must have a human_gate on every path to it.

        Reported here, at the tool name's line:column, because such a node
        would be refused ``gate_required`` on every run: a gate on a sibling
        branch never vouches for it (see engine/workflow/gates.py).
        """
        gates = {n for n, node in self.nodes.items() if isinstance(node, HumanGateNode)}
        for nid, node in self.nodes.items():
            if not isinstance(node, ToolNode):
                continue
            tool = _BUILTIN_TOOLS.get(node.tool_config.tool_name)
            if tool is None or not tool.policy.requires_gate_approval:
                continue
            path = layout_problem(self.in_edges, nid, gates, self.delegates)
            if path is not None:
                self.issue(self.npath(nid, "tool_config", "tool_name"),
                           f"node {nid!r} runs {tool.id}, which needs a person's approval at a human_gate on "
                           f"every path to it; no human_gate lies on the path {path}")


def _hint(tool_id: str) -> str:
    """A pointer for the two spellings people bring from elsewhere."""
    if tool_id.startswith("mcp:") or (tool_id.startswith("mcp_") and tool_id.count("_") >= 2):
        return " (an MCP tool is mcp_<server>_<tool>, and <server> must be configured in mcp.yaml)"
    return ""


def _workflow_servers(body: WorkflowBody, agents: Iterable[AgentDef]) -> list[str]:
    """MCP servers the workflow and its agents declare (``mcp_servers``; entries are checked by the surface).

    A run starts them as one block, so a server an agent file declares serves
    every node of the workflow, and its tool ids are known to all of them.
    """
    names = [str(k) for k in body.mcp_servers or {}]
    return names + [str(k) for agent in agents for k in agent.mcp_servers or {}]


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
