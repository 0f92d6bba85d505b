"""One headless agent run: the loop, node-level retry and one terminal event.

Retry re-runs the whole node from the original prompt (a clean slate, the
same as a workflow node retry) when the failure is retryable and its code is
in ``retry.retry_on``.  Cancellation — the caller cancelling this task —
ends the run with ``run:cancelled``; ``cancelled`` wins over any error
already in flight.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from relavium_desktop.engine.agent.loop import AgentLoop
from relavium_desktop.engine.agent.outcome import AgentFailure, LoopResult
from relavium_desktop.engine.llm.messages import Message


async def run_agent(
    loop: AgentLoop, prompt: str, *, emit: Callable[[dict[str, Any]], object]
) -> LoopResult:
    spec = loop.spec
    emit({"type": "run:started", "agentId": spec.id, "provider": spec.provider, "model": spec.model})
    attempt = 0
    try:
        while True:
            history = [Message.user(prompt)]
            result = await loop.run(history)
            failure = result.failure
            if (
                result.status == "failed"
                and failure is not None
                and failure.retryable
                and failure.code in spec.retry.retry_on
                and attempt < spec.retry.max
            ):
                attempt += 1
                delay = spec.retry.delay_ms(attempt)
                emit({"type": "node:retrying", "nodeId": loop.ctx.node_id, "attempt": attempt,
                      "delayMs": delay, "error": failure.to_json()})
                await loop.sleep(delay / 1000)
                continue
            break
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
        emit({"type": "run:cancelled", "error": {"code": "cancelled", "reason": None,
                                                  "message": "cancelled by the user or the run"}})
        return LoopResult(status="cancelled", failure=AgentFailure("cancelled", "cancelled by the user or the run"))
    usage = {
        "inputTokens": sum(u.input_tokens for u in result.usage),
        "outputTokens": sum(u.output_tokens for u in result.usage),
    }
    if result.status == "completed":
        emit({"type": "run:completed", "output": result.text, "toolTurns": result.tool_turns, "usage": usage})
    else:
        assert result.failure is not None
        emit({"type": "run:failed", "error": result.failure.to_json(),
              "retryable": result.failure.retryable, "toolTurns": result.tool_turns, "usage": usage})
    return result
