"""Host-issued scratch roots: the one way past the ``.relavium/`` floor.

A :class:`ScratchRoot` names one existing, owner-only (0700) subtree beneath
the trusted ``<data dir>/.relavium`` anchor.  Only :func:`issue_scratch_root`
makes one, and the path policy accepts only descriptors it issued (checked by
identity), so no string from config, TOML or tool arguments can become one,
and a copied or hand-built object is refused as forged.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any, NoReturn

from relavium_desktop.host.fs.roots import PinnedRoot, components, join

ANCHOR_NAME = ".relavium"

# Descriptors this process issued, by id; a descriptor not in here is forged.
_ISSUED: dict[int, ScratchRoot] = {}


class ScratchRefused(ValueError):
    """A scratch descriptor was forged, conflicting or unsafe on disk."""


class ScratchRoot:
    """Opaque, immutable authority over one scratch subtree."""

    __slots__ = ("anchor", "root")

    anchor: PinnedRoot
    root: PinnedRoot

    def __init__(self, *_: Any, **__: Any) -> None:
        raise TypeError("scratch roots are issued only by issue_scratch_root()")

    def __setattr__(self, name: str, value: Any) -> NoReturn:
        raise AttributeError("a scratch root is immutable")

    def __reduce__(self) -> NoReturn:
        raise TypeError("a scratch root cannot be copied or serialised")

    @property
    def genuine(self) -> bool:
        return _ISSUED.get(id(self)) is self

    def anchor_index(self, comps: tuple[str, ...]) -> int | None:
        """Index of the anchor's ``.relavium`` in ``comps`` when ``comps`` lies inside this subtree."""
        for root_prefix, anchor_prefix in (
            (self.root.canonical, self.anchor.canonical),
            (self.root.lexical, self.anchor.lexical),
        ):
            if comps[: len(root_prefix)] == root_prefix:
                return len(anchor_prefix) - 1
        return None

    def recheck(self) -> None:
        """Re-verify anchor/root identity and owner-only modes; raise ScratchRefused otherwise."""
        _check_chain(self.anchor.canonical, self.root.canonical[len(self.anchor.canonical) :])
        for pinned in (self.anchor, self.root):
            st = os.lstat(join(pinned.canonical))
            if (st.st_dev, st.st_ino) != (pinned.dev, pinned.ino):
                raise ScratchRefused("scratch root was replaced")


def _owner_only_dir(path: str) -> None:
    try:
        st = os.lstat(path)
    except OSError:
        raise ScratchRefused("scratch folder is missing") from None
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        raise ScratchRefused("scratch folders must be real directories, not symlinks")
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise ScratchRefused("scratch folders must be owned by the current user")
    if stat.S_IMODE(st.st_mode) & 0o077:
        raise ScratchRefused("scratch folders must be owner-only (0700)")


def _check_chain(anchor: tuple[str, ...], below: tuple[str, ...]) -> None:
    _owner_only_dir(join(anchor))
    current = list(anchor)
    for comp in below:
        current.append(comp)
        _owner_only_dir(join(current))


def issue_scratch_root(home: Path | str, root: Path | str) -> ScratchRoot:
    """Issue the descriptor for ``root``, an existing 0700 subtree of ``<home>/.relavium``.

    Host-only: call it with the data dir the host trusts, never with a path
    that came from a workflow, config or a model.
    """
    anchor_path = os.path.join(os.path.abspath(os.fspath(home)), ANCHOR_NAME)
    root_path = os.path.abspath(os.fspath(root))
    anchor_lex, root_lex = components(anchor_path), components(root_path)
    if len(root_lex) <= len(anchor_lex) or root_lex[: len(anchor_lex)] != anchor_lex:
        raise ScratchRefused("a scratch root must lie strictly beneath the .relavium anchor")
    if ".." in root_lex:
        raise ScratchRefused("a scratch root must be a plain path")
    anchor = PinnedRoot.pin(anchor_path)
    _check_chain(anchor.canonical, root_lex[len(anchor_lex) :])
    pinned = PinnedRoot.pin(root_path)
    if pinned.canonical != anchor.canonical + root_lex[len(anchor_lex) :]:
        raise ScratchRefused("scratch folders must not pass through symlinks")
    desc = object.__new__(ScratchRoot)
    object.__setattr__(desc, "anchor", anchor)
    object.__setattr__(desc, "root", pinned)
    _ISSUED[id(desc)] = desc
    return desc
