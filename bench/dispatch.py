"""Per-call overhead of the full dispatch pipeline vs a bare call.

A no-op tool with small args is dispatched through ToolRegistry.dispatch
(resolution, grant, assembly, bounds, schema, guardrails, host call, output
mapping, bounding, masking, events into an EventBus) and, in the same run,
the same coroutine is awaited directly.  Prints medians over several
batches and the pipeline's added cost per call.  Target: <= 50 us per call.

Run: .venv/bin/python bench/dispatch.py [calls_per_batch] [batches]
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from typing import Any

from pydantic import BaseModel, ConfigDict

from relavium_desktop.engine.events import EventBus
from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.tools.registry import ToolRegistry
from relavium_desktop.engine.tools.tooldef import (
    NodeToolConfig,
    PolicyClass,
    ToolCall,
    ToolDef,
    ToolDispatchContext,
)


class NoopArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    path: str
    count: int = 1


async def noop(args: Any, host: ToolHost, ctx: Any) -> Any:
    return {"ok": True, "path": args.path}


TOOL = ToolDef(id="noop", description="does nothing", args_model=NoopArgs, dispatch=noop,
               policy=PolicyClass(fs_scoped=True))


async def main(n: int, batches: int) -> None:
    registry = ToolRegistry((TOOL,), ToolHost())
    bus = EventBus(clock=time.time, run_id="bench")
    bus.history = _Discard()  # type: ignore[assignment]
    ctx = ToolDispatchContext(
        run_id="bench", node_id="n", granted_tool_ids=frozenset({"noop"}),
        config=NodeToolConfig(output_mapping={"p": "path"}), emit=bus.emit,
    )
    call = ToolCall("noop", {"path": "src/main.py", "count": 3})
    parsed = NoopArgs(path="src/main.py", count=3)
    host = ToolHost()

    for _ in range(2_000):  # warm-up
        await registry.dispatch(call, ctx)
        await noop(parsed, host, ctx)

    pipeline, bare = [], []
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(n):
            await noop(parsed, host, ctx)
        bare.append((time.perf_counter() - t0) / n * 1e6)
        t0 = time.perf_counter()
        for _ in range(n):
            outcome = await registry.dispatch(call, ctx)
        pipeline.append((time.perf_counter() - t0) / n * 1e6)
        assert outcome.ok

    p, b = statistics.median(pipeline), statistics.median(bare)
    print(f"calls per batch: {n}, batches: {batches}")
    print(f"bare call      median {b:8.2f} us/call")
    print(f"full pipeline  median {p:8.2f} us/call")
    print(f"overhead       median {p - b:8.2f} us/call   (ratio {p / b:.0f}x; target <= 50 us)")


class _Discard(list):  # keeps the bus from growing during the benchmark
    def append(self, item: Any) -> None:
        pass


if __name__ == "__main__":
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 5_000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    asyncio.run(main(calls, rounds))
