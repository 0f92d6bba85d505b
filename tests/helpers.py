"""Small builders shared by tests (no fixtures, no magic)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from relavium_desktop.engine.events import EventBus
from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS
from relavium_desktop.engine.tools.registry import DispatchOutcome, ToolRegistry
from relavium_desktop.engine.tools.tooldef import (
    NodeToolConfig,
    ToolCall,
    ToolDef,
    ToolDispatchContext,
    ToolPolicy,
)
from tests.conftest import relavium_cmd


def make_ctx(*grants: str, bus: EventBus | None = None, **kw: Any) -> ToolDispatchContext:
    return ToolDispatchContext(
        run_id=kw.pop("run_id", "test-run"),
        node_id=kw.pop("node_id", "n1"),
        granted_tool_ids=frozenset(grants),
        emit=bus.emit if bus else None,
        **kw,
    )


async def dispatch(
    tool_id: str,
    args: dict[str, Any] | None = None,
    *,
    host: ToolHost | None = None,
    tools: tuple[ToolDef, ...] = BUILTIN_TOOLS,
    policy: ToolPolicy | None = None,
    config: NodeToolConfig | None = None,
    **ctx_kw: Any,
) -> DispatchOutcome:
    registry = ToolRegistry(tools, host or ToolHost())
    ctx = make_ctx(
        tool_id,
        policy=policy or ToolPolicy(),
        config=config or NodeToolConfig(),
        **ctx_kw,
    )
    return await registry.dispatch(ToolCall(tool_id, args or {}), ctx)


def run_cli(*argv: str, env: dict[str, str], cwd: Path | None = None, input: str | None = None,
            timeout: float = 60) -> tuple[int, Any, str]:
    """Run the real console script; returns (exit code, parsed JSON stdout or raw text, stderr)."""
    proc = subprocess.run(
        [*relavium_cmd(), *argv], env=env, cwd=cwd, input=input,
        capture_output=True, text=True, timeout=timeout, check=False,
    )
    out: Any = proc.stdout
    if "--json" in argv and proc.stdout.strip():
        lines = proc.stdout.strip().splitlines()
        out = json.loads(proc.stdout) if len(lines) == 1 else [json.loads(x) for x in lines]
    return proc.returncode, out, proc.stderr
