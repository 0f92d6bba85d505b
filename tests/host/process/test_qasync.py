"""The same spawn path under the app's loop: qasync on a Qt application."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import qasync
from PySide6.QtWidgets import QApplication

from relavium_desktop.engine.host import SpawnOptions
from relavium_desktop.host.process import ProcessHost
from tests.host.process.conftest import wait_for_files, wait_until_gone

T = TypeVar("T")


def run_in_qasync(coro_fn: Callable[[], Awaitable[T]]) -> T:
    app = QApplication.instance() or QApplication([])
    loop = qasync.QEventLoop(app)
    try:
        asyncio.set_event_loop(loop)
        return loop.run_until_complete(coro_fn())
    finally:
        loop.close()
        asyncio.set_event_loop(None)


def test_streamed_spill_and_cancel_under_qasync(host: ProcessHost, workspace: Path) -> None:
    total = 3_000_000

    async def scenario() -> tuple[dict, list[int]]:
        result = await host.spawn(
            "sh", ["-c", f"yes qasync | head -c {total}"], {}, SpawnOptions(run_id="q1", capture_ceiling=2048)
        )
        task = asyncio.ensure_future(
            host.spawn("sh", ["-c", "sleep 300 & echo $! > bg.pid; echo $$ > leader.pid; wait"], {},
                       SpawnOptions(run_id="q1"))
        )
        files = [workspace / "leader.pid", workspace / "bg.pid"]
        await wait_for_files(*files)
        pids = [int(f.read_text()) for f in files]
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
        else:
            raise AssertionError("the cancelled spawn returned normally")
        return result, await wait_until_gone(pids)

    result, survivors = run_in_qasync(scenario)
    data = Path(result["stdoutSpill"]["path"]).read_bytes()
    assert hashlib.sha256(data).digest() == hashlib.sha256((b"qasync\n" * total)[:total]).digest()
    assert survivors == []
