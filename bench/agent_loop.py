"""Per-turn overhead of the agent loop, excluding the provider.

A 10-turn tool loop (read_file each turn, then a final answer) against the
scripted local LLM server, through the real OpenAI-compatible provider, the
real registry and the real filesystem host.  Time spent inside the provider's
stream is measured and subtracted; what remains is the engine's per-turn
overhead (dispatch, bounding, masking, events, history).  The baseline,
measured in the same run, is the provider alone streaming the same replies.

Run: .venv/bin/python bench/agent_loop.py [--runs N]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from relavium_desktop.application.tools import tool_registry
from relavium_desktop.engine.agent.loop import AgentLoop
from relavium_desktop.engine.agent.spec import AgentSpec
from relavium_desktop.engine.llm import ChatRequest, Message, StreamEvent
from relavium_desktop.engine.tools.tooldef import ToolDispatchContext
from relavium_desktop.host.assembly import HostSettings, build_host
from relavium_desktop.providers.config import ProviderEntry, basic_validate_base_url, env_resolver
from relavium_desktop.providers.factory import make_provider
from relavium_desktop.providers.http_base import HttpProvider
from tests.fixtures.llm_server import Reply, ScriptedLLMServer

TURNS = 10


class Timed:
    """Wraps a provider and accumulates wall time spent inside its stream."""

    def __init__(self, inner: HttpProvider) -> None:
        self.inner = inner
        self.name = inner.name
        self.seconds = 0.0

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        it = self.inner.stream(request).__aiter__()
        while True:
            start = time.perf_counter()
            try:
                ev = await it.__anext__()
            except StopAsyncIteration:
                self.seconds += time.perf_counter() - start
                return
            self.seconds += time.perf_counter() - start
            yield ev


def script(server: ScriptedLLMServer) -> None:
    server.script(*[Reply.call("read_file", {"path": "notes.txt"}) for _ in range(TURNS)], Reply.say("done"))


async def one_loop(server: ScriptedLLMServer, provider: HttpProvider, ws: Path, home: Path) -> tuple[float, float]:
    script(server)
    timed = Timed(provider)
    spec = AgentSpec.model_validate({"id": "bench", "provider": "p", "model": "gpt-4o-mini", "tools": ["read_file"]})
    host = build_host(HostSettings(workspace=ws, home=home))
    ctx = ToolDispatchContext(run_id="bench", node_id="bench", granted_tool_ids=frozenset({"read_file"}),
                              emit=lambda e: None)
    loop = AgentLoop(spec=spec, providers=lambda name: timed, registry=tool_registry(host, home=home), ctx=ctx)
    start = time.perf_counter()
    result = await loop.run([Message.user("go")])
    total = time.perf_counter() - start
    assert result.status == "completed" and result.tool_turns == TURNS, result.failure
    return total, timed.seconds


async def provider_only(server: ScriptedLLMServer, provider: HttpProvider) -> float:
    script(server)
    start = time.perf_counter()
    for _ in range(TURNS + 1):
        async for _ev in provider.stream(ChatRequest(model="gpt-4o-mini", messages=[Message.user("go")])):
            pass
    return time.perf_counter() - start


async def main(runs: int) -> None:
    with ScriptedLLMServer() as server, tempfile.TemporaryDirectory() as tmp:
        ws, home = Path(tmp) / "ws", Path(tmp) / "home"
        ws.mkdir()
        home.mkdir()
        (ws / "notes.txt").write_text("remember the milk\n" * 20)
        entry = ProviderEntry(kind="openai", base_url=server.base_url + "/v1", api_key="env:K", allow_local=True)
        provider = make_provider("p", entry, resolve_secret=env_resolver({"K": "bench"}),
                                 validate_base_url=basic_validate_base_url)
        await one_loop(server, provider, ws, home)  # warm-up
        overheads, provider_turns, baselines = [], [], []
        for _ in range(runs):
            total, in_provider = await one_loop(server, provider, ws, home)
            overheads.append((total - in_provider) / (TURNS + 1))
            provider_turns.append(in_provider / (TURNS + 1))
            baselines.append(await provider_only(server, provider) / (TURNS + 1))
    ov, pt, base = (statistics.median(x) * 1000 for x in (overheads, provider_turns, baselines))
    print(f"agent loop, {TURNS} tool turns + final answer, {runs} runs (medians)")
    print(f"  engine overhead per turn (excluding provider): {ov:8.3f} ms")
    print(f"  provider time per turn inside the loop:        {pt:8.3f} ms")
    print(f"  baseline: provider alone per turn:             {base:8.3f} ms")
    print(f"  ratio overhead / baseline provider turn:       {ov / base:8.3f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    asyncio.run(main(parser.parse_args().runs))
