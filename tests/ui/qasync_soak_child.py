"""Child process for the qasync soak test (a crash must not take pytest down).

Exercises what broke with PySide6 6.12.0 on CPython 3.11: many Python
callbacks driven by Qt (asyncio.sleep(0) hops, timer slots) and sustained
subprocess pipe reads, all on one qasync loop.  Prints one JSON line.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import qasync
from PySide6.QtCore import QCoreApplication, QTimer

CALLBACKS = int(sys.argv[1]) if len(sys.argv) > 1 else 50_000
PIPE_BYTES = int(sys.argv[2]) if len(sys.argv) > 2 else 200 * 1024 * 1024


async def hops(n: int) -> int:
    for _ in range(n):
        await asyncio.sleep(0)
    return n


async def timer_slots(n: int) -> int:
    fired = 0
    done = asyncio.get_running_loop().create_future()

    def slot() -> None:
        nonlocal fired
        fired += 1
        if fired >= n:
            timer.stop()
            if not done.done():
                done.set_result(None)

    timer = QTimer()
    timer.setInterval(0)
    timer.timeout.connect(slot)
    timer.start()
    await done
    return fired


async def pipe_reads(nbytes: int) -> tuple[int, str]:
    proc = await asyncio.create_subprocess_exec(
        "head", "-c", str(nbytes), "/dev/zero", stdout=asyncio.subprocess.PIPE
    )
    assert proc.stdout is not None
    digest = hashlib.sha256()
    total = 0
    while chunk := await proc.stdout.read(65536):
        total += len(chunk)
        digest.update(chunk)
    await proc.wait()
    return total, digest.hexdigest()


async def main() -> dict[str, object]:
    n_hops, n_slots, (n_bytes, sha) = await asyncio.gather(
        hops(CALLBACKS), timer_slots(CALLBACKS // 5), pipe_reads(PIPE_BYTES)
    )
    return {"hops": n_hops, "slots": n_slots, "bytes": n_bytes, "sha256": sha}


if __name__ == "__main__":
    app = QCoreApplication(sys.argv[:1])
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        result = loop.run_until_complete(main())
    print(json.dumps(result))
