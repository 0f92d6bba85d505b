"""Workflow engine overhead on a 200-node fan-out of transform and tool nodes.

Builds one workflow: input -> parallel of 200 branches (alternating transform
nodes and tool nodes calling a no-op test tool) -> concat merge -> output.
Runs it at max_parallel 1 and 8 and reports, as medians of several runs:

- total wall time per run;
- baseline: the same node work done directly (sandbox evaluations and tool
  dispatches through the registry, no scheduler/events/checkpoints), measured
  in the same process;
- engine overhead per node = (total - baseline) / nodes.

Run: .venv/bin/python bench/workflow_fanout.py [--repeats N]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from typing import Any

from pydantic import BaseModel

from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS
from relavium_desktop.engine.tools.registry import ToolRegistry
from relavium_desktop.engine.tools.tooldef import NodeToolConfig, ToolCall, ToolDef, ToolDispatchContext
from relavium_desktop.engine.workflow.journal import MemoryJournal
from relavium_desktop.engine.workflow.loader import load_workflow
from relavium_desktop.engine.workflow.run import WorkflowEngine
from relavium_desktop.engine.workflow.sandbox import QuickJsSandbox

BRANCHES = 200


class NoopArgs(BaseModel):
    i: int


async def _noop(args: NoopArgs, host: ToolHost, ctx: ToolDispatchContext) -> Any:
    return {"i": args.i}


NOOP = ToolDef(id="noop", description="bench no-op", args_model=NoopArgs, dispatch=_noop)


def workflow_text(max_parallel: int) -> str:
    lines = ["schema_version: '1.0'", "workflow:", "  id: fanout", f"  max_parallel: {max_parallel}",
             "  nodes:", "    - {id: s, type: input}",
             "    - {id: fan, type: parallel, parallel_of: [" + ", ".join(f"n{i}" for i in range(BRANCHES)) + "]}"]
    for i in range(BRANCHES):
        if i % 2:
            lines.append(f"    - {{id: n{i}, type: tool, tool_config: {{tool_name: noop, input_mapping: {{i: {i}}}}}}}")
        else:
            lines.append(f"    - {{id: n{i}, type: transform, transform: '({{ i: {i} }})'}}")
    lines += ["    - {id: join, type: merge, merge_strategy: concat}", "    - {id: out, type: output}",
              "  edges:", "    - {from: s, to: fan}"]
    lines += [f"    - {{from: n{i}, to: join}}" for i in range(BRANCHES)]
    lines.append("    - {from: join, to: out}")
    return "\n".join(lines) + "\n"


async def engine_run(max_parallel: int) -> float:
    registry = ToolRegistry((*BUILTIN_TOOLS, NOOP), ToolHost())
    wf = load_workflow(workflow_text(max_parallel), "fanout.relavium.yaml")  # loading is not timed
    engine = WorkflowEngine(registry, journal=MemoryJournal())
    started = time.perf_counter()
    result = await engine.start(wf, {}).run()
    elapsed = time.perf_counter() - started
    assert result.status == "completed" and len(result.outputs["out"]) == BRANCHES
    return elapsed


async def baseline() -> float:
    """The same node work without the engine: 100 sandbox evals + 100 registry dispatches."""
    registry = ToolRegistry((*BUILTIN_TOOLS, NOOP), ToolHost())
    sandbox = QuickJsSandbox()
    scope = {"inputs": {}, "ctx": {}, "run": {"id": "b", "outputs": {}}}
    started = time.perf_counter()
    for i in range(BRANCHES):
        if i % 2:
            ctx = ToolDispatchContext(run_id="b", node_id=f"n{i}", granted_tool_ids=frozenset({"noop"}),
                                      config=NodeToolConfig(input_mapping={"i": i}))
            await registry.dispatch(ToolCall("noop", {}), ctx)
        else:
            await sandbox.evaluate("transform", f"({{ i: {i} }})", scope)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    nodes = BRANCHES + 5
    base = statistics.median(asyncio.run(baseline()) for _ in range(args.repeats))
    print(f"nodes per run: {nodes} ({BRANCHES // 2} transform, {BRANCHES // 2} tool)")
    print(f"baseline (node work alone, sequential): median {base * 1000:.1f} ms")
    for mp in (1, 8):
        times = [asyncio.run(engine_run(mp)) for _ in range(args.repeats)]
        med = statistics.median(times)
        overhead = (med - base) / nodes * 1000
        print(f"max_parallel={mp}: total median {med * 1000:.1f} ms, ratio to baseline {med / base:.2f}x, "
              f"engine overhead per node {overhead:.3f} ms")


if __name__ == "__main__":
    main()
