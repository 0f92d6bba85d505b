"""One handler per node type: what a node does once the scheduler starts it.

Handlers are pure orchestration over injected parts: the expression sandbox,
the tool registry (tool nodes and the ``read_file`` filter go through the
same dispatch pipeline and guardrails as an agent's tool call), and the
agent runner.  They raise :class:`NodeError` in the run-event error
vocabulary; the scheduler owns retries, events and state.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from relavium_desktop.engine.agent.egress_check import PreEgress
from relavium_desktop.engine.agent.tool_config import node_tool_configs
from relavium_desktop.engine.errors import InvalidArgsError, ToolError
from relavium_desktop.engine.events import Emit
from relavium_desktop.engine.jsontypes import JsonDict
from relavium_desktop.engine.tools.media_turn import media_handles
from relavium_desktop.engine.tools.registry import ToolRegistry
from relavium_desktop.engine.tools.tooldef import (
    ApprovalRegime,
    FsScopeTier,
    NodeToolConfig,
    ToolCall,
    ToolDispatchContext,
    ToolPolicy,
)
from relavium_desktop.engine.workflow.agents import (
    AgentNodeError,
    AgentNodeRequest,
    AgentNodeResult,
    AgentNodeRunner,
)
from relavium_desktop.engine.workflow.errors import NodeError
from relavium_desktop.engine.workflow.models import (
    AgentDef,
    AgentNode,
    AnyNode,
    ConditionNode,
    InputNode,
    MergeNode,
    OutputNode,
    ParallelNode,
    ToolNode,
    TransformNode,
)
from relavium_desktop.engine.workflow.plan import DEFAULT_KEY, RunPlan, when_key
from relavium_desktop.engine.workflow.sandbox import ExpressionSandbox
from relavium_desktop.engine.workflow.schema_check import check_output_schema
from relavium_desktop.engine.workflow.templates import Scope, render_text, render_value


@dataclass(slots=True)
class NodeResult:
    output: Any
    selected: str | None = None  # a condition's chosen branch key
    input_tokens: int = 0
    output_tokens: int = 0
    model: str | None = None
    attempt: int = 1


@dataclass(slots=True)
class NodeEnv:
    """Everything a handler may use; built once per run."""

    run_id: str
    plan: RunPlan
    agents: dict[str, AgentDef]
    registry: ToolRegistry
    sandbox: ExpressionSandbox
    policy: ToolPolicy
    fs_scope: FsScopeTier
    emit: Emit
    masked_inputs: dict[str, Any]
    agent_runner: AgentNodeRunner | None = None
    # Called with (node id, result) so the run tallies tokens/cost and emits cost:updated.
    on_usage: Callable[[str, AgentNodeResult, int], None] | None = None
    # Why a tool node is not vouched for by a person's gate approval on every
    # path to it (None: it is); see engine/workflow/gates.py.
    gate_refusal: Callable[[str], str | None] = field(default=lambda _n: "the run has no human gate")
    invoke_depth: int = 0
    # The surface's approval regime for governed tool actions (the desktop's
    # confirm hook); None is the headless author-trust path (CLI).
    approval: ApprovalRegime | None = None
    # The run's template scope now (inputs, ctx, outputs): an invoke_agent delegate renders
    # its agent's system_prompt with it.
    template_scope: Callable[[], Scope] | None = None
    # The run's budget: the pre-egress check for a node's requests (None: no budget).
    budget: Callable[[str], PreEgress] | None = None


def _tool_error(exc: ToolError) -> NodeError:
    return NodeError(str(exc.code), exc.message, retryable=exc.retryable, reason=exc.reason)


def file_reader(env: NodeEnv, node_id: str) -> Callable[[str], Awaitable[str]]:
    """The ``read_file`` template filter: the registry's read_file tool, its policy and events."""

    async def read(path: str) -> str:
        ctx = ToolDispatchContext(
            run_id=env.run_id, node_id=node_id, granted_tool_ids=frozenset({"read_file"}),
            policy=env.policy, fs_scope=env.fs_scope, emit=env.emit, approval=env.approval,
        )
        outcome = await env.registry.dispatch(ToolCall("read_file", {"path": path}), ctx)
        if not outcome.ok:
            assert outcome.error is not None
            raise _tool_error(outcome.error)
        result = outcome.result
        if isinstance(result, dict) and "content" in result:
            return str(result["content"])
        if isinstance(result, dict) and "files" in result:
            return "\n".join(f"--- {f.get('path')}\n{f.get('content', '')}" for f in result["files"])
        return json.dumps(result)

    return read


