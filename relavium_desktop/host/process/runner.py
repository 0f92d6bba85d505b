"""Run one argv shell-free with streamed, bounded capture, a timeout and cancellation.

``shell=False`` always: the argv goes to ``execve`` as is, so ``;``, ``|``,
``$()`` and ``>`` are plain argument bytes.  stdin is ``/dev/null`` unless the
caller supplies bytes (git plumbing), so nothing can wait on a prompt.

Outcomes:

* normal exit: ``ProcessResult`` with the exit code (negative: killed by that
  signal), both streams' model-facing text, the duration and spill info;
* timeout: the tree is killed and :class:`~relavium_desktop.engine.errors.ToolFailedError`
  says "timed out after N ms" (a result with partial output would read like a
  finished command, so the timeout is an error the model is told about);
* cancellation: the tree is killed and ``CancelledError`` propagates, which
  the registry reports as ``cancelled``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import psutil

from relavium_desktop.engine.errors import ToolFailedError, ToolUnavailableError
from relavium_desktop.engine.host import SpillInfo
from relavium_desktop.engine.spawns import SPAWN_OBSERVER
from relavium_desktop.host.process.capture import SpillOpener, StreamCapture
from relavium_desktop.host.process.guard import die_with_parent, process_guard
from relavium_desktop.host.process.sandbox import SandboxSpec, SandboxUnavailable, explain, preexec_for
from relavium_desktop.host.process.tree import group_kwargs, kill_leftovers, kill_tree

# How long to keep reading after the leader exited and its group was killed;
# only a descendant that escaped the group can hold a pipe open that long.
PIPE_GRACE_S = 2.0
REAP_WAIT_S = 5.0
STDOUT, STDERR = 1, 2
PIPE_SIZE = 1024 * 1024

if sys.platform != "win32":
    import fcntl


@dataclass(frozen=True, slots=True)
class ProcessResult:
    exit_code: int
    stdout: str
    stderr: str
    duration_ms: int
    stdout_spill: SpillInfo | None = None
    stderr_spill: SpillInfo | None = None
    # Exact stdout bytes when nothing was spilled; never part of a tool result.
    stdout_raw: bytes | None = None
    # One line naming the sandbox rule that likely stopped a failed process (sandbox.explain).
    sandbox_note: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "exitCode": self.exit_code,
            "stdout": self.stdout,
            "stderr": self.stderr,
            "durationMs": self.duration_ms,
        }
        if self.stdout_spill is not None:
            out["stdoutSpill"] = self.stdout_spill.to_json()
        if self.stderr_spill is not None:
            out["stderrSpill"] = self.stderr_spill.to_json()
        if self.sandbox_note is not None:
            out["sandbox"] = self.sandbox_note
        return out


def _widen_pipe(pipe: asyncio.BaseTransport | None) -> None:
    """Grow a Linux pipe to PIPE_SIZE and read it in matching chunks.

    A default 64 KiB pipe wakes the loop once per 64 KiB; under qasync each
    wake-up is a Qt socket-notifier round trip, so a wider pipe (the
    unprivileged maximum is 1 MiB) cuts the per-byte loop cost several-fold.
    Best effort: elsewhere, or past a lowered limit, the pipe stays as it is.
    A fast child (``true``) may have closed its end and the transport already
    read EOF and closed the file by the time the protocol connects: nothing
    is left to widen then.
    """
    if pipe is None or pipe.is_closing() or not hasattr(fcntl, "F_SETPIPE_SZ"):
        return
    file = pipe.get_extra_info("pipe")
    if file is None:
        return
    try:
        fd = file.fileno()
    except (ValueError, OSError):  # "I/O operation on closed file"
        return
    for size in (PIPE_SIZE, PIPE_SIZE // 4):
        try:
            fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, size)
        except OSError:
            continue
        if hasattr(pipe, "max_size"):
            pipe.max_size = size  # the transport's per-wake-up read size
        return


class _Protocol(asyncio.SubprocessProtocol):
    def __init__(self, captures: dict[int, StreamCapture], stdin_data: bytes | None) -> None:
        loop = asyncio.get_running_loop()
        self.captures = captures
        self.exited: asyncio.Future[None] = loop.create_future()
        self.pipes_closed: asyncio.Future[None] = loop.create_future()
        self._open = {STDOUT, STDERR}
        self._stdin_data = stdin_data
        self.transport: asyncio.SubprocessTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.SubprocessTransport)
        self.transport = transport
        for fd in (STDOUT, STDERR):
            _widen_pipe(transport.get_pipe_transport(fd))
        if self._stdin_data is not None:
            stdin = transport.get_pipe_transport(0)
            if isinstance(stdin, asyncio.WriteTransport):
                stdin.write(self._stdin_data)
                stdin.write_eof()

    def pause(self, fd: int, paused: bool) -> None:
        if self.transport is None:
            return
        pipe = self.transport.get_pipe_transport(fd)
        if isinstance(pipe, asyncio.ReadTransport) and not pipe.is_closing():
            if paused:
                pipe.pause_reading()
            else:
                pipe.resume_reading()

    def pipe_data_received(self, fd: int, data: bytes | bytearray) -> None:
        self.captures[fd].feed(bytes(data))

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        self._open.discard(fd)
        if not self._open and not self.pipes_closed.done():
            self.pipes_closed.set_result(None)

    def process_exited(self) -> None:
        if not self.exited.done():
            self.exited.set_result(None)


async def run_process(
    argv: Sequence[str],
    *,
    executable: str,
    env: Mapping[str, str],
    cwd: str,
    timeout_ms: int,
    ceiling: int,
    open_spill: dict[int, SpillOpener],
    label: str,
    stdin_data: bytes | None = None,
    sandbox: SandboxSpec | None = None,
) -> ProcessResult:
    """Spawn ``argv`` (``argv[0]`` as typed, ``executable`` the resolved file).

    ``sandbox`` confines the child before exec (sandbox.py); a mode the kernel cannot
    enforce, or a sandbox the child cannot apply, fails the spawn -- never runs unconfined.
    When a sandboxed process fails, ``ProcessResult.sandbox_note`` says which rule
    likely stopped it.
    """
    loop = asyncio.get_running_loop()
    captures: dict[int, StreamCapture] = {}
    protocol: _Protocol | None = None

    def make_protocol() -> _Protocol:
        nonlocal protocol
        protocol = _Protocol(captures, stdin_data)
        for fd in (STDOUT, STDERR):
            captures[fd] = StreamCapture(ceiling, open_spill[fd], functools.partial(protocol.pause, fd))
        return protocol

    # No orphans: the child dies with this process (parent-death signal), and the
    # watcher ends its group and marked descendants if this process is killed.
    guard = process_guard()
    guard.start()
    preexec = die_with_parent()
    try:
        confinement = preexec_for(sandbox, then=preexec)
    except SandboxUnavailable as exc:
        # The capability is absent here (tool_unavailable), not a failure of the command; never run unconfined.
        raise ToolUnavailableError(f"{label}: {exc}") from None
    except OSError as exc:
        raise ToolFailedError(f"{label}: the sandbox could not be prepared ({exc.strerror or exc})") from None
    if confinement is not None:
        preexec = confinement
    spawn_kwargs: dict[str, Any] = {**group_kwargs(), **({"preexec_fn": preexec} if preexec else {})}
    started = time.monotonic()
    spawn = asyncio.ensure_future(loop.subprocess_exec(
            make_protocol,
            *argv,
            executable=executable,
            stdin=subprocess.PIPE if stdin_data is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**env, **guard.env()},
            cwd=cwd,
            close_fds=True,
            **spawn_kwargs,
        ))
    try:
        # Shielded: a cancel that lands while asyncio still connects the pipes (the child may
        # already run) would otherwise make asyncio kill only the leader and then wait for the
        # pipes its background children hold -- leaving those children running.
        transport, _ = await asyncio.shield(spawn)
    except asyncio.CancelledError:
        await _end_cancelled_spawn(spawn)
        raise
    except FileNotFoundError:
        raise ToolFailedError(f"{label}: the program could not be started (not found)") from None
    except PermissionError:
        note = explain(PermissionError("permission denied"), executable, sandbox)
        raise ToolFailedError(
            f"{label}: the program could not be started (permission denied)" + (f"; {note}" if note else "")
        ) from None
    except subprocess.SubprocessError:
        # The preexec_fn raised in the child: the sandbox could not be applied, so nothing ran.
        raise ToolFailedError(f"{label}: the sandbox could not be applied; the program was not started") from None
    finally:
        if confinement is not None and spawn.done():
            confinement.close()
    assert protocol is not None
    pid = transport.get_pid()
    guard.track(pid)  # start_new_session: the pid is the group id
    _tell_observer(pid)
    finished = False
    try:
        try:
            async with asyncio.timeout(timeout_ms / 1000):
                await protocol.exited
        except TimeoutError:
            raise ToolFailedError(
                f"{label}: timed out after {timeout_ms} ms; the process and its children were killed"
            ) from None
        finished = True
        kill_leftovers(pid)
        await asyncio.wait({protocol.pipes_closed}, timeout=PIPE_GRACE_S)
        for capture in captures.values():
            await capture.finish()
        returncode = transport.get_returncode()
        stderr = captures[STDERR].text("stderr")
        return ProcessResult(
            exit_code=returncode if returncode is not None else -1,
            stdout=captures[STDOUT].text("stdout"),
            stderr=stderr,
            duration_ms=int((time.monotonic() - started) * 1000),
            stdout_spill=captures[STDOUT].spill_info(),
            stderr_spill=captures[STDERR].spill_info(),
            stdout_raw=captures[STDOUT].raw(),
            sandbox_note=explain(returncode, stderr[-4096:], sandbox) if returncode else None,
        )
    finally:
        if not finished:
            kill_tree(pid)
            for capture in captures.values():
                capture.abort()
        transport.close()
        if not protocol.exited.done():
            # Let the child watcher reap the killed leader before we return.
            await asyncio.wait({protocol.exited}, timeout=REAP_WAIT_S)
        guard.untrack(pid)


async def _end_cancelled_spawn(spawn: asyncio.Future[tuple[asyncio.SubprocessTransport, Any]]) -> None:
    """The spawn was cancelled mid-way: once it has a process, end its whole tree."""
    try:
        transport, _ = await asyncio.shield(spawn)
    except BaseException:  # noqa: BLE001 - it never started (or failed to): nothing to end
        return
    pid = transport.get_pid()
    kill_tree(pid)
    transport.close()


def _tell_observer(pid: int) -> None:
    """Report the spawn to the workflow step it belongs to (if any); never fails the spawn."""
    observer = SPAWN_OBSERVER.get()
    if observer is None:
        return
    with contextlib.suppress(Exception):
        observer(pid, psutil.Process(pid).create_time())
