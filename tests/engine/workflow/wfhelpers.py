"""Builders for workflow tests: load YAML text, run it, summarise the event stream."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS
from relavium_desktop.engine.tools.registry import ToolRegistry
from relavium_desktop.engine.tools.tooldef import ToolDef
from relavium_desktop.engine.workflow.journal import MemoryJournal
from relavium_desktop.engine.workflow.loader import LoadedWorkflow, load_workflow
from relavium_desktop.engine.workflow.run import RunResult, WorkflowEngine, WorkflowRun

FIXTURES = Path(__file__).parent / "fixtures"
HARNESS = FIXTURES / "harness-conditional.relavium.yaml"


def load(text: str, name: str = "wf.relavium.yaml", **kw: Any) -> LoadedWorkflow:
    return load_workflow(text, name, **kw)


def engine(*extra: ToolDef, host: ToolHost | None = None, journal: MemoryJournal | None = None,
           **kw: Any) -> WorkflowEngine:
    registry = ToolRegistry((*BUILTIN_TOOLS, *extra), host or ToolHost())
    return WorkflowEngine(registry, journal=journal if journal is not None else MemoryJournal(), **kw)


async def run(text: str, inputs: dict[str, Any] | None = None, *, eng: WorkflowEngine | None = None,
              ) -> tuple[RunResult, WorkflowRun]:
    eng = eng or engine()
    wf_run = eng.start(load(text), inputs or {})
    return await wf_run.run(), wf_run


def node_sequence(events: list[dict[str, Any]]) -> list[str]:
    """run:* and node:* events as 'type' or 'type:nodeId' (the harness's notation)."""
    out = []
    for e in events:
        if e["type"].startswith(("run:", "node:")):
            out.append(e["type"] + (f":{e['nodeId']}" if "nodeId" in e else ""))
    return out


def of_type(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]