async def run_input(node: InputNode, scope: Scope, env: NodeEnv) -> NodeResult:
    return NodeResult(dict(env.masked_inputs))


async def run_transform(node: TransformNode, scope: Scope, env: NodeEnv) -> NodeResult:
    value = await env.sandbox.evaluate("transform", node.transform, _expr_scope(scope, env))
    if node.output_schema is not None:
        check_output_schema(node.id, value, node.output_schema)
    return NodeResult(value)


def _strict_equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return bool(a == b)
    return type(a) is type(b) and bool(a == b)


async def run_condition(node: ConditionNode, scope: Scope, env: NodeEnv) -> NodeResult:
    value = await env.sandbox.evaluate("condition", node.expression, _expr_scope(scope, env))
    for branch in node.branches:
        if _strict_equal(value, branch.when):
            return NodeResult({"value": value, "branch": branch.target_node}, selected=when_key(branch.when))
    if node.default is not None:
        return NodeResult({"value": value, "branch": node.default}, selected=DEFAULT_KEY)
    raise NodeError("validation", f"condition {node.id!r}: no branch matched and no default is set",
                    reason="no_branch_matched")


async def run_parallel(node: ParallelNode, scope: Scope, env: NodeEnv) -> NodeResult:
    return NodeResult({"branches": list(node.parallel_of)})


def branch_outputs(node_id: str, scope: Scope, env: NodeEnv) -> list[Any]:
    return [scope.outputs[b] for b in env.plan.merge_branches.get(node_id, []) if b in scope.outputs]


async def run_merge(node: MergeNode, scope: Scope, env: NodeEnv) -> NodeResult:
    branches = branch_outputs(node.id, scope, env)
    if node.merge_strategy == "custom":
        assert node.merge_fn is not None
        return NodeResult(await env.sandbox.evaluate("merge_fn", node.merge_fn, _expr_scope(scope, env, branches)))
    if node.merge_strategy == "first":
        return NodeResult(branches[0] if branches else None)
    if node.merge_strategy == "object_merge":
        merged: JsonDict = {}
        for b in branches:
            if not isinstance(b, dict):
                raise NodeError("validation", f"merge {node.id!r}: object_merge needs object branch outputs")
            merged.update(b)
        return NodeResult(merged)
    out: list[Any] = []
    for b in branches:
        if isinstance(b, list):
            out.extend(b)
        else:
            out.append(b)
    return NodeResult(out)


async def run_tool(node: ToolNode, scope: Scope, env: NodeEnv) -> NodeResult:
    cfg = node.tool_config
    mapped = await render_value(cfg.input_mapping, scope, file_reader(env, node.id))
    refusal = env.gate_refusal(node.id)
    ctx = ToolDispatchContext(
        run_id=env.run_id,
        node_id=node.id,
        granted_tool_ids=frozenset({cfg.tool_name}),
        config=NodeToolConfig(parameters=cfg.parameters, input_mapping=mapped, output_mapping=cfg.output_mapping),
        policy=env.policy,
        fs_scope=env.fs_scope,
        gate_approved=refusal is None,
        gate_refusal=refusal,
        emit=env.emit,
        approval=env.approval,
        invoke_agent=_delegate(env, node.id),
    )
    outcome = await env.registry.dispatch(ToolCall(cfg.tool_name, {}), ctx)
    if not outcome.ok:
        assert outcome.error is not None
        raise _tool_error(outcome.error)
    # output_mapping reads the full result; without one the node's output is the full result.
    return NodeResult(outcome.mapped if cfg.output_mapping else outcome.result)


async def _rendered_agent(env: NodeEnv, node: AgentNode, scope: Scope | None) -> AgentDef:
    """The node's agent with its ``system_prompt`` rendered: it sees ``inputs`` and ``ctx`` (agent spec)."""
    agent = env.agents.get(node.agent_ref)
    if agent is None:
        raise NodeError("validation", f"agent {node.agent_ref!r} is not resolved")
    if not agent.system_prompt or "{{" not in agent.system_prompt or scope is None:
        return agent
    system = await render_text(agent.system_prompt, scope, file_reader(env, node.id))
    return agent.model_copy(update={"system_prompt": system})


