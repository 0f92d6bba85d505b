"""A 500-turn chat with a tool card per turn: open, scroll, stream into it, memory.

    .venv/bin/python bench/transcript_load.py [--turns 500] [--repeat 7] [--rate 1000] [--seconds 3]

A real SQLite session store under a throwaway ``$RELAVIUM_HOME`` is filled
with TURNS turns (a question, an answer that called read_file, the stored
tool result, a Markdown answer with a code block every fifth turn) and
opened in the real window's chat view.  Each figure is printed next to a
baseline measured in the same run:

* open + paint: ``open_session`` and a synchronous repaint, median of
  REPEAT (baseline: a one-turn session);
* scroll: event-loop lag p99 (a 5 ms PreciseTimer probe) while the
  transcript scrolls from the bottom to the top, 120 px per 16 ms frame,
  building earlier turns as they come into view (baseline: idle);
* streaming: lag p99 while a local server streams RATE tokens/s into that
  session (baseline: the same stream into a new, empty chat);
* RSS after opening it (baseline: the window idle before).

Targets (issue 14): open + paint ≤ 300 ms, scroll p99 ≤ 16 ms, streaming
p99 ≤ 20 ms, RSS ≤ 250 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from ui_latency import PROBE_MS, LagProbe, PacedServer, percentile

ANSWER = """The pricing module applies **{n}%** off to annual plans:

| plan | monthly | annual |
|------|---------|--------|
| pro  | 12      | 120    |

See `src/pricing.py` for the rule.
"""
CODE = """

