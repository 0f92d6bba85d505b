"""UI event-loop lag while a chat streams and a tool prints.

    .venv/bin/python bench/ui_latency.py [--seconds 5] [--rate 1000]
    .venv/bin/python bench/ui_latency.py --tool-lines 0 [--rounds 2]   # the stream alone, vs plain text

A QTimer probe (PreciseTimer, every 5 ms) records how late each tick fires
on the app's qasync loop.  Two phases in the same run:

* baseline: the real window, idle (the probe alone);
* load: the chat view streams a reply at RATE tokens/s (one SSE chunk per
  token, OpenAI wire format, paced by a local HTTP server thread on
  127.0.0.1) while ``run_command`` -- through the real registry and process
  host, on the same loop -- runs a shell loop that prints continuously.

Prints p50/p99/max lag of each phase (target: load p99 ≤ 20 ms), the tokens
the transcript received and the lines the tool printed.

Stream-only mode (``--tool-lines 0``) streams a realistic answer
(``stream_mix``: prose, lists, tables, long code fences) and reports, for
the Markdown renderer and for a plain-text baseline streamed the same way in
the same run (alternating, ROUNDS each): the CPU time of each coalesced
flush (``Transcript.flush``, thread time, so a loaded machine's waiting is
not counted) median/p99/max, the event-loop lag p50/p99, and the share of
the GUI thread's CPU the whole stream took (flushes plus what they defer:
layout, paint, code colouring).  The baseline is the old renderer: the
message built with ``markdown=False`` (patched in here, for the bench only),
so the ratio shows what Markdown costs whatever the machine's load.  Uses the current
DISPLAY, else the offscreen platform.  Providers are configured like the CLI:
a throwaway ``$RELAVIUM_HOME/providers.yaml`` with the local endpoint opted
in explicitly (``allow_local: true``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import shutil
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

PROBE_MS = 5
TOOL_SCRIPT = 'i=0; while [ $i -lt {lines} ]; do echo "build step $i: compiling module_$i.py ... ok"; i=$((i+1)); done'


class PacedServer:
    """One OpenAI-style streaming reply per request, one token per chunk at ``rate`` tokens/s.

    ``words``: the tokens to send, cycled (default: a short bold-and-newline line).
    """

    def __init__(self, tokens: int, rate: float, words: list[str] | None = None) -> None:
        self.tokens, self.rate = tokens, rate
        self.words = words or ["stream", "ing ", "**token", "s** ", "into ", "the ", "chat ", "view", ". ", "\n"]
        bench = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                with contextlib.suppress(OSError):
                    bench.stream(self)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True).start()

    @property
    def base_url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def stream(self, h: BaseHTTPRequestHandler) -> None:
        def send(data: Any) -> None:
            payload = f"data: {data if isinstance(data, str) else json.dumps(data)}\n\n".encode()
            h.wfile.write(f"{len(payload):x}\r\n".encode() + payload + b"\r\n")
            h.wfile.flush()

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "bench",
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

        send(chunk({"role": "assistant", "content": ""}))
        start = time.monotonic()
        words = self.words
        for i in range(self.tokens):
            delay = start + i / self.rate - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            send(chunk({"content": words[i % len(words)]}))
        send(chunk({}, "stop"))
        send({"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "bench", "choices": [],
              "usage": {"prompt_tokens": 10, "completion_tokens": self.tokens, "total_tokens": self.tokens + 10}})
        send("[DONE]")
        h.wfile.write(b"0\r\n\r\n")
        h.wfile.flush()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class LagProbe:
    """How late a 5 ms PreciseTimer fires: the event loop's lag, one sample per tick.

    Shared by the UI benches so each measures lag the same way.
    """

    def __init__(self, interval_ms: int = PROBE_MS) -> None:
        from relavium_desktop.ui.qt import Qt, QTimer

        self.interval_ms = interval_ms
        self.lags: list[float] = []
        self._last = 0.0
        self._timer = QTimer()
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._tick)

    def _tick(self) -> None:
        now = time.perf_counter()
        if self._last:
            self.lags.append(max(0.0, (now - self._last) * 1000 - self.interval_ms))
        self._last = now

    def start(self) -> None:
        self.lags.clear()
        self._last = 0.0
        self._timer.start()

    def stop(self) -> list[float]:
        self._timer.stop()
        return list(self.lags)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def describe(name: str, lags: list[float]) -> str:
    return (f"{name:<9} ticks {len(lags):>5}   lag p50 {percentile(lags, 0.50):6.2f} ms   "
            f"p99 {percentile(lags, 0.99):6.2f} ms   max {max(lags):6.2f} ms")


class FlushTimer:
    """CPU time (this thread's) of each ``Transcript.flush``: what one coalesced flush costs the GUI thread."""

    def __init__(self) -> None:
        from relavium_desktop.ui.chat.transcript import Transcript

        self.costs: list[float] = []
        self.worst: list[tuple[float, str]] = []  # the costliest flushes and the text each appended
        original = Transcript.flush
        timer = self

        def flush(transcript: Any) -> None:
            pending = "".join(transcript._pending)
            started = time.thread_time()
            original(transcript)
            cost = (time.thread_time() - started) * 1000
            timer.costs.append(cost)
            timer.worst = sorted([*timer.worst, (cost, pending)], reverse=True)[:8]

        Transcript.flush = flush  # type: ignore[method-assign]  # the bench's probe; the timer calls the class's


def plain_messages(on: bool) -> None:
    """Make new messages plain text (the old renderer) or Markdown again: the baseline's switch."""
    from relavium_desktop.ui.chat import message_block

    cls = message_block.MessageBlock
    if not hasattr(cls, "_bench_init"):
        cls._bench_init = cls.__init__  # type: ignore[attr-defined]
    original = cls._bench_init  # type: ignore[attr-defined]

    def init(self: Any, role: str, text: str = "", *, markdown: bool = True, theme: Any = None) -> None:
        original(self, role, text, markdown=markdown and not on, theme=theme)

    cls.__init__ = init  # type: ignore[method-assign]


def stream_only(window: Any, rounds: int, tokens: int, show_worst: bool = False) -> Any:
    """The stream alone, Markdown against plain text, alternating; prints both and their ratio."""
    import asyncio
    import statistics

    probe = LagProbe()
    flushes = FlushTimer()

    async def one(plain: bool) -> dict[str, list[float]]:
        view = window.chat_view
        plain_messages(plain)
        view.new_session()
        await asyncio.sleep(0.3)
        finished = asyncio.Event()

        def done(_outcome: object) -> None:
            finished.set()

        view.turn_finished.connect(done)
        flushes.costs.clear()
        probe.start()
        cpu, wall = time.thread_time(), time.perf_counter()
        view.send("Stream a long answer, please.")
        await finished.wait()
        await asyncio.sleep(0.2)  # what the last flushes deferred (code colouring) runs too
        busy = (time.thread_time() - cpu) / (time.perf_counter() - wall) * 100
        lags = probe.stop()
        view.turn_finished.disconnect(done)
        return {"flush": list(flushes.costs), "lag": lags, "busy": [busy]}

    async def run() -> int:
        view = window.chat_view
        view.ensure_loaded()
        view.set_route("bench/gpt-4o-mini")
        await asyncio.sleep(0.5)  # settle after the first paint
        await one(plain=False)  # warm: the first answer builds the parser and the lexers
        runs: dict[bool, dict[str, list[float]]] = {True: {}, False: {}}
        for _ in range(rounds):
            for plain in (True, False):
                for key, values in (await one(plain)).items():
                    runs[plain].setdefault(key, []).extend(values)
        print(f"platform: {os.environ.get('QT_QPA_PLATFORM') or 'DISPLAY=' + os.environ['DISPLAY']}; "
              f"{tokens} tokens of prose, lists, tables and code fences per answer; {rounds} round(s); "
              f"probe every {PROBE_MS} ms")
        figures = []
        for name, plain in (("markdown", False), ("plain", True)):
            got = runs[plain]
            flush, lag = got["flush"], got["lag"]
            row = (statistics.median(flush), percentile(flush, 0.99), max(flush),
                   percentile(lag, 0.50), percentile(lag, 0.99), statistics.median(got["busy"]))
            figures.append(row)
            print(f"{name:<9} {len(flush):>4} flushes  CPU median {row[0]:5.2f} ms  p99 {row[1]:6.2f} ms  "
                  f"max {row[2]:6.2f} ms   lag p50 {row[3]:6.2f} ms  p99 {row[4]:6.2f} ms   GUI thread busy {row[5]:4.1f}%")
        md, base = figures
        ratios = [md[i] / max(base[i], 0.01) for i in (0, 1, 4)]
        print(f"ratio     markdown/plain: flush CPU median {ratios[0]:.1f}x, p99 {ratios[1]:.1f}x; "
              f"lag p99 {ratios[2]:.1f}x")
        print(f"targets   flush CPU median ≤ 1 ms: {md[0]:.2f}; p99 ≤ 5 ms: {md[1]:.2f}; "
              f"lag p99 ≤ 20 ms: {md[4]:.2f} (plain, same run: {base[4]:.2f})")
        if show_worst:
            for cost, text in flushes.worst:
                print(f"  {cost:6.2f} ms  {text[:90]!r}")
        return 0 if md[0] <= 1 and md[1] <= 5 and md[4] <= 20 else 1

    return run()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="streaming duration (default 5)")
    parser.add_argument("--rate", type=float, default=1000.0, help="tokens per second (default 1000)")
    parser.add_argument("--tool-lines", type=int, default=None,
                        help="lines the tool prints (default 40,000 per second of streaming; 0: the stream alone)")
    parser.add_argument("--rounds", type=int, default=2,
                        help="stream-only: answers per renderer, alternating (default 2)")
    parser.add_argument("--show-worst", action="store_true",
                        help="stream-only: print the costliest flushes (any renderer) and what each appended")
    args = parser.parse_args()
    if not os.environ.get("DISPLAY"):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    tokens = int(args.seconds * args.rate)
    home = tempfile.mkdtemp(prefix="relavium-ui-bench-")
    project = Path(home) / "project"
    project.mkdir()
    os.environ["RELAVIUM_HOME"] = home
    os.environ["RELAVIUM_BENCH_KEY"] = "sk-bench-not-a-real-key-0000000000"
    if args.tool_lines == 0:
        sys.path.insert(0, str(Path(__file__).parent))
        from stream_mix import mix_tokens

        server = PacedServer(tokens, args.rate, mix_tokens(tokens))
    else:
        server = PacedServer(tokens, args.rate)
    Path(home, "providers.yaml").write_text(json.dumps({"providers": {"bench": {
        "kind": "openai", "base_url": server.base_url, "api_key": "env:RELAVIUM_BENCH_KEY", "allow_local": True}}}))

    import asyncio

    import qasync

    from relavium_desktop.ui.qt import QApplication
    from relavium_desktop.ui.shell import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    window = MainWindow()
    window.context.set_project(str(project))
    window.context.set_mode("auto")
    # A shell loop prints roughly 40,000 lines a second; it stops on its own.
    lines = int(args.seconds * 40_000) if args.tool_lines is None else args.tool_lines
    script = TOOL_SCRIPT.format(lines=lines)
    window.context.settings.setValue("chat/policy", json.dumps({"allowedCommands": [shlex.join(["sh", "-c", script])]}))
    window.show()

    probe = LagProbe()

    async def phase(seconds: float) -> list[float]:
        probe.start()
        await asyncio.sleep(seconds)
        return probe.stop()

    async def run() -> int:
        from relavium_desktop.engine.tools.registry import ToolRegistry
        from relavium_desktop.engine.tools.tooldef import ToolCall, ToolDispatchContext
        from relavium_desktop.ui.chat.backend import policy_from

        view = window.chat_view
        view.ensure_loaded()
        view.set_route("bench/gpt-4o-mini")
        await asyncio.sleep(0.5)  # settle after the first paint
        baseline = await phase(2.0)

        registry: ToolRegistry
        registry, _mcp_ids = await view.backend.registry(window.context.project)  # type: ignore[union-attr]
        ctx = ToolDispatchContext(run_id="bench-tool", node_id="bench", granted_tool_ids=frozenset({"run_command"}),
                                  policy=policy_from(window.context.settings), emit=lambda event: view._on_event(event.to_wire()))
        finished = asyncio.Event()
        view.turn_finished.connect(lambda _outcome: finished.set())
        received = [0]
        view.transcript.flushed.connect(lambda n: received.__setitem__(0, received[0] + n))

        probe.start()
        started = time.perf_counter()
        view.send("Stream a long answer, please.")
        tool = asyncio.ensure_future(registry.dispatch(ToolCall("run_command", {"command": "sh", "args": ["-c", script]}), ctx))
        await finished.wait()
        streamed_s = time.perf_counter() - started
        outcome = await tool
        loaded = probe.stop()

        print(f"platform: {os.environ.get('QT_QPA_PLATFORM') or 'DISPLAY=' + os.environ['DISPLAY']}; "
              f"probe every {PROBE_MS} ms")
        print(describe("baseline", baseline))
        print(describe("load", loaded))
        print(f"streamed {tokens} tokens in {streamed_s:.2f} s ({tokens / streamed_s:.0f} tokens/s); "
              f"transcript received {received[0]} characters; tool ok={outcome.ok}{'' if outcome.ok else ' ' + str(outcome.error)} "
              f"({lines} lines printed{', spilled' if outcome.spill else ''})")
        p99 = percentile(loaded, 0.99)
        print(f"p99 under load: {p99:.2f} ms (target ≤ 20 ms); ratio load/baseline p99: "
              f"{p99 / max(percentile(baseline, 0.99), 0.01):.1f}")
        return 0 if p99 <= 20 and outcome.ok else 1

    try:
        with loop:
            code = loop.run_until_complete(stream_only(window, args.rounds, tokens, args.show_worst) if lines == 0 else run())
    finally:
        server.close()
        window.chat_view.close_backend()
        shutil.rmtree(home, ignore_errors=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
