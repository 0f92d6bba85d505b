"""Is a tool's path inside the project?  The predicate "Auto-approve edits" trusts.

The engine cannot resolve paths (it is pure), so the chat surfaces hand
:func:`inside_workspace` to ``SessionApprovals(in_project=...)``.  It only
decides whether to *ask*: the fs host still admits or refuses every write on
its own pinned roots, so an answer here never widens access.  Every doubt
is False, which means one more question, never one fewer.
"""

from __future__ import annotations

import os
from pathlib import Path


def _below(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def inside_workspace(workspace: Path, path: str) -> bool:
    """True only when ``path`` resolves to ``workspace`` or below it.

    A relative path is joined to the workspace, an absolute one is taken as
    is, then both are resolved with ``os.path.realpath`` (non-strict, so a
    file that does not exist yet still counts, and a symlinked parent is
    followed to where the write would really land).  ``..`` escapes, links
    pointing out of the project and a sibling whose name merely starts with
    the project's (``/p/proj2`` next to ``/p/proj``) are all False.  Names
    compare exactly (``os.path.normcase`` only folds on Windows).

    The lexical spelling must be inside too (``..`` folded without looking
    at the disk, under the workspace as given or as resolved), because that
    is how the fs host picks the folder it writes under: ``link/../../x``
    with ``link`` pointing deeper into the project resolves inside, yet
    the host would write beside the project, perhaps in a granted folder.
    """
    if not path:
        return False
    try:
        given = os.path.normcase(os.path.abspath(workspace))
        root = os.path.normcase(os.path.realpath(workspace))
        candidate = path if os.path.isabs(path) else os.path.join(given, path)
        lexical = os.path.normcase(os.path.normpath(candidate))
        real = os.path.normcase(os.path.realpath(candidate))
    except (OSError, ValueError):  # a NUL byte, an unencodable name, a link loop on some platforms
        return False
    return (_below(lexical, given) or _below(lexical, root)) and _below(real, root)
