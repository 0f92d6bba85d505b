"""Per-project permission grants ("Always allow in this project") in history.db.

A grant is keyed by the project's canonical path, the tool id and a target of
one of four kinds:

- ``path``  a folder prefix inside the project (file writes),
- ``argv``  an exact argument vector (``run_command``), stored as JSON,
- ``host``  an exact, lower-cased host name (``http_request``),
- ``tool``  the tool as a whole, for tools without a target (clipboard, notify).

Matching is a pure function of the grant, the project and the request
(:func:`grant_covers`), so the dialog, Settings and tests all agree on what a
grant covers and the UI never re-implements it.  A grant never covers a
protected path, a path outside its project, or an argument vector / target
that masking altered (a masked secret would otherwise match every secret).

The store only stores: the file-system questions (a project's canonical
path, where a target really lies, whether a folder may be granted) are
answered by the host (``host/fs/preview.HOST_GRANT_PATHS``), handed in as
:class:`GrantPaths` by whoever opens the store.
"""

from __future__ import annotations

import json
import posixpath
import sqlite3
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar, Literal, Protocol
from urllib.parse import urlsplit

from relavium_desktop.engine.tools.masking import MASK
from relavium_desktop.engine.tools.tooldef import ActionClass, ApprovalRequest
from relavium_desktop.store.db import connection_lock, history_db_path, migrate, open_db, write_tx

GrantKind = Literal["path", "argv", "host", "tool"]

MIGRATIONS = [
    """
    CREATE TABLE grants (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        project TEXT NOT NULL,
        tool TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('path', 'argv', 'host', 'tool')),
        target TEXT NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (project, tool, kind, target)
    );
    CREATE INDEX grants_by_project ON grants (project, tool)
    """,
]


@dataclass(frozen=True, slots=True)
class GrantTarget:
    kind: GrantKind
    value: str  # folder path, JSON argv, host, or "" for a whole-tool grant
    # A path grant for one file (a file at the project's root grants only itself), not a folder.
    # Wording only: matching is by ``value`` alone (see grant_covers).
    single_file: bool = False

    def describe(self) -> str:
        """Human wording for the dialog button and Settings: "writes notes.md", "writes under src/"."""
        if self.kind == "path":
            if self.single_file:
                return f"writes {self.value}"
            return f"writes under {self.value.rstrip('/')}/"
        if self.kind == "argv":
            return "exactly: " + " ".join(json.loads(self.value))
        if self.kind == "host":
            return f"requests to {self.value}"
        return "every use of this tool"


@dataclass(frozen=True, slots=True)
class Grant:
    id: int
    project: str
    tool: str
    target: GrantTarget
    created_at: str


class GrantPaths(Protocol):
    """The host's answers to the store's path questions (it never touches the file system itself)."""

    def canonical(self, path: str) -> str:
        """The key a folder is known by (resolved, absolute)."""
        ...

    def relative_in(self, root: str, target: str) -> str | None:
        """Where ``target`` really lies inside canonical ``root`` (POSIX, "" for root), or None if outside."""
        ...

    def check_extra_folder(self, project: str, folder: str) -> str:
        """``folder`` canonical, or ValueError saying why it cannot be granted to ``project``."""
        ...

    def is_folder(self, path: str) -> bool: ...


def _contains_mask(text: str) -> bool:
    return MASK in text


def is_protected(request: ApprovalRequest) -> bool:
    """Protected-path writes always ask: no grant covers them and none is stored."""
    return _protected(request)


def _protected(request: ApprovalRequest) -> bool:
    # The registry flags protected-path writes from the engine's pure floor rules.
    return request.protected_path


def target_of(request: ApprovalRequest, rel: str | None) -> GrantTarget | None:
    """What an "always in this project" answer to ``request`` would grant; None if it cannot.

    ``rel`` is where a file write's target really lies in the project (the
    host's answer, None when outside); other classes ignore it.
    """
    if _protected(request):
        return None
    args = request.masked_args
    if request.action_class is ActionClass.FS_WRITE:
        if _contains_mask(request.target) or not rel:
            return None
        # The file's folder; a file at the project root grants only itself, so
        # one answer never turns into "every write in the project".
        folder = posixpath.dirname(rel)
        return GrantTarget("path", folder) if folder else GrantTarget("path", rel, single_file=True)
    if request.action_class is ActionClass.PROCESS:
        command, argv_args = args.get("command"), args.get("args", [])
        if isinstance(command, str) and isinstance(argv_args, list) and all(
            isinstance(a, str) for a in argv_args
        ):
            argv = [command, *argv_args]
            if any(_contains_mask(a) for a in argv):
                return None
            return GrantTarget("argv", json.dumps(argv))
        return GrantTarget("tool", "") if not request.target else None
    if request.action_class is ActionClass.EGRESS and request.target:
        host = _host_of(request.target)
        return GrantTarget("host", host) if host else None
    if request.target and _contains_mask(request.target):
        return None
    return GrantTarget("tool", "")