```python
def annual(price: int) -> int:
    return price * 10  # turn {n}
```
"""


def fill(store, turns: int) -> str:
    from relavium_desktop.engine.llm.messages import Message, TextPart, ToolCallPart, ToolResultPart

    info = store.create(title=f"{turns} turns", agent_id="chat", mode="auto")
    content = "PRICE = 100\n" * 8
    for n in range(turns):
        store.append_message(info.id, Message.user(f"What does the discount rule do in case {n}?"))
        call = ToolCallPart(f"call_{n}", "read_file", {"path": "src/pricing.py"})
        store.append_message(info.id, Message("assistant", (TextPart("Let me look."), call)))
        result = json.dumps({"path": "src/pricing.py", "content": content, "mimeType": "text/x-python",
                             "sizeBytes": len(content), "lastModified": "2026-11-30T12:00:00Z"})
        store.append_message(info.id, Message("tool", (ToolResultPart(call.call_id, "read_file", result),)))
        answer = ANSWER.format(n=n % 30) + (CODE.format(n=n) if n % 5 == 0 else "")
        store.append_message(info.id, Message("assistant", (TextPart(answer),)))
    return info.id


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--rate", type=float, default=1000.0)
    parser.add_argument("--seconds", type=float, default=3.0, help="streaming duration per phase")
    args = parser.parse_args()
    if not os.environ.get("DISPLAY"):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    home = tempfile.mkdtemp(prefix="relavium-transcript-bench-")
    os.environ["RELAVIUM_HOME"] = home
    os.environ["RELAVIUM_BENCH_KEY"] = "sk-bench-not-a-real-key-0000000000"
    tokens = int(args.seconds * args.rate)
    server = PacedServer(tokens, args.rate)
    Path(home, "providers.yaml").write_text(json.dumps({"providers": {"bench": {
        "kind": "openai", "base_url": server.base_url, "api_key": "env:RELAVIUM_BENCH_KEY", "allow_local": True}}}))

    import asyncio

    import qasync

    from relavium_desktop.application.stores import session_store
    from relavium_desktop.ui.qt import QApplication
    from relavium_desktop.ui.shell import MainWindow

    store = session_store(Path(home))
    big = fill(store, args.turns)
    small = fill(store, 1)
    store_close = getattr(store, "close", None)
    if callable(store_close):
        store_close()

    app = QApplication.instance() or QApplication(sys.argv[:1])
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    window = MainWindow()
    window.resize(1440, 900)
    window.show()

    probe = LagProbe()
    start_probe, stop_probe = probe.start, probe.stop

    async def run() -> int:
        view = window.chat_view
        view.ensure_loaded()
        view.set_route("bench/gpt-4o-mini")
        await asyncio.sleep(0.5)  # settle after the first paint
        idle_rss = rss_mb()

        def open_ms(session_id: str) -> float:
            view.new_session()
            app.processEvents()
            started = time.perf_counter()
            view.open_session(session_id)
            app.processEvents()  # layout
            window.repaint()  # a synchronous paint of what is on screen
            return (time.perf_counter() - started) * 1000

        small_ms = statistics.median(open_ms(small) for _ in range(args.repeat))
        big_ms = statistics.median(open_ms(big) for _ in range(args.repeat))
        await asyncio.sleep(0.3)
        opened_rss = rss_mb()
        transcript = view.transcript
        built_on_open = len(transcript.blocks)

        start_probe()
        await asyncio.sleep(1.5)
        idle = stop_probe()

        bar = transcript.verticalScrollBar()
        start_probe()
        frames = 0
        deadline = time.monotonic() + 30
        while (bar.value() > 0 or transcript.unbuilt) and time.monotonic() < deadline:
            bar.setValue(max(0, bar.value() - 120))
            frames += 1
            await asyncio.sleep(0.016)
        scrolled = stop_probe()
        await asyncio.sleep(1.0)  # far pages are let go while and after scrolling
        scrolled_rss = rss_mb()
        held_after_scroll = len(transcript.blocks)
        released_pages = transcript.released

        finished = asyncio.Event()
        view.turn_finished.connect(lambda _outcome: finished.set())

        async def stream_into(session_id: str | None) -> list[float]:
            if session_id is None:
                view.new_session()
            else:
                view.new_session()
                view.open_session(session_id)
            await asyncio.sleep(0.3)
            finished.clear()
            start_probe()
            view.send("Stream a long answer, please.")
            await finished.wait()
            return stop_probe()

        stream_empty = await stream_into(None)
        stream_big = await stream_into(big)

        def line(name: str, value: str, base: str, ratio: float, target: str) -> None:
            print(f"{name:<22} {value:>12}   baseline {base:>12}   ratio {ratio:5.1f}   target {target}")

        print(f"platform: {os.environ.get('QT_QPA_PLATFORM') or 'DISPLAY=' + os.environ['DISPLAY']}; "
              f"{args.turns} turns (each a question, a read_file card, an answer); probe every {PROBE_MS} ms")
        line("open + paint (median)", f"{big_ms:.1f} ms", f"{small_ms:.1f} ms", big_ms / max(small_ms, 0.01),
             "≤ 300 ms")
        p_idle, p_scroll = percentile(idle, 0.99), percentile(scrolled, 0.99)
        line("scroll lag p99", f"{p_scroll:.2f} ms", f"{p_idle:.2f} ms", p_scroll / max(p_idle, 0.01), "≤ 16 ms")
        p_empty, p_big = percentile(stream_empty, 0.99), percentile(stream_big, 0.99)
        line(f"stream {args.rate:.0f} tok/s p99", f"{p_big:.2f} ms", f"{p_empty:.2f} ms", p_big / max(p_empty, 0.01),
             "≤ 20 ms")
        line("RSS after opening", f"{opened_rss:.0f} MB", f"{idle_rss:.0f} MB", opened_rss / idle_rss, "≤ 250 MB")
        print(f"blocks held: {built_on_open} on open; {held_after_scroll} of {4 * args.turns} a second after "
              f"scrolling to the top in {frames} frames ({released_pages} pages released), "
              f"RSS then {scrolled_rss:.0f} MB; scroll max lag {max(scrolled):.1f} ms")
        ok = big_ms <= 300 and p_scroll <= 16 and p_big <= 20 and opened_rss <= 250
        return 0 if ok else 1

    try:
        with loop:
            code = loop.run_until_complete(run())
    finally:
        server.close()
        window.chat_view.close_backend()
        shutil.rmtree(home, ignore_errors=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
