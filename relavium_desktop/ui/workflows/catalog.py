"""Find and load the active project's workflows (``*.relavium.yaml``).

Loading never raises: an invalid file becomes an entry carrying its
``file:line:column`` messages so the view can show them instead of crashing.
Files are named by their path relative to the project, which is also the
``source`` a run records, so the list can show each file's last run status
without leaking absolute paths into messages or history.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from relavium_desktop.engine.workflow.errors import WorkflowError
from relavium_desktop.engine.workflow.loader import LoadedWorkflow, load_workflow
from relavium_desktop.ui.error_text import error_text

if TYPE_CHECKING:
    from relavium_desktop.application.app import Application

SUFFIX = ".relavium.yaml"
# Folders no one keeps workflows in and that can be huge.
SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", ".tox", "dist",
                       "build", ".mypy_cache", ".pytest_cache", ".ruff_cache"})
MAX_DEPTH = 6
MAX_FILES = 500
MAX_FILE_BYTES = 1024 * 1024


@dataclass(slots=True)
class WorkflowEntry:
    path: Path
    rel: str  # path relative to the project: the display name and the run's source
    loaded: LoadedWorkflow | None = None
    error: str | None = None  # file:line:column messages of an invalid workflow
    last_status: str | None = None

    @property
    def title(self) -> str:
        if self.loaded is not None:
            body = self.loaded.file.workflow
            return body.name or body.id
        return self.rel


def find_workflow_files(project: Path) -> list[Path]:
    """Workflow files under ``project``, sorted, skipping hidden and build folders."""
    found: list[Path] = []
    base_depth = len(project.parts)
    for root, dirs, files in os.walk(project):
        depth = len(Path(root).parts) - base_depth
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith(".") and depth < MAX_DEPTH)
        for name in sorted(files):
            if name.endswith(SUFFIX):
                found.append(Path(root) / name)
                if len(found) >= MAX_FILES:
                    return found
    return found


def known_tool_ids(home: Path) -> Collection[str]:
    """Built-ins, enabled plugins' tools and ``mcp_<server>_*`` of the servers configured in ``home``.

    The application's tools module decides; ``home`` is the window's data folder
    (``context.app.paths.home``).
    """
    from relavium_desktop.application.tools import known_tool_ids as known

    return known(home)


def load_entry(path: Path, project: Path, home: Path) -> WorkflowEntry:
    """Read and validate one workflow file; ``$ref`` agents resolve next to it."""
    try:
        rel = path.relative_to(project).as_posix()
    except ValueError:
        rel = path.name
    entry = WorkflowEntry(path=path, rel=rel)
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            entry.error = f"{rel}: larger than {MAX_FILE_BYTES // 1024} KiB; not loaded"
            return entry
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        entry.error = f"{rel}: cannot read the file ({getattr(exc, 'strerror', None) or type(exc).__name__})"
        return entry

    def read_ref(ref: str) -> str:
        try:
            return (path.parent / ref).read_text(encoding="utf-8")
        except OSError as exc:
            raise ValueError(exc.strerror or type(exc).__name__) from None

    try:
        entry.loaded = load_workflow(text, rel, read_ref=read_ref, known_tools=known_tool_ids(home))
    except WorkflowError as exc:
        entry.error = error_text(exc, limit=8000, mode="block")
    return entry


def scan_project(
    project: Path, last_status: dict[str, str] | None = None, *, home: Path
) -> list[WorkflowEntry]:
    """Every workflow of the project, loaded (blocking: call it in a worker thread).

    ``home`` is the data folder whose plugins and MCP servers name the known tools.
    """
    entries = [load_entry(p, project, home) for p in find_workflow_files(project)]
    for e in entries:
        e.last_status = (last_status or {}).get(e.rel)
    return entries


def last_statuses(app: Application) -> dict[str, str]:
    """The newest run status per workflow source, from the Application's shared run journal (blocking).

    The window's one run store is read, not a fresh history.db connection per
    refresh; it stays open (the Application closes it).
    """
    out: dict[str, str] = {}
    for run in app.runs().list_runs(limit=1000):
        out.setdefault(str(run["source"]), str(run["status"]))
    return out