def _host_of(url: str) -> str | None:
    if _contains_mask(url):
        return None
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return None
    if parts.scheme not in ("https", "http") or not host or parts.username or parts.password:
        return None
    return host.lower().rstrip(".")


def grant_covers(grant: Grant, project: str, request: ApprovalRequest, rel: str | None) -> bool:
    """Whether ``grant`` answers ``request`` in ``project`` (canonical) without asking.

    ``rel`` as for :func:`target_of`.
    """
    if grant.project != project or grant.tool != request.tool_id or _protected(request):
        return False
    wanted = target_of(request, rel)
    if wanted is None or wanted.kind != grant.target.kind:
        return False
    if wanted.kind == "path":
        assert rel is not None  # target_of gave a path
        prefix = grant.target.value
        return bool(prefix) and (rel == prefix or rel.startswith(prefix + "/"))
    return wanted.value == grant.target.value


class _PerProjectTable:
    """What both grant tables share: rows listed per project (or all of them), deleted by id."""

    _TABLE: ClassVar[str]
    _ORDER: ClassVar[str]  # the sort columns after ``project``
    _conn: sqlite3.Connection
    _lock: threading.RLock
    paths: GrantPaths

    def _select(self, project: str | None) -> list[sqlite3.Row]:
        args: tuple[str, ...] = ()
        if project is None:
            sql = f"SELECT * FROM {self._TABLE} ORDER BY project, {self._ORDER}"
        else:
            sql = f"SELECT * FROM {self._TABLE} WHERE project = ? ORDER BY {self._ORDER}"
            args = (self.paths.canonical(project),)
        with self._lock:
            rows: list[sqlite3.Row] = self._conn.execute(sql, args).fetchall()
        return rows

    def revoke(self, grant_id: int) -> bool:
        with self._lock:
            cur = self._conn.execute(f"DELETE FROM {self._TABLE} WHERE id = ?", (grant_id,))
        return cur.rowcount > 0


class GrantStore(_PerProjectTable):
    """The ``grants`` component of history.db; safe to share between threads."""

    _TABLE = "grants"
    _ORDER = "tool, target"

    def __init__(self, conn: sqlite3.Connection, paths: GrantPaths, *, owns_connection: bool = True) -> None:
        self._conn = conn
        self.paths = paths
        self._owns_connection = owns_connection
        self._lock = connection_lock(conn)  # shared with ``folders`` and every store on this connection
        migrate(conn, "grants", MIGRATIONS)
        # folders outside the project, per project
        self.folders = FolderGrantStore(conn, paths, lock=self._lock)

    @classmethod
    def open(cls, home: Path, paths: GrantPaths) -> GrantStore:
        return cls(open_db(history_db_path(home)), paths)

    def _where(self, project: str, request: ApprovalRequest) -> tuple[str, str | None]:
        """``project`` canonical, and where a file write's target really lies in it (the host's answer)."""
        project = self.paths.canonical(project)
        if request.action_class is not ActionClass.FS_WRITE or _contains_mask(request.target):
            return project, None
        return project, self.paths.relative_in(project, request.target)

    def target_for(self, project: str, request: ApprovalRequest) -> GrantTarget | None:
        """What "Always allow in this project" would store for ``request`` (the dialog's label)."""
        return target_of(request, self._where(project, request)[1])

    def close(self) -> None:
        """Close the connection when this store owns it; a shared one stays open for the other stores."""
        if self._owns_connection:
            with self._lock:
                self._conn.close()

    def _row(self, row: Any) -> Grant:
        kind, value = row["kind"], row["target"]
        # The table keeps only the value; a root-level value names a file unless the project has a
        # folder of that name (a value with "/" is always a file's folder, see target_of).
        single_file = (
            kind == "path" and "/" not in value
            and not self.paths.is_folder(posixpath.join(row["project"], value))
        )
        return Grant(
            id=int(row["id"]),
            project=row["project"],
            tool=row["tool"],
            target=GrantTarget(kind, value, single_file=single_file),
            created_at=row["created_at"],
        )

    def add(self, project: str, request: ApprovalRequest) -> Grant:
        """Store the grant ``request`` implies; ValueError when it cannot be granted."""
        project, rel = self._where(project, request)
        target = target_of(request, rel)
        if target is None:
            raise ValueError(f"{request.tool_id}: this action cannot be allowed permanently; it will always ask")
        now = datetime.now(UTC).isoformat(timespec="seconds")
        with self._lock, write_tx(self._conn):
            self._conn.execute(
                "INSERT INTO grants(project, tool, kind, target, created_at) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT(project, tool, kind, target) DO NOTHING",
                (project, request.tool_id, target.kind, target.value, now),
            )
            row = self._conn.execute(
                "SELECT * FROM grants WHERE project = ? AND tool = ? AND kind = ? AND target = ?",
                (project, request.tool_id, target.kind, target.value),
            ).fetchone()
        return self._row(row)

    def list(self, project: str | None = None) -> list[Grant]:
        return [self._row(r) for r in self._select(project)]

    def find(self, project: str, request: ApprovalRequest) -> Grant | None:
        """The stored grant that covers ``request`` in ``project``, if any."""
        project, rel = self._where(project, request)
        with self._lock:
            rows = self._conn.execute(
                "SELECT * FROM grants WHERE project = ? AND tool = ?", (project, request.tool_id)
            ).fetchall()
        for row in rows:
            grant = self._row(row)
            if grant_covers(grant, project, request, rel):
                return grant
        return None


