"""An agent's ``input_schema`` checked against its node's input before any request is sent.

A node whose rendered prompt does not match fails with ``validation``
(reason ``input_schema``), naming the path and the rule but not the value,
so no tokens are spent on an input the agent's author said it cannot take.
"""

from __future__ import annotations

from relavium_desktop.engine.agent.spec_fields import input_problem
from relavium_desktop.engine.workflow.errors import NodeError
from relavium_desktop.engine.workflow.models import AgentDef


def check_agent_input(agent: AgentDef, node_id: str, prompt: str) -> None:
    if agent.input_schema is None:
        return
    problem = input_problem(agent.input_schema, prompt)
    if problem is not None:
        raise NodeError("validation", f"agent node {node_id!r}: {problem}", reason="input_schema")