def _agent_request(
    env: NodeEnv, node: AgentNode, agent: AgentDef, prompt: str, *, append: str | None, attempt: int,
    invoked_by: str | None,
) -> AgentNodeRequest:
    tools = tuple(node.tools if node.tools is not None else agent.tools)
    # An approved human gate vouches for what an *author* wrote downstream of
    # it, never for what a model decides to do: the spec has agent producers
    # always pass "not approved", so an agent's git_commit stays gate_required
    # however many gates sit upstream.
    ctx = ToolDispatchContext(
        run_id=env.run_id, node_id=node.id, granted_tool_ids=frozenset(tools), policy=env.policy,
        fs_scope=env.fs_scope, gate_approved=False, emit=env.emit, approval=env.approval,
        invoke_agent=_delegate(env, node.id) if "invoke_agent" in tools else None,
        # The agent's tool_config applies to whichever of its tools the node kept.
        tool_configs=node_tool_configs(agent.tool_config),
    )
    return AgentNodeRequest(
        run_id=env.run_id, node_id=node.id, agent=agent, prompt=prompt, system_prompt_append=append,
        tools=tools, model=node.model, temperature=node.temperature, max_tokens=node.max_tokens,
        output_schema=node.output_schema, attempt=attempt, registry=env.registry, tool_context=ctx,
        invoked_by=invoked_by, own_retry=getattr(node, "retry", None) is not None or agent.retry is not None,
        pre_egress=env.budget(node.id) if env.budget is not None else None,
    )


async def _call_agent(env: NodeEnv, node: AgentNode, request: AgentNodeRequest) -> NodeResult:
    if env.agent_runner is None:
        raise NodeError("provider_unavailable", f"agent node {node.id!r} needs an agent runner; none is configured")
    try:
        result = await env.agent_runner.run_agent(request, env.emit)
    except ToolError as exc:
        raise _tool_error(exc) from None
    except AgentNodeError as exc:
        # A failed agent still spent tokens: count them before the node fails.
        _count_usage(env, node.id, exc.usage, request.attempt)
        raise
    _count_usage(env, node.id, result, request.attempt)
    if node.output_schema is not None:
        check_output_schema(node.id, result.output, node.output_schema)
    return NodeResult(result.output, input_tokens=result.input_tokens, output_tokens=result.output_tokens,
                      model=result.model)


def _count_usage(env: NodeEnv, node_id: str, usage: AgentNodeResult, attempt: int) -> None:
    if env.on_usage is not None and (usage.input_tokens or usage.output_tokens or usage.cost_microcents):
        env.on_usage(node_id, usage, attempt)


async def run_agent(node: AgentNode, scope: Scope, env: NodeEnv, attempt: int = 1) -> NodeResult:
    reader = file_reader(env, node.id)
    prompt = await render_text(node.prompt_template, scope, reader)
    append = await render_text(node.system_prompt_append, scope, reader) if node.system_prompt_append else None
    agent = await _rendered_agent(env, node, scope)
    request = _agent_request(env, node, agent, prompt, append=append, attempt=attempt, invoked_by=None)
    return await _call_agent(env, node, request)


MAX_INVOKE_DEPTH = 4


def _delegate(env: NodeEnv, caller: str) -> Callable[[str, Any], Awaitable[Any]]:
    """``invoke_agent``: run another agent node by id with explicit input."""

    async def invoke(target_id: str, payload: Any) -> Any:
        # A wrong target is the caller's argument mistake (invalid_args, fed back to
        # a model), whichever runner or tool node dispatched the call.
        target = env.plan.nodes.get(target_id)
        if not isinstance(target, AgentNode):
            others = sorted(n for n, node in env.plan.nodes.items() if isinstance(node, AgentNode) and n != caller)
            known = f"agent nodes: {', '.join(repr(n) for n in others)}" if others else "it has no other agent node"
            raise InvalidArgsError(f"invoke_agent: nodeId {target_id!r} is not an agent node of this workflow; {known}")
        if target_id == caller:
            raise InvalidArgsError("invoke_agent: an agent node cannot invoke itself")
        if env.invoke_depth >= MAX_INVOKE_DEPTH:
            raise InvalidArgsError(f"invoke_agent: delegation deeper than {MAX_INVOKE_DEPTH} levels")
        inner = NodeEnv(**{f: getattr(env, f) for f in NodeEnv.__dataclass_fields__})
        inner.invoke_depth = env.invoke_depth + 1
        prompt = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
        scope = env.template_scope() if env.template_scope is not None else None
        agent = await _rendered_agent(inner, target, scope)
        request = _agent_request(inner, target, agent, prompt, append=None, attempt=1, invoked_by=caller)
        return (await _call_agent(inner, target, request)).output

    return invoke


