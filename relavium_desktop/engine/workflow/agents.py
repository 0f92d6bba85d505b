"""The seam between the workflow engine and the agent loop.

Agent nodes (and ``invoke_agent`` delegations) need the model<->tools loop,
which lives in ``engine/agent``.  The workflow engine only knows this
protocol: it hands over the resolved agent, the rendered prompt, the tool
context (grants narrowed to the node, the workflow's tool policy, the event
sink, the ``invoke_agent`` delegate) and gets back the node's output and
usage.  The runner emits ``agent:token`` / ``agent:tool_call`` /
``agent:tool_result`` through ``emit``; the engine emits ``cost:updated``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from relavium_desktop.engine.agent.egress_check import PreEgress
from relavium_desktop.engine.events import Emit
from relavium_desktop.engine.jsontypes import JsonDict
from relavium_desktop.engine.tools.registry import ToolRegistry
from relavium_desktop.engine.tools.tooldef import ToolDispatchContext
from relavium_desktop.engine.workflow.errors import NodeError
from relavium_desktop.engine.workflow.models import AgentDef


@dataclass(frozen=True, slots=True)
class AgentNodeRequest:
    run_id: str
    node_id: str
    agent: AgentDef
    prompt: str
    system_prompt_append: str | None
    tools: tuple[str, ...]
    model: str | None
    temperature: float | None
    max_tokens: int | None
    output_schema: JsonDict | None
    attempt: int
    registry: ToolRegistry
    tool_context: ToolDispatchContext
    # Set when another agent called this node through invoke_agent.
    invoked_by: str | None = None
    # The node or its agent sets ``retry:``: that retry wins over the default provider policy.
    own_retry: bool = False
    # The run's budget check, called before every request the node sends (engine/workflow/budget.py).
    pre_egress: PreEgress | None = None


@dataclass(frozen=True, slots=True)
class AgentNodeResult:
    output: Any
    input_tokens: int = 0
    output_tokens: int = 0
    model: str | None = None
    cost_microcents: int = 0


class AgentNodeError(NodeError):
    """An agent node's failure that still spent tokens.

    The provider bills every turn the loop streamed before it failed, so the
    usage rides on the error and the engine counts it (``cost:updated``, the
    run's totals) exactly as it would for a node that completed.
    """

    def __init__(
        self, code: str, message: str, *, usage: AgentNodeResult, retryable: bool = False,
        reason: str | None = None, retry_after: float | None = None,
    ) -> None:
        super().__init__(code, message, retryable=retryable, reason=reason, retry_after=retry_after)
        self.usage = usage


class AgentNodeRunner(Protocol):
    async def run_agent(
        self, request: AgentNodeRequest, emit: Emit
    ) -> AgentNodeResult:
        """Run one agent turn-loop to completion; raise NodeError/ToolError to fail the node."""
        ...
