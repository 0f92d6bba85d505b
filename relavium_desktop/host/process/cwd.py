"""A stand-in working-directory resolver: canonical and inside the workspace.

The filesystem host's path policy owns the real rule (roots by tier, read
floor, protected paths) as ``resolve_cwd``; until the assembly wires that in,
this fallback keeps the process host from starting anywhere but inside the
workspace.  Both have the same shape: ``(path | None) -> canonical folder``,
raising ``tool_denied`` when the folder is out of scope.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from relavium_desktop.engine.errors import DenyReason, ToolDeniedError, ToolFailedError

CwdResolver = Callable[[str | None], str]


def workspace_cwd_resolver(workspace: Path) -> CwdResolver:
    root = os.path.realpath(workspace)

    def resolve(path: str | None) -> str:
        if path is None or path in ("", "."):
            target = root
        else:
            if "\x00" in path:
                raise ToolDeniedError("the working directory is not a valid path", reason=DenyReason.OUTSIDE_SCOPE)
            # join() lets an absolute path replace the root; containment decides.
            target = os.path.realpath(os.path.join(root, path))
        if target != root and os.path.commonpath([root, target]) != root:
            raise ToolDeniedError(
                "the working directory is outside the workspace", reason=DenyReason.OUTSIDE_SCOPE
            )
        if not os.path.isdir(target):
            raise ToolFailedError("the working directory does not exist or is not a folder")
        return target

    return resolve
