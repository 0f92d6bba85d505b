"""The immutable, host-built path policy: which roots a tool may reach, and the floors.

Built once per invocation by the host (CLI flags, desktop permission
dialog), never by a tool.  The tier picks the effective roots:

=========  ==============================================================
sandboxed  the workspace only
project    the workspace plus the extra roots granted for this invocation
full       workflow: the whole file system (author-trusted); chat: clamped
           to project
=========  ==============================================================

A host-issued scratch descriptor adds exactly its subtree and lifts the
``.relavium/`` floor there alone.  Floors apply in every tier.

The run output store (``$RELAVIUM_HOME/runs/``) is fenced in every tier,
``full`` included: no root reaches into it.  The one exception is the
folder of the run the host serves (its :class:`SpillScope`), which is
readable so the model can open the spill path a truncation marker names,
and never writable.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from relavium_desktop.engine.errors import DenyReason, InvalidArgsError, ToolDeniedError
from relavium_desktop.engine.tools.fs_floors import (
    CONFIG_HOME_PERSISTENCE,
    DATA_HOME_PERSISTENCE,
    PersistenceAnchor,
    fold_component,
    is_unc,
    persistence_anchor,
    read_floor,
    write_floor,
)
from relavium_desktop.engine.tools.tooldef import FsScopeTier
from relavium_desktop.host.fs.roots import PinnedRoot, components, join
from relavium_desktop.host.fs.scratch import ScratchRefused, ScratchRoot

Purpose = Literal["read", "write"]


def outside_scope() -> ToolDeniedError:
    return ToolDeniedError(
        "the path is outside the allowed folders (the workspace and the folders granted to this run)",
        reason=DenyReason.OUTSIDE_SCOPE,
    )


def protected(rule: str, purpose: Purpose) -> ToolDeniedError:
    floor = "write floor" if purpose == "write" else "credential read floor"
    return ToolDeniedError(
        f"the path is protected by the {floor} ({rule}); no tier or grant lifts it",
        reason=DenyReason.PROTECTED_PATH,
    )


def _folded(comps: Sequence[str]) -> tuple[str, ...]:
    return tuple(fold_component(c) for c in comps)


# Every live scope, so a sweep can leave the folders this process is using alone.
_LIVE_SCOPES: weakref.WeakSet[SpillScope] = weakref.WeakSet()
_LIVE_LOCK = threading.Lock()


class SpillScope:
    """The run output store as the file tools see it: a fence with one read-only door.

    ``runs/`` holds every run's and chat session's spilled output.  No path
    in it is reachable through any root (the workspace, a grant, the full
    tier's ``/``); only the folder of the run this host serves is readable,
    and it is never writable.  The host binds that folder (at build, or the
    store at the run's first spill); nothing a tool says can bind it.

    The fence is compared folded (case, Unicode form, as the floors fold),
    so a look-alike spelling on a case-insensitive disk is fenced too.
    """

    def __init__(self, runs_dir: Path | str) -> None:
        lexical = os.path.abspath(os.fspath(runs_dir))
        os.makedirs(lexical, mode=0o700, exist_ok=True)
        self.runs = components(lexical)
        self._fences = tuple({_folded(self.runs), _folded(components(os.path.realpath(lexical)))})
        self._depths = frozenset(len(f) for f in self._fences)
        self._lock = threading.Lock()
        self._bound: tuple[str, PinnedRoot] | None = None
        with _LIVE_LOCK:
            _LIVE_SCOPES.add(self)

    @property
    def run_id(self) -> str | None:
        bound = self._bound
        return bound[0] if bound is not None else None

    @property
    def root(self) -> PinnedRoot | None:
        """The bound run's folder, pinned; None before a run is bound."""
        bound = self._bound
        return bound[1] if bound is not None else None

    def bind(self, run_id: str, folder: Path | str, *, replace_bound: bool = True) -> None:
        """Make ``folder`` (an existing ``runs/<run_id>``) the one readable run folder.

        With ``replace_bound=False`` a scope already bound keeps its run.
        """
        path = os.path.abspath(os.fspath(folder))
        if components(os.path.dirname(path)) != self.runs or os.path.basename(path) != run_id:
            raise ValueError("a spill scope binds a folder directly in the run output store")
        with self._lock:
            bound = self._bound
            if bound is not None and bound[0] != run_id and not replace_bound:
                return
            if bound is not None and bound[0] == run_id and _still_there(bound[1]):
                return
            # A folder removed and made again (a sweep, another process) is pinned afresh.
            self._bound = (run_id, PinnedRoot.pin(path))

    def unbind(self, run_id: str) -> None:
        with self._lock:
            if self._bound is not None and self._bound[0] == run_id:
                self._bound = None

    def fenced(self, comps: tuple[str, ...]) -> bool:
        """True when ``comps`` is the run output store or anything in it."""
        for fence in self._fences:
            n = len(fence)
            if len(comps) >= n and fold_component(comps[n - 1]) == fence[-1] and _folded(comps[:n]) == fence:
                return True
        return False

    def is_fence(self, comps: tuple[str, ...]) -> bool:
        """True when ``comps`` is the run output store folder itself (a walk must not enter it)."""
        return len(comps) in self._depths and _folded(comps) in self._fences


def _still_there(root: PinnedRoot) -> bool:
    try:
        os.close(root.open())
    except ToolDeniedError:
        return False
    return True


def live_spill_scopes() -> frozenset[str]:
    """The run ids bound by the scopes alive in this process (their runs are in use)."""
    with _LIVE_LOCK:
        scopes = list(_LIVE_SCOPES)
    return frozenset(rid for s in scopes if (rid := s.run_id) is not None)


def persistence_anchors(environ: Mapping[str, str] | None = None) -> tuple[PersistenceAnchor, ...]:
    """The login-time persistence homes this process's environment names, for the write floor.

    ``$XDG_CONFIG_HOME`` (autostart, systemd, environment.d below it) and
    ``$XDG_DATA_HOME`` (systemd below it), each as written and resolved, so a
    home moved away from ``~/.config`` / ``~/.local/share`` -- or reached
    through a symlink -- is still refused.  A relative value is ignored, as
    the XDG base-directory spec says.  The defaults need no anchor: the
    floor matches ``.config/autostart`` and the like wherever they occur.
    """
    env = os.environ if environ is None else environ
    anchors: list[PersistenceAnchor] = []
    for name, children in (("XDG_CONFIG_HOME", CONFIG_HOME_PERSISTENCE), ("XDG_DATA_HOME", DATA_HOME_PERSISTENCE)):
        value = env.get(name, "")
        if not value or not os.path.isabs(value):
            continue
        for spelling in {os.path.abspath(value), os.path.realpath(value)}:
            anchors.append(persistence_anchor(components(spelling), children))
    return tuple(anchors)


def effective_tier(tier: FsScopeTier, surface: str) -> FsScopeTier:
    """Chat's full tier is clamped to project; a workflow's full is author-trusted."""
    if tier == "full" and surface != "workflow":
        return "project"
    return tier


@dataclass(frozen=True, slots=True)
class PathPolicy:
    workspace: PinnedRoot
    roots: tuple[PinnedRoot, ...]
    tier: FsScopeTier
    scratch: ScratchRoot | None = None
    # Host-owned folders the model may read but never write.
    read_only_roots: tuple[PinnedRoot, ...] = ()
    # The fenced run output store and the one run folder in it this host may read.
    spill: SpillScope | None = field(default=None, compare=False)
    # Login-time persistence homes named by the environment ($XDG_CONFIG_HOME, ...), on the write floor.
    anchors: tuple[PersistenceAnchor, ...] = ()

    @classmethod
    def create(
        cls,
        workspace: Path | str,
        *,
        tier: FsScopeTier = "project",
        surface: str = "workflow",
        extra_roots: Sequence[Path | str] = (),
        scratch: ScratchRoot | None = None,
        read_only_roots: Sequence[Path | str] = (),
        spill: SpillScope | None = None,
    ) -> PathPolicy:
        """Pin the roots the tier allows; raises ValueError for a missing folder."""
        tier = effective_tier(tier, surface)
        ws = PinnedRoot.pin(workspace)
        roots = [ws]
        if tier in ("project", "full"):
            roots.extend(PinnedRoot.pin(r) for r in extra_roots)
        if tier == "full":
            roots.append(PinnedRoot.pin("/"))
        policy = cls(ws, tuple(roots), tier, read_only_roots=tuple(PinnedRoot.pin(r) for r in read_only_roots),
                     spill=spill, anchors=persistence_anchors())
        return policy.with_scratch(scratch) if scratch is not None else policy

    def with_scratch(self, scratch: ScratchRoot) -> PathPolicy:
        """Attach a host-issued scratch descriptor; idempotent for the same one."""
        if not isinstance(scratch, ScratchRoot) or not scratch.genuine:
            raise ScratchRefused("forged scratch descriptor")
        if self.scratch is scratch:
            return self
        if self.scratch is not None:
            raise ScratchRefused("a different scratch descriptor is already attached")
        scratch.recheck()
        return replace(self, roots=(*self.roots, scratch.root), scratch=scratch)

    # -- admission ------------------------------------------------------------

    def lexical(self, raw: str) -> tuple[str, ...]:
        """Raw tool path -> normalised absolute components (``..`` folded lexically).

        UNC paths are refused here, before anything touches the disk.
        """
        if is_unc(raw, windows=os.name == "nt"):
            raise ToolDeniedError(
                "UNC and device paths (\\\\server\\share) are refused", reason=DenyReason.UNC_PATH
            )
        if "\x00" in raw:
            raise InvalidArgsError("the path contains a NUL byte")
        try:
            os.fsencode(raw)  # a name read off disk (undecodable bytes as \udcXX) encodes back
        except UnicodeEncodeError:
            raise InvalidArgsError("the path is not valid text: it holds a lone surrogate character") from None
        base: list[str] = [] if raw.startswith("/") else list(self.workspace.lexical)
        return normalise(base, raw.split("/"))

    def admit(self, comps: tuple[str, ...], purpose: Purpose) -> tuple[PinnedRoot, tuple[str, ...]]:
        """The root containing ``comps`` and the remainder below it; floors checked.

        Checks the lexical spelling and the canonical one (root canonical +
        remainder): both must be inside a root and clear of the floors.  A
        path in the fenced run output store is admitted only below the bound
        run's folder, only to read, whatever root would otherwise contain it.
        """
        spill = self.spill
        if spill is not None and spill.fenced(comps):
            return self._admit_spill(spill, comps, purpose)
        best: tuple[PinnedRoot, tuple[str, ...]] | None = None
        candidates = self.roots + self.read_only_roots if purpose == "read" else self.roots
        for root in candidates:
            rest = root.match(comps)
            if rest is not None and (best is None or len(rest) < len(best[1])):
                best = (root, rest)
        if best is None:
            raise outside_scope()
        root, rest = best
        canonical = root.canonical + rest
        if spill is not None and spill.fenced(canonical):
            return self._admit_spill(spill, canonical, purpose)
        self.check_floor(comps, purpose)
        self.check_floor(canonical, purpose)
        return root, rest

    def _admit_spill(
        self, spill: SpillScope, comps: tuple[str, ...], purpose: Purpose
    ) -> tuple[PinnedRoot, tuple[str, ...]]:
        own = spill.root
        rest = own.match(comps) if own is not None and purpose == "read" else None
        if own is None or rest is None:
            raise outside_scope()
        self.check_floor(comps, purpose)
        self.check_floor(own.canonical + rest, purpose)
        return own, rest

    def walk_fenced(self, canonical: tuple[str, ...]) -> bool:
        """True for the run output store folder: a recursive walk from above never enters it."""
        return self.spill is not None and self.spill.is_fence(canonical)

    def writable(self, root: PinnedRoot) -> bool:
        """True for a root the tools may write under (not a read-only one, not the spill folder)."""
        return any(root is r for r in self.roots)

    def check_floor(self, comps: tuple[str, ...], purpose: Purpose) -> None:
        exempt = self.scratch.anchor_index(comps) if self.scratch is not None else None
        if purpose == "write":
            rule = write_floor(comps, relavium_exempt_index=exempt, anchors=self.anchors)
        else:
            rule = read_floor(comps, relavium_exempt_index=exempt)
        if rule is not None:
            raise protected(rule, purpose)

    def open_root(self, root: PinnedRoot) -> int:
        if self.scratch is not None and root is self.scratch.root:
            try:
                self.scratch.recheck()
            except (ScratchRefused, OSError):
                raise outside_scope() from None
        return root.open()

    def display(self, canonical: tuple[str, ...]) -> str:
        """Workspace-relative form of a canonical path (keeping needed ``..``)."""
        if canonical[:len(self.workspace.canonical)] != self.workspace.canonical:
            return os.path.relpath(join(canonical), join(self.workspace.canonical))
        rest = canonical[len(self.workspace.canonical) :]
        return "/".join(rest) if rest else "."


def normalise(base: list[str], parts: Sequence[str]) -> tuple[str, ...]:
    out = list(base)
    for part in parts:
        if part in ("", "."):
            continue
        if part == "..":
            if out:
                out.pop()
        else:
            out.append(part)
    return tuple(out)
