"""One headless agent run: the loop, node-level retry and one terminal event.

Retry re-runs the whole node from the original prompt (a clean slate, the
same as a workflow node retry) when the failure is retryable and its code is
in ``retry.retry_on``, never sooner than a provider's ``Retry-After``
(capped; ``engine/llm/retry.py``).  Without ``retry:`` in the agent file
the loop's default policy retries passing provider failures within the
turn instead.  Cancellation — the caller cancelling this task —
ends the run with ``run:cancelled``; ``cancelled`` wins over any error
already in flight.  ``node:retrying`` names the 1-based attempt about to
start (2 for the first retry), the same ``attemptNumber`` a workflow node
retry carries, so one reader serves both.
"""

from __future__ import annotations

import asyncio
from typing import Any

from relavium_desktop.engine.agent.loop import AgentLoop
from relavium_desktop.engine.agent.outcome import AgentFailure, LoopResult
from relavium_desktop.engine.events import (
    AgentUsage,
    Emit,
    NodeRetrying,
    RunCancelled,
    RunCompleted,
    RunFailed,
    RunStarted,
)
from relavium_desktop.engine.llm.messages import Message
from relavium_desktop.engine.llm.retry import retry_after_floor_ms


async def run_agent(
    loop: AgentLoop, prompt: str, *, emit: Emit
) -> LoopResult:
    spec = loop.spec
    if spec.output_schema is not None:  # asked for, as a workflow agent node asks (agent_loop_runner.py)
        from relavium_desktop.engine.workflow.agent_loop_runner import schema_instruction

        prompt_parts = (spec.system_prompt, schema_instruction(spec.output_schema))
        loop.spec = spec.model_copy(update={"system_prompt": "\n\n".join(p for p in prompt_parts if p)})
    emit(RunStarted(agent_id=spec.id, provider=spec.provider, model=spec.model))
    attempt = 1  # retry.max counts attempts, the first included
    try:
        while True:
            history = [Message.user(prompt)]
            result = await loop.run(history)
            if result.status == "completed" and spec.output_schema is not None:
                result.failure = _schema_failure(spec.id, result.text, spec.output_schema)
                result.status = "failed" if result.failure is not None else "completed"
            failure = result.failure
            if (
                result.status == "failed"
                and failure is not None
                and failure.retryable
                and failure.code in spec.retry.retry_on
                and attempt < spec.retry.max
            ):
                # The agent's own retry wins, but never sooner than the server asked.
                delay = max(spec.retry.delay_ms(attempt), retry_after_floor_ms(failure.retry_after))
                attempt += 1
                emit(NodeRetrying(node_id=loop.ctx.node_id, attempt_number=attempt,
                                  delay_ms=delay, error=failure.info()))
                await loop.sleep(delay / 1000)
                continue
            break
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
        cancelled = AgentFailure("cancelled", "cancelled by the user or the run")
        emit(RunCancelled(error=cancelled.info()))
        return LoopResult(status="cancelled", failure=cancelled)
    usage = AgentUsage(
        input_tokens=sum(u.input_tokens for u in result.usage),
        output_tokens=sum(u.output_tokens for u in result.usage),
    )
    if result.status == "completed":
        emit(RunCompleted(output=result.text, tool_turns=result.tool_turns, usage=usage))
    else:
        assert result.failure is not None
        emit(RunFailed(error=result.failure.info(), retryable=result.failure.retryable,
                       tool_turns=result.tool_turns, usage=usage))
    return result


def _schema_failure(agent_id: str, text: str, schema: dict[str, Any]) -> AgentFailure | None:
    """Why the final reply misses the agent's ``output_schema`` (not JSON, or the wrong shape), or None.

    The agent file's reply contract is checked as a workflow node's is: a
    reply that does not match fails the run (not retryable: the same prompt
    would be asked again of the same model), rather than passing unchecked.
    """
    from relavium_desktop.engine.workflow.agent_loop_runner import parse_json_reply
    from relavium_desktop.engine.workflow.errors import NodeError
    from relavium_desktop.engine.workflow.schema_check import check_output_schema

    try:
        check_output_schema(agent_id, parse_json_reply(agent_id, text), schema)
    except NodeError as exc:
        return AgentFailure(exc.code, exc.message, reason=exc.reason)
    return None
