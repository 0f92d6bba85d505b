"""Reading a response body without ever holding an unbounded one.

Bytes are kept in memory up to a ceiling; past it, everything read so far
and the rest of the stream go to a run-scoped spill file (the output
store's ``open_stream``), written from a worker thread in batches.  A
secret that was attached to the request is scrubbed from what is kept and
from what is spilled, so an endpoint that echoes headers back cannot carry
it into the engine.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from relavium_desktop.engine.errors import ToolFailedError
from relavium_desktop.host.output_store import FileOutputStore

_WRITE_BATCH = 1 << 20


class Scrubber:
    """Replace every occurrence of one secret in a byte stream, across chunk edges."""

    def __init__(self, secret: bytes | None, mask: bytes) -> None:
        self.secret = secret or None
        self.mask = mask
        self._carry = b""

    def feed(self, chunk: bytes) -> bytes:
        if self.secret is None:
            return chunk
        buf = (self._carry + chunk).replace(self.secret, self.mask)
        keep = len(self.secret) - 1
        if keep <= 0:
            self._carry = b""
            return buf
        self._carry = buf[-keep:]
        return buf[:-keep]

    def flush(self) -> bytes:
        out, self._carry = self._carry, b""
        return out


@dataclass(slots=True)
class BodyResult:
    data: bytes  # what is held in memory: the whole body, or a preview when spilled
    total: int  # bytes received
    spill_path: Path | None = None
    spill_bytes: int = 0


async def read_body(
    chunks: AsyncIterator[bytes],
    *,
    store: FileOutputStore | None,
    run_id: str,
    label: str,
    memory_ceiling: int,
    max_bytes: int,
    preview_bytes: int,
    scrubber: Scrubber,
    force_spill: bool = False,
) -> BodyResult:
    held = bytearray()
    total = 0
    spill: tuple[Path, BinaryIO] | None = None
    pending = bytearray()
    written = 0

    async def open_spill() -> tuple[Path, BinaryIO]:
        if store is None:
            raise ToolFailedError(
                f"{label}: the response is larger than {memory_ceiling:,} bytes and this host "
                "has no output store to spill it to"
            )
        return await asyncio.to_thread(store.open_stream, run_id, label)

    async def flush_pending(fh: BinaryIO) -> None:
        nonlocal written
        if pending:
            data = bytes(pending)
            pending.clear()
            await asyncio.to_thread(fh.write, data)
            written += len(data)

    try:
        async for raw in chunks:
            total += len(raw)
            if total > max_bytes:
                raise ToolFailedError(
                    f"{label}: the response body is larger than the {max_bytes:,}-byte limit; "
                    "the download was stopped"
                )
            clean = scrubber.feed(raw)
            if spill is None:
                held.extend(clean)
                if len(held) > memory_ceiling:
                    spill = await open_spill()
                    pending.extend(held)
                    del held[preview_bytes:]
            else:
                if len(held) < preview_bytes:
                    held.extend(clean[: preview_bytes - len(held)])
                pending.extend(clean)
            if spill is not None and len(pending) >= _WRITE_BATCH:
                await flush_pending(spill[1])
        tail = scrubber.flush()
        if spill is None and force_spill and (held or tail):
            spill = await open_spill()
            pending.extend(held)
            del held[preview_bytes:]
        if spill is None:
            held.extend(tail)
            return BodyResult(bytes(held), total)
        pending.extend(tail)
        if len(held) < preview_bytes:
            held.extend(tail[: preview_bytes - len(held)])
        await flush_pending(spill[1])
        return BodyResult(bytes(held), total, spill[0], written)
    except BaseException:
        # A stopped download leaves no partial file behind: nothing will ever name it.
        if spill is not None:
            await asyncio.to_thread(spill[1].close)
            await asyncio.to_thread(spill[0].unlink, missing_ok=True)
            spill = None
        raise
    finally:
        if spill is not None:
            await asyncio.to_thread(spill[1].close)