# -- folders outside the project (project tier) --------------------------------------
#
# "Allow a folder outside the project…" remembers, per project, folders the file
# tools may also work in.  They become extra roots of that project's host
# (``HostSettings.extra_roots``) -- roots, never exemptions: the read/write
# floors (.ssh, .env, keys, …) apply inside them exactly as in the project.

FOLDER_MIGRATIONS = [
    """
    CREATE TABLE folder_grants (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        project TEXT NOT NULL,
        folder TEXT NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (project, folder)
    );
    CREATE INDEX folder_grants_by_project ON folder_grants (project)
    """,
]


@dataclass(frozen=True, slots=True)
class FolderGrant:
    id: int
    project: str
    folder: str
    created_at: str

    def describe(self) -> str:
        return f"files under {self.folder} (outside the project)"


class FolderGrantStore(_PerProjectTable):
    """The ``folder_grants`` component of history.db (same connection as the grants)."""

    _TABLE = "folder_grants"
    _ORDER = "folder"

    def __init__(self, conn: sqlite3.Connection, paths: GrantPaths, *, lock: threading.RLock | None = None) -> None:
        self._conn = conn
        self.paths = paths
        self._lock = lock or connection_lock(conn)
        migrate(conn, "folder_grants", FOLDER_MIGRATIONS)

    @staticmethod
    def _row(row: Any) -> FolderGrant:
        return FolderGrant(int(row["id"]), row["project"], row["folder"], row["created_at"])

    def add(self, project: str, folder: str) -> FolderGrant:
        """Remember ``folder`` for ``project`` (both canonical); ValueError when it cannot be granted."""
        project = self.paths.canonical(project)
        resolved = self.paths.check_extra_folder(project, folder)
        now = datetime.now(UTC).isoformat(timespec="seconds")
        with self._lock, write_tx(self._conn):
            self._conn.execute(
                "INSERT INTO folder_grants(project, folder, created_at) VALUES (?, ?, ?) "
                "ON CONFLICT(project, folder) DO NOTHING",
                (project, resolved, now),
            )
            row = self._conn.execute(
                "SELECT * FROM folder_grants WHERE project = ? AND folder = ?", (project, resolved)
            ).fetchone()
        return self._row(row)

    def list(self, project: str | None = None) -> list[FolderGrant]:
        return [self._row(r) for r in self._select(project)]

    def roots(self, project: str) -> tuple[Path, ...]:
        """The granted folders of ``project`` that still exist, as host extra roots."""
        return tuple(Path(g.folder) for g in self.list(project) if self.paths.is_folder(g.folder))