async def run_output(node: OutputNode, scope: Scope, env: NodeEnv) -> NodeResult:
    deps = [e.source for e in env.plan.in_edges[node.id] if e.source in scope.outputs]
    value: Any = scope.outputs[deps[0]] if len(deps) == 1 else {d: scope.outputs[d] for d in deps}
    if node.save_to:
        path = node.save_to.replace("{{ run.id }}", env.run_id).replace("{{run.id}}", env.run_id)
        problem = save_to_problem(node.id, path, value, deps)
        if problem is not None:
            raise NodeError("validation", problem, reason="save_to_no_media")
        content = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=2)
        ctx = ToolDispatchContext(
            run_id=env.run_id, node_id=node.id, granted_tool_ids=frozenset({"write_file"}),
            config=NodeToolConfig(input_mapping={"path": path, "content": content, "createParents": True}),
            policy=env.policy, fs_scope=env.fs_scope, emit=env.emit, approval=env.approval,
        )
        outcome = await env.registry.dispatch(ToolCall("write_file", {}), ctx)
        if not outcome.ok:
            assert outcome.error is not None
            raise _tool_error(outcome.error)
    if node.output_format != "json" and not isinstance(value, str):
        # text and markdown promise the run's reader text: a structured value arrives as its JSON text.
        value = "" if value is None else json.dumps(value, ensure_ascii=False, indent=2)
    return NodeResult(value)


# Where a text report may be saved (a local extension: upstream's save_to writes generated media only).
TEXT_REPORT_SUFFIXES = frozenset({".md", ".markdown", ".txt", ".text", ".json", ".yaml", ".yml", ".csv",
                                  ".tsv", ".html", ".htm", ".xml", ".log", ".rst"})


def _produced_media(value: Any) -> list[str]:
    found = media_handles(value)
    if isinstance(value, dict) and not found:
        found = [h for v in value.values() for h in media_handles(v)]
    return found


def save_to_problem(node_id: str, path: str, value: Any, deps: list[str]) -> str | None:
    """Why ``save_to`` cannot save what reached the output node, or None.

    ``save_to`` is a deliverable, never best effort: a media path (an image,
    audio or video name, or no text extension) needs a media handle the run
    produced, and writing a handle's bytes is not available here, so both
    fail with the reason instead of writing JSON into ``image.png``.  A text
    file name (``report.md``) saves a text report.
    """
    handles = _produced_media(value)
    source = ", ".join(repr(d) for d in deps) or "nothing"
    if handles:
        return (f"output {node_id!r}: save_to {path!r}: saving media bytes ({len(handles)} handle(s) from "
                f"{source}) to a file is not available in this version; the handle stays in the run's outputs")
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    suffix = "." + name.rsplit(".", 1)[1].lower() if "." in name.lstrip(".") else ""
    if suffix in TEXT_REPORT_SUFFIXES:
        return None
    return (f"output {node_id!r}: save_to {path!r} names a media file, but {source} produced no media "
            f"(no image, audio or video handle in its output); nothing was written. Save a text report "
            f"under a text name such as .md or .txt")


def _expr_scope(scope: Scope, env: NodeEnv, branches: list[Any] | None = None) -> JsonDict:
    # Secrets never enter the sandbox: expressions see the masked inputs.
    masked = Scope(scope.run_id, dict(env.masked_inputs), scope.declared_inputs, scope.ctx, scope.outputs,
                   scope.node_ids)
    return masked.expression_scope(branches)


async def run_node(node: AnyNode, scope: Scope, env: NodeEnv, attempt: int) -> NodeResult:
    if isinstance(node, InputNode):
        return await run_input(node, scope, env)
    if isinstance(node, TransformNode):
        return await run_transform(node, scope, env)
    if isinstance(node, ConditionNode):
        return await run_condition(node, scope, env)
    if isinstance(node, ParallelNode):
        return await run_parallel(node, scope, env)
    if isinstance(node, MergeNode):
        return await run_merge(node, scope, env)
    if isinstance(node, ToolNode):
        return await run_tool(node, scope, env)
    if isinstance(node, AgentNode):
        return await run_agent(node, scope, env, attempt)
    if isinstance(node, OutputNode):
        return await run_output(node, scope, env)
    raise NodeError("internal", f"node type {node.type!r} has no handler")
