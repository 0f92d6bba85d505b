"""Byte-bounded capture of one output stream, spilling the full stream as it arrives.

Up to the model-facing ceiling the bytes stay in memory.  The moment a stream
passes the ceiling, a spill file is opened in the run's output store, what was
buffered is written to it, and from then on every chunk goes to the file while
memory keeps only a head (the first half of the ceiling) and a rolling tail
(the last half).  Memory therefore stays near ``ceiling + one read + the
writer's queue`` however much a command prints.

File writes happen on a worker thread so a slow disk never stalls the event
loop (the Qt loop, in the app).  When the writer falls behind by more than
``HIGH_WATER`` bytes the pipe is paused, and it resumes once the writer is back
under ``LOW_WATER``: the child then simply blocks on a full pipe, which is the
back-pressure a pipe is for.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import queue
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from relavium_desktop.engine.host import SpillInfo

HIGH_WATER = 4 * 1024 * 1024
LOW_WATER = 1024 * 1024

SpillOpener = Callable[[], tuple[Path, BinaryIO]]
PauseControl = Callable[[bool], None]  # True: pause reading, False: resume


class SpillWriter:
    """Appends chunks to an open file on a worker thread, with back-pressure."""

    def __init__(self, path: Path, fh: BinaryIO, pause: PauseControl) -> None:
        self.path = path
        self._fh = fh
        self._pause = pause
        self._loop = asyncio.get_running_loop()
        self._queue: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._pending = 0
        self._wake_requested = False
        self._reading_paused = False  # touched on the loop thread only
        self._done: asyncio.Future[None] = self._loop.create_future()
        self.written = 0
        self.error: OSError | None = None
        self._thread = threading.Thread(target=self._run, name="relavium-spill", daemon=True)
        self._thread.start()

    # -- loop side ---------------------------------------------------------

    def write(self, chunk: bytes) -> None:
        with self._lock:
            self._pending += len(chunk)
            pending = self._pending
        self._queue.put(chunk)
        if not self._reading_paused and pending >= HIGH_WATER:
            self._reading_paused = True
            with self._lock:
                self._wake_requested = True
            self._pause(True)

    def _rebalance(self) -> None:
        if not self._reading_paused:
            return
        with self._lock:
            drained = self._pending <= LOW_WATER
            if not drained:
                self._wake_requested = True
        if drained:
            self._reading_paused = False
            self._pause(False)

    async def finish(self) -> None:
        """Flush everything queued, close the file and wait for the worker."""
        self._queue.put(None)
        await asyncio.shield(self._done)

    def abort(self) -> None:
        """Stop without waiting (cancellation): the worker closes the file itself."""
        self._queue.put(None)

    # -- worker thread -----------------------------------------------------

    def _run(self) -> None:
        try:
            while True:
                chunk = self._queue.get()
                if chunk is None:
                    break
                if self.error is None:
                    try:
                        self._fh.write(chunk)
                        self.written += len(chunk)
                    except OSError as exc:
                        self.error = exc
                with self._lock:
                    self._pending -= len(chunk)
                    wake = self._wake_requested and self._pending <= LOW_WATER
                    if wake:
                        self._wake_requested = False
                if wake:
                    self._call_loop(self._rebalance)
            try:
                self._fh.close()
            except OSError as exc:
                self.error = self.error or exc
        finally:
            self._call_loop(self._set_done)

    def _set_done(self) -> None:
        if not self._done.done():
            self._done.set_result(None)

    def _call_loop(self, fn: Callable[[], None]) -> None:
        # RuntimeError: the loop is gone (cancelled at shutdown); nobody is waiting.
        with contextlib.suppress(RuntimeError):
            self._loop.call_soon_threadsafe(fn)


class StreamCapture:
    """One stream's head, tail and (past the ceiling) spill file."""

    def __init__(self, ceiling: int, open_spill: SpillOpener, pause: PauseControl) -> None:
        self.ceiling = max(ceiling, 2)
        self.head_size = self.ceiling // 2
        self.tail_size = self.ceiling - self.head_size
        self._open_spill = open_spill
        self._pause = pause
        self._buf = bytearray()  # everything, until the ceiling; then the head
        self._tail: deque[bytes] = deque()
        self._tail_len = 0
        self.total = 0
        self.spill: SpillWriter | None = None
        self.error: Exception | None = None

    def feed(self, data: bytes) -> None:
        if not data:
            return
        self.total += len(data)
        if self.error is not None:
            return
        if self.spill is None:
            if len(self._buf) + len(data) <= self.ceiling:
                self._buf += data
                return
            try:
                path, fh = self._open_spill()
            except (OSError, ValueError) as exc:
                # Reported when the call finishes; the pipe keeps draining meanwhile.
                self.error = exc
                return
            self.spill = SpillWriter(path, fh, self._pause)
            buffered = bytes(self._buf)
            self._buf = bytearray()
            if buffered:
                self.spill.write(buffered)
                self._keep(buffered)
        self.spill.write(data)
        self._keep(data)

    def _keep(self, data: bytes) -> None:
        """Past the ceiling: fill the head first, the rest rolls through the tail."""
        room = self.head_size - len(self._buf)
        if room > 0:
            self._buf += data[:room]
            data = data[room:]
        self._push_tail(data)

    def _push_tail(self, data: bytes) -> None:
        if not data:
            return
        self._tail.append(data)
        self._tail_len += len(data)
        while self._tail and self._tail_len - len(self._tail[0]) >= self.tail_size:
            self._tail_len -= len(self._tail.popleft())

    @property
    def spilled(self) -> bool:
        return self.spill is not None

    def raw(self) -> bytes | None:
        """Every byte, when the stream stayed under the ceiling (git plumbing needs them)."""
        return None if self.spill is not None else bytes(self._buf)

    def text(self, label: str) -> str:
        """The model-facing text: everything, or head + marker + tail."""
        if self.spill is None:
            return bytes(self._buf).decode("utf-8", "replace")
        head_bytes = bytes(self._buf)
        tail_bytes = b"".join(self._tail)[-self.tail_size :]
        omitted = self.total - len(self._buf) - len(tail_bytes)
        # The ends come from the spill file, which is masked by now: cut from
        # the raw stream, a tail could start mid-key where no mask sees it.
        masked = _ends_of(self.spill.path, len(head_bytes), len(tail_bytes)) if self.spill.error is None else None
        if masked is not None:
            head_bytes, tail_bytes = masked
        head = _decode_head(head_bytes)
        tail = _decode_tail(tail_bytes)
        marker = (
            f"\n[... {omitted:,} bytes of {label} omitted; all {self.total:,} bytes are in "
            f"the {label} spill file ...]\n"
        )
        return head + marker + tail

    def spill_info(self) -> SpillInfo | None:
        if self.spill is None:
            return None
        return SpillInfo(str(self.spill.path), self.spill.written)

    async def finish(self) -> None:
        if self.error is not None:
            raise self.error
        if self.spill is not None:
            await self.spill.finish()
            if self.spill.error is not None:
                raise self.spill.error

    def abort(self) -> None:
        if self.spill is not None:
            self.spill.abort()


def _ends_of(path: Path, head: int, tail: int) -> tuple[bytes, bytes] | None:
    """The first ``head`` and last ``tail`` bytes of the file at ``path`` (never overlapping); None if unreadable."""
    try:
        with open(path, "rb") as fh:
            first = fh.read(head)
            size = fh.seek(0, os.SEEK_END)
            fh.seek(max(len(first), size - tail))
            return first, fh.read()
    except OSError:
        return None


def _decode_head(data: bytes) -> str:
    # An incremental decoder holds back a multi-byte character cut at the end.
    return codecs.getincrementaldecoder("utf-8")("replace").decode(data, final=False)


def _decode_tail(data: bytes) -> str:
    # Skip continuation bytes of a character that started before the tail.
    start = 0
    while start < min(3, len(data)) and 0x80 <= data[start] <= 0xBF:
        start += 1
    return data[start:].decode("utf-8", "replace")
