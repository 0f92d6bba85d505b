"""Pinned root identities: the folders a path policy grants, fixed at creation.

A root is pinned by its lexical spelling, its canonical (symlink-free) path
and its device+inode.  Every operation re-checks all three before it opens
anything, so a granted folder that was deleted, renamed or swapped for a
symlink after the grant revokes access instead of silently granting whatever
now sits at that path.  The pin also holds a descriptor of the directory for
its lifetime: while it is open the inode cannot be freed, so a deleted and
re-created folder can never come back with the same inode number and pass
the identity check.
"""

from __future__ import annotations

import os
import stat
import weakref
from dataclasses import dataclass, field
from pathlib import Path

from relavium_desktop.engine.errors import DenyReason, ToolDeniedError

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)


def components(path: str) -> tuple[str, ...]:
    """Absolute POSIX path -> components (``//x`` is ordinary: empty parts drop)."""
    return tuple(c for c in path.split("/") if c not in ("", "."))


def join(parts: tuple[str, ...] | list[str]) -> str:
    return "/" + "/".join(parts)


@dataclass(frozen=True, slots=True, weakref_slot=True)
class PinnedRoot:
    lexical: tuple[str, ...]
    canonical: tuple[str, ...]
    dev: int
    ino: int
    # Held open so the inode number cannot be reused by a re-created folder.
    holder: int = field(default=-1, compare=False, repr=False)

    @classmethod
    def pin(cls, path: Path | str) -> PinnedRoot:
        """Pin an existing directory; raises ValueError when it is not one."""
        lexical = os.path.abspath(os.fspath(path))
        try:
            canonical = os.path.realpath(lexical, strict=True)
            holder = os.open(canonical, DIR_FLAGS)
        except NotADirectoryError:
            raise ValueError("allowed folder is not a directory") from None
        except OSError as exc:
            raise ValueError(f"allowed folder does not exist: {exc.strerror}") from None
        st = os.fstat(holder)
        if not stat.S_ISDIR(st.st_mode):
            os.close(holder)
            raise ValueError("allowed folder is not a directory")
        pinned = cls(components(lexical), components(canonical), st.st_dev, st.st_ino, holder)
        weakref.finalize(pinned, os.close, holder)
        return pinned

    def open(self) -> int:
        """An O_DIRECTORY descriptor of the root after re-checking its identity.

        Raises ``tool_denied/outside_scope`` when the root vanished or was
        replaced: a grant names one directory, not whatever takes its place.
        """
        try:
            lex = os.stat(join(self.lexical))
            fd = os.open(join(self.canonical), DIR_FLAGS)
        except OSError:
            raise _revoked() from None
        try:
            st = os.fstat(fd)
        except OSError:
            os.close(fd)
            raise
        if (
            (st.st_dev, st.st_ino) != (self.dev, self.ino)
            or (lex.st_dev, lex.st_ino) != (self.dev, self.ino)
            or (self.holder >= 0 and os.fstat(self.holder).st_nlink == 0)
        ):
            os.close(fd)
            raise _revoked()
        return fd

    def match(self, comps: tuple[str, ...]) -> tuple[str, ...] | None:
        """The remainder of ``comps`` below this root (lexical or canonical spelling), or None."""
        best: tuple[str, ...] | None = None
        for prefix in (self.lexical, self.canonical):
            if comps[: len(prefix)] == prefix:
                rest = comps[len(prefix) :]
                if best is None or len(rest) < len(best):
                    best = rest
        return best


def _revoked() -> ToolDeniedError:
    return ToolDeniedError(
        "an allowed folder vanished or was replaced since it was granted; access is revoked",
        reason=DenyReason.OUTSIDE_SCOPE,
    )
