"""FsHost: the engine's FsCapability over one immutable PathPolicy.

Every method runs its blocking work in a worker thread so the Qt/asyncio
loop never stalls; all policy (roots, floors, tiers) lives in the policy and
the descriptor walk, not here.
"""

from __future__ import annotations

import asyncio
import os

from relavium_desktop.engine.errors import DenyReason, ToolDeniedError
from relavium_desktop.engine.jsontypes import JsonDict
from relavium_desktop.engine.tools.call_origin import current_call
from relavium_desktop.host.fs import lister, reader, writer
from relavium_desktop.host.fs.checkpoints import Checkpointer
from relavium_desktop.host.fs.policy import PathPolicy
from relavium_desktop.host.fs.roots import join
from relavium_desktop.host.fs.text import MediaPublisher
from relavium_desktop.host.fs.walk import WalkHook, open_path


class FsHost:
    """Filesystem capability jailed to ``policy``; ``hook`` is a test seam for the walk."""

    def __init__(
        self,
        policy: PathPolicy,
        *,
        hook: WalkHook | None = None,
        media: MediaPublisher | None = None,
        checkpoints: Checkpointer | None = None,
    ) -> None:
        if not _supports_descriptor_walk():
            raise RuntimeError("this platform lacks openat/O_NOFOLLOW; the file host cannot run safely")
        self.policy = policy
        self._hook = hook
        # Binary reads are published here and returned as handles; None: they fail closed.
        self._media = media
        # Keeps what each write replaces (and records it once the write succeeded); None: no undo.
        self._checkpoints = checkpoints

    async def read_file(self, path: str) -> JsonDict:
        return await asyncio.to_thread(reader.read_file, self.policy, path, self._hook, self._media)

    async def read_glob(self, pattern: str) -> list[JsonDict]:
        return await asyncio.to_thread(reader.read_glob, self.policy, pattern, self._hook, self._media)

    async def write_file(self, path: str, content: str, *, append: bool, create_parents: bool) -> JsonDict:
        return await asyncio.to_thread(
            writer.write_file,
            self.policy,
            path,
            content,
            append=append,
            create_parents=create_parents,
            hook=self._hook,
            checkpoints=self._checkpoints,
            origin=current_call(),  # whose write (run, node, tool call): set by the registry's dispatch
        )

    async def list_directory(self, path: str, *, recursive: bool, glob: str | None) -> JsonDict:
        return await asyncio.to_thread(
            lister.list_directory, self.policy, path, recursive=recursive, glob=glob, hook=self._hook
        )

    def resolve_cwd(self, path: str | None) -> str:
        """Canonical absolute directory for a subprocess's working directory.

        ``None`` is the workspace.  Outside the roots is ``outside_scope``; a
        directory on the read floor is ``protected_path``.  The directory is
        opened by descriptor walk, so it exists and is a real directory now.
        A read-only folder (the run's own spill folder) is no working
        directory: a process could write into it.
        """
        opened = open_path(self.policy, "." if path is None else path, "dir", hook=self._hook)
        opened.close()
        if not self.policy.writable(opened.root) or (
            not opened.canonical[: len(opened.root.canonical)] == opened.root.canonical
        ):
            raise ToolDeniedError("the working directory is outside the allowed folders",
                                  reason=DenyReason.OUTSIDE_SCOPE)
        return join(opened.canonical)


def _supports_descriptor_walk() -> bool:
    return (
        os.open in os.supports_dir_fd
        and os.stat in os.supports_dir_fd
        and hasattr(os, "O_NOFOLLOW")
        and hasattr(os, "O_DIRECTORY")
    )
