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
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from relavium_desktop.engine.errors import DenyReason, InvalidArgsError, ToolDeniedError
from relavium_desktop.engine.tools.fs_floors import is_unc, read_floor, write_floor
from relavium_desktop.engine.tools.tooldef import FsScopeTier
from relavium_desktop.host.fs.roots import PinnedRoot, join
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
    # Host-owned folders the model may read but never write: the run output
    # store, whose spill paths the model is handed in a truncation marker.
    read_only_roots: tuple[PinnedRoot, ...] = ()

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
    ) -> PathPolicy:
        """Pin the roots the tier allows; raises ValueError for a missing folder."""
        tier = effective_tier(tier, surface)
        ws = PinnedRoot.pin(workspace)
        roots = [ws]
        if tier in ("project", "full"):
            roots.extend(PinnedRoot.pin(r) for r in extra_roots)
        if tier == "full":
            roots.append(PinnedRoot.pin("/"))
        policy = cls(ws, tuple(roots), tier, read_only_roots=tuple(PinnedRoot.pin(r) for r in read_only_roots))
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
        base: list[str] = [] if raw.startswith("/") else list(self.workspace.lexical)
        return normalise(base, raw.split("/"))

    def admit(self, comps: tuple[str, ...], purpose: Purpose) -> tuple[PinnedRoot, tuple[str, ...]]:
        """The root containing ``comps`` and the remainder below it; floors checked.

        Checks the lexical spelling and the canonical one (root canonical +
        remainder): both must be inside a root and clear of the floors.
        """
        best: tuple[PinnedRoot, tuple[str, ...]] | None = None
        candidates = self.roots + self.read_only_roots if purpose == "read" else self.roots
        for root in candidates:
            rest = root.match(comps)
            if rest is not None and (best is None or len(rest) < len(best[1])):
                best = (root, rest)
        if best is None:
            raise outside_scope()
        root, rest = best
        self.check_floor(comps, purpose)
        self.check_floor(root.canonical + rest, purpose)
        return root, rest

    def check_floor(self, comps: tuple[str, ...], purpose: Purpose) -> None:
        exempt = self.scratch.anchor_index(comps) if self.scratch is not None else None
        floor = write_floor if purpose == "write" else read_floor
        rule = floor(comps, relavium_exempt_index=exempt)
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
