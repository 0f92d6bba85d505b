"""The stdio transport: a user-configured MCP server as a shell-free child process.

The SDK's own stdio client merges the app's ``HOME``/``PATH``/``USER``/
``SHELL``... into the child's environment; here the child gets exactly what a
``run_command`` child gets -- the process host's built base environment plus
the entry's declared variables, after the same refusal predicate -- and the
command is found only on the host's own search path.  The child leads its
own process group; closing the transport (normally, on timeout or on
cancellation) first notes every descendant of the server -- including one
that left the group with ``setsid`` -- then closes stdin, gives the server a
moment to exit, and kills the whole tree with the process host's
``kill_tree`` plus the descendants noted before the server could exit and
orphan them (as ``run_command``'s kill walks the tree before the leader dies).

A line that is not a JSON-RPC message (or one over :data:`MAX_LINE_BYTES`)
means the stream can no longer be trusted to pair answers with requests: the
reader records why in the connection's :class:`StdioFault` and ends the read
stream, so every pending request fails at once (the SDK's "connection
closed") instead of waiting for its timeout, and the host reports the fault.

stderr goes to ``/dev/null``: a server's diagnostics can echo its arguments
and environment, and nothing reads them here.

The server runs in the OS sandbox (host/process/sandbox.py) at the mode its
entry resolves to (strict for a workflow's servers, network for the user's own
mcp.yaml ones): it may write its working folder and a private temp folder made
for it (``TMPDIR``; removed when it stops), and read its own program's folder
(``program_roots``: the script's package or project folder).  anyio takes no ``preexec_fn``, so
the ruleset is built here and enforced by the small launcher that then
``exec``s the server (sandbox_exec.py).  A mode the kernel cannot enforce fails
the start; the server never runs unconfined unless its mode is ``off``.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import anyio.abc
import mcp_types as types
import psutil
from mcp.shared.message import SessionMessage

from relavium_desktop.engine.errors import ToolFailedError
from relavium_desktop.host.process.environment import base_environment, child_environment
from relavium_desktop.host.process.executables import resolve_executable
from relavium_desktop.host.process.guard import process_guard
from relavium_desktop.host.process.sandbox import (
    SandboxMode,
    SandboxUnavailable,
    build_spec,
    launcher_argv,
    preexec_for,
    program_roots,
    user_server_roots,
)
from relavium_desktop.host.process.tree import group_kwargs, kill_tree

EXIT_GRACE_S = 0.5  # after stdin closes, before the tree is killed
REAP_WAIT_S = 2.0
MAX_LINE_BYTES = 16 * 1024 * 1024  # one JSON-RPC message; a longer line ends the connection


@dataclass(frozen=True, slots=True)
class StdioLaunch:
    """What to run, resolved and checked before anything is spawned."""

    executable: str
    args: tuple[str, ...]
    env: dict[str, str] = field(repr=False)
    cwd: str


def prepare_launch(
    command: str, args: Sequence[str], declared_env: dict[str, str], cwd: str, search_path: Sequence[str]
) -> StdioLaunch:
    """Apply the env refusal predicate and the executable lookup (raises ToolError)."""
    env = child_environment(base_environment(search_path), declared_env, tool_id="mcp_call")
    return StdioLaunch(resolve_executable(command, search_path, cwd), tuple(args), env, cwd)


@dataclass(slots=True)
class StdioFault:
    """Why a stdio server's stream was ended by the reader (None while it is healthy)."""

    reason: str | None = None


def _descendants(pid: int) -> list[psutil.Process]:
    try:
        found: list[psutil.Process] = psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []
    return found


def _kill_noted(processes: list[psutil.Process]) -> None:
    for proc in processes:
        # psutil compares the create time, so a pid reused since it was noted is never hit.
        with contextlib.suppress(psutil.Error):
            proc.kill()


async def _stop(process: anyio.abc.Process) -> None:
    # Noted while the server still runs: once it exits, a child it moved to its own session is
    # re-parented and no tree walk from the server's pid finds it again.
    noted = _descendants(process.pid)
    with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        if process.stdin is not None:
            await process.stdin.aclose()
    with anyio.move_on_after(EXIT_GRACE_S):
        await process.wait()
    # Even a leader that exited may have left children in its group.
    kill_tree(process.pid)
    _kill_noted(noted)
    with anyio.move_on_after(REAP_WAIT_S):
        await process.wait()
    await process.aclose()


async def _open_sandboxed(
    launch: StdioLaunch, env: dict[str, str], mode: SandboxMode, user_server: bool = False
) -> anyio.abc.Process:
    """Start the server (confined unless ``mode`` is off); raises ToolFailedError when it cannot be confined.

    ``user_server``: from the user's own mcp.yaml, so it may also read the home folder (credential
    locations excepted) and write its package manager's cache (``npx``, ``uvx`` launches need both).
    """
    argv = [launch.executable, *launch.args]
    pass_fds: tuple[int, ...] = ()
    confinement = None
    if mode != "off":
        home_read, cache_write = user_server_roots() if user_server else ((), ())
        spec = build_spec(
            mode,
            workspace=Path(launch.cwd),
            read_roots=(*program_roots([launch.executable, *launch.args]), *home_read),
            write_roots=cache_write,
            private_tmp=Path(env["TMPDIR"]),
            search_path=[p for p in launch.env.get("PATH", "").split(os.pathsep) if p],
        )
        try:
            confinement = preexec_for(spec)
        except SandboxUnavailable as exc:
            raise ToolFailedError(f"the MCP server was not started: {exc}") from None
        except OSError as exc:
            raise ToolFailedError(
                f"the MCP server was not started: its sandbox could not be prepared ({exc.strerror or exc})"
            ) from None
        assert confinement is not None
        argv = launcher_argv(confinement, launch.executable, launch.args)
        pass_fds = (confinement.fd,)
    try:
        return await anyio.open_process(
            argv,
            env=env,
            cwd=launch.cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            pass_fds=pass_fds,
            **group_kwargs(),
        )
    finally:
        if confinement is not None:
            confinement.close()


@asynccontextmanager
async def stdio_transport(
    launch: StdioLaunch,
    fault: StdioFault | None = None,
    *,
    sandbox_mode: SandboxMode = "strict",
    user_server: bool = False,
) -> AsyncIterator[tuple[object, object]]:
    """Yield the (read, write) message streams ``mcp.client.Client`` speaks over.

    ``fault`` receives the reason when the server's output ends the stream (a malformed line).
    ``sandbox_mode`` is the entry's resolved mode (``StdioServer.sandbox_for``).
    """
    fault = fault if fault is not None else StdioFault()
    # A server is a child like run_command's: if this process dies (even kill -9) the guard's
    # watcher ends its group and anything carrying the marker, setsid'd descendants included.
    guard = process_guard()
    guard.start()
    tmp = tempfile.mkdtemp(prefix="relavium-mcp-") if sandbox_mode != "off" else None
    env = {**launch.env, **guard.env(), **({"TMPDIR": tmp} if tmp is not None else {})}
    try:
        process = await _open_sandboxed(launch, env, sandbox_mode, user_server)
    except BaseException:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        raise
    live.add(process.pid)
    guard.track(process.pid)  # start_new_session: the pid is the group id
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)

    async def reader() -> None:
        assert process.stdout is not None
        buffer = b""
        async with read_writer:
            try:
                async for chunk in process.stdout:
                    buffer += chunk
                    *lines, buffer = buffer.split(b"\n")
                    if any(len(line) > MAX_LINE_BYTES for line in lines) or len(buffer) > MAX_LINE_BYTES:
                        fault.reason = f"the server sent a message longer than {MAX_LINE_BYTES} bytes"
                        return
                    for line in lines:
                        if not line.strip():
                            continue
                        try:
                            message = SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
                        except ValueError:
                            # Ending the stream fails every pending request now (never the text: it may echo input).
                            fault.reason = "the server sent a line that is not a valid JSON-RPC message"
                            return
                        await read_writer.send(message)
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                return

    async def writer() -> None:
        assert process.stdin is not None
        async with write_reader:
            try:
                async for item in write_reader:
                    data = item.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send(data.encode("utf-8") + b"\n")
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                await read_writer.aclose()  # the session sees the end instead of hanging

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(reader)
            tg.start_soon(writer)
            try:
                yield read_stream, write_stream
            finally:
                tg.cancel_scope.cancel()
    finally:
        # Shielded: a cancelled caller must still leave no server process behind.
        with anyio.CancelScope(shield=True):
            await _stop(process)
            live.discard(process.pid)
            guard.untrack(process.pid)
            for stream in (read_stream, write_stream):
                await stream.aclose()
            if tmp is not None:
                shutil.rmtree(tmp, ignore_errors=True)


# Server pids not yet stopped; killed at interpreter exit as a last resort (a
# surface that never closed its host, a loop torn down mid-shutdown).
live: set[int] = set()


@atexit.register
def _kill_live() -> None:
    for pid in list(live):
        kill_tree(pid)
