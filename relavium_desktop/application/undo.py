"""Undo what an agent wrote: list the checkpoints of a chat or run, plan a restore, restore, diff.

Every successful file write through the host keeps what it replaced (see
``host/fs/checkpoints``); this module is the one place that decides what
taking writes back means, for the window and for ``relavium undo`` alike:

- undoing several writes of one path restores the *oldest* before-content
  (the file as it was before the first of them), and undoing a creation
  deletes the file;
- a file that no longer holds what the agent last wrote there is a
  *conflict*: it is overwritten only with ``force`` (the user's
  confirmation);
- a restore is a write: it goes through the project's path policy (the
  project and the folders granted to it now, read and write floors), so a
  path that has since become protected or outside them is *refused*, with
  the reason in words; the user asking for the undo is its approval;
- before anything is restored the file's current content is itself kept
  (an ``undo`` checkpoint), so an undo can be undone; a restore is atomic.

Retention: checkpoints older than :data:`DEFAULT_MAX_AGE_DAYS` days, or
beyond :data:`DEFAULT_MAX_BYTES` of kept before-content in total, are
removed oldest first (and with their chat or run); the media store's gc then
reclaims their bytes.  Both bounds are read from the environment
(``RELAVIUM_CHECKPOINT_MAX_DAYS``, ``RELAVIUM_CHECKPOINT_MAX_BYTES``) so
the CLI and the window, which share no settings file, agree.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from relavium_desktop.host.media.errors import MediaError

if TYPE_CHECKING:
    from relavium_desktop.host.fs.checkpoints import Before, CheckpointRecord, CheckpointSink
    from relavium_desktop.host.fs.policy import PathPolicy
    from relavium_desktop.host.media import MediaStore
    from relavium_desktop.store.checkpoints import CheckpointRow, CheckpointStore

DEFAULT_MAX_AGE_DAYS = 30.0
DEFAULT_MAX_BYTES = 1024 * 1024 * 1024
MAX_AGE_ENV = "RELAVIUM_CHECKPOINT_MAX_DAYS"
MAX_BYTES_ENV = "RELAVIUM_CHECKPOINT_MAX_BYTES"
# Tests only: a restore sleeps this many seconds between writing its temp file and renaming it.
PAUSE_RESTORE_ENV = "RELAVIUM_TEST_PAUSE_RESTORE"

Action = Literal["restore", "delete", "conflict", "refused"]


@dataclass(frozen=True)
class Retention:
    max_age_s: float = DEFAULT_MAX_AGE_DAYS * 86400
    max_bytes: int = DEFAULT_MAX_BYTES

    @classmethod
    def with_overrides(cls, environ: Mapping[str, str] | None = None) -> Retention:
        """The defaults, or the limits RELAVIUM_CHECKPOINT_MAX_DAYS / _MAX_BYTES set (an unreadable value keeps
        the default).  Not the data folder: that is still decided once, by the entry point."""
        env = os.environ if environ is None else environ
        age, size = cls.max_age_s, cls.max_bytes
        try:
            if env.get(MAX_AGE_ENV):
                age = max(0.0, float(env[MAX_AGE_ENV])) * 86400
        except ValueError:
            pass
        try:
            if env.get(MAX_BYTES_ENV):
                size = max(0, int(env[MAX_BYTES_ENV]))
        except ValueError:
            pass
        return cls(age, size)


@dataclass(frozen=True)
class Checkpoint:
    id: str
    scope: str  # "chat" | "run" | "tool" | "undo" (the content a restore replaced)
    scope_id: str  # chat session id, run id, or a one-off tool call's run id
    tool_call_id: str | None
    path: Path
    project: Path | None
    existed: bool  # False: the write created the file (undoing it deletes the file)
    created_at: datetime  # aware, UTC
    lines_added: int
    lines_removed: int
    message_index: int | None  # chat: seq of the newest stored message when the write happened
    node_id: str | None = None
    kept: bool = True  # False: the before-content was too large to keep; it cannot be restored
    bytes: int = 0
    before_sha256: str | None = None
    after_sha256: str | None = None
    undoes: tuple[str, ...] = ()  # scope "undo": the checkpoints that restore took back

    @classmethod
    def of(cls, row: CheckpointRow) -> Checkpoint:
        return cls(
            id=row.id,
            scope="undo" if row.kind == "undo" else row.scope,
            scope_id=row.scope_id,
            tool_call_id=row.tool_call_id,
            path=Path(row.path),
            project=Path(row.project) if row.project else None,
            existed=row.before_sha256 is not None,
            created_at=datetime.fromtimestamp(row.created_at, UTC),
            lines_added=row.lines_added,
            lines_removed=row.lines_removed,
            message_index=row.message_index,
            node_id=row.node_id,
            kept=row.before_sha256 is None or row.before_handle is not None,
            bytes=row.bytes,
            before_sha256=row.before_sha256,
            after_sha256=row.after_sha256,
            undoes=row.undoes,
        )


@dataclass(frozen=True)
class PlannedFile:
    path: Path
    action: Action
    reason: str  # words for people; "" when none
    checkpoint_id: str  # the oldest checkpoint of this path in the plan: its before-content is restored
    checkpoint_ids: tuple[str, ...] = ()  # every checkpoint of this path the restore takes back
    expect_sha256: str | None = None  # what the agent last wrote there (None: no file)
    project: Path | None = None


@dataclass(frozen=True)
class RestorePlan:
    files: tuple[PlannedFile, ...]

    @property
    def conflicts(self) -> tuple[PlannedFile, ...]:
        return tuple(f for f in self.files if f.action == "conflict")

    @property
    def refused(self) -> tuple[PlannedFile, ...]:
        return tuple(f for f in self.files if f.action == "refused")


@dataclass(frozen=True)
class RestoreResult:
    restored: tuple[Path, ...]
    deleted: tuple[Path, ...]
    skipped: tuple[PlannedFile, ...]  # conflicts (without force), refusals, and files that failed as they ran
    undo_checkpoint_ids: tuple[str, ...]  # restore one of these to undo this undo


DiffKind = Literal["hunk", "context", "added", "removed"]


@dataclass(frozen=True)
class DiffLine:
    kind: DiffKind
    old_no: int | None
    new_no: int | None
    text: str  # without its line ending; for "hunk", the @@ header


@dataclass(frozen=True)
class DiffText:
    """A checkpoint's change old -> new, as lines for a card; ``sentence`` instead when there is no text diff."""

    lines: tuple[DiffLine, ...] = ()
    sentence: str = ""
    lines_added: int = 0
    lines_removed: int = 0

    @property
    def text(self) -> str:
        if not self.lines:
            return self.sentence
        marks = {"hunk": "", "context": " ", "added": "+", "removed": "-"}
        return "\n".join(marks[line.kind] + line.text for line in self.lines)


class UndoService:
    """Checkpoints of one data folder: listing, planning, restoring and diffing (no Qt)."""

    def __init__(
        self,
        store: CheckpointStore,
        media: MediaStore,
        *,
        retention: Retention | None = None,
        environ: Mapping[str, str] | None = None,
        granted_folders: Callable[[Path], Sequence[Path]] | None = None,
    ) -> None:
        self.store = store
        self.media = media
        # The folders granted to a project beyond it ("Allow this folder"): a restore may write there too.
        self._granted = granted_folders
        self.retention = retention or Retention.with_overrides(environ)
        env = os.environ if environ is None else environ
        self._pause = _pause_seconds(env.get(PAUSE_RESTORE_ENV))
        self.prune()

    def prune(self, now: float | None = None) -> list[str]:
        """Apply retention now: the ids of the checkpoints removed, oldest first."""
        return self.store.prune(
            max_age_s=self.retention.max_age_s,
            max_bytes=self.retention.max_bytes,
            now=time.time() if now is None else now,
        )

    # -- listing --------------------------------------------------------------

    def checkpoints(
        self,
        *,
        chat: str | None = None,
        run: str | None = None,
        since_message: int | None = None,
        tool_call: str | None = None,
        include_undo: bool = False,
    ) -> list[Checkpoint]:
        """Checkpoints matching every filter given, oldest first.

        ``run`` matches a workflow run id or a one-off ``relavium tool call``'s
        run id; ``since_message`` N keeps the writes made once message N of the
        chat was stored (its own turn included).
        """
        kinds = ("write", "undo") if include_undo else ("write",)
        if chat is not None:
            rows = self.store.find(
                scope="chat", scope_id=chat, since_message=since_message, tool_call_id=tool_call, kinds=kinds
            )
        elif run is not None:
            rows = [
                r
                for r in self.store.find(scope_id=run, tool_call_id=tool_call, kinds=kinds)
                if r.scope in ("run", "tool")
            ]
        else:
            rows = self.store.find(tool_call_id=tool_call, since_message=since_message, kinds=kinds)
        return [Checkpoint.of(r) for r in rows]

    def get(self, checkpoint_id: str) -> Checkpoint | None:
        row = self.store.get(checkpoint_id)
        return Checkpoint.of(row) if row is not None else None

    # -- planning -------------------------------------------------------------

    def plan(self, checkpoints: Sequence[Checkpoint]) -> RestorePlan:
        """What restoring ``checkpoints`` would do, per path (newest first per path; nothing changes)."""
        by_path: dict[Path, list[Checkpoint]] = {}
        for checkpoint in sorted(checkpoints, key=lambda c: c.created_at):
            by_path.setdefault(checkpoint.path, []).append(checkpoint)
        return RestorePlan(tuple(self._plan_path(path, group) for path, group in by_path.items()))

    def _plan_path(self, path: Path, group: list[Checkpoint]) -> PlannedFile:
        from relavium_desktop.engine.errors import ToolError
        from relavium_desktop.host.fs.checkpoints import inspect

        oldest, newest = group[0], group[-1]
        base = PlannedFile(
            path=path,
            action="restore" if oldest.existed else "delete",
            reason="",
            checkpoint_id=oldest.id,
            checkpoint_ids=tuple(c.id for c in reversed(group)),
            expect_sha256=newest.after_sha256,
            project=oldest.project,
        )
        missing = self._missing_before(oldest)
        if missing:
            return _with(base, "refused", missing)
        try:
            current = inspect(self._policy(base), str(path))
        except ToolError as exc:
            return _with(base, "refused", _reason(exc))
        except (OSError, ValueError) as exc:
            return _with(base, "refused", _os_reason(exc))
        if current.sha256 != newest.after_sha256:
            if newest.after_sha256 is None:
                why = "a file was put there since it was removed"
            elif not current.exists:
                why = "the file was deleted since the agent wrote it"
            else:
                why = "the file changed since the agent wrote it"
            return _with(base, "conflict", why)
        return base

    def _missing_before(self, oldest: Checkpoint) -> str:
        if not oldest.existed:
            return ""
        if not oldest.kept or oldest.before_sha256 is None:
            return "its earlier content was too large to keep (over 25 MiB)"
        if not self.media.exists(oldest.before_sha256):
            return "its earlier content is no longer kept"
        return ""

    def _policy(self, planned: PlannedFile) -> PathPolicy:
        from relavium_desktop.host.fs.policy import PathPolicy

        project = planned.project
        if project is None or not project.is_dir():
            raise ValueError("its project folder no longer exists")
        extra = tuple(self._granted(project)) if self._granted is not None else ()
        return PathPolicy.create(project, tier="project", surface="chat", extra_roots=extra)

    # -- restoring ------------------------------------------------------------

    def restore(self, plan: RestorePlan, *, force: bool = False) -> RestoreResult:
        """Carry ``plan`` out: conflicts only with ``force``; refused files never.

        Each file is checked again as it is restored (it may have changed
        since the plan), kept as it is now, then replaced atomically.
        """
        restored: list[Path] = []
        deleted: list[Path] = []
        skipped: list[PlannedFile] = []
        undo_ids: list[str] = []
        for planned in plan.files:
            if planned.action == "refused" or (planned.action == "conflict" and not force):
                skipped.append(planned)
                continue
            outcome = self._restore_one(planned, force=force)
            if isinstance(outcome, PlannedFile):
                skipped.append(outcome)
                continue
            undo_ids.append(outcome)
            (restored if self._target_exists(planned) else deleted).append(planned.path)
        return RestoreResult(tuple(restored), tuple(deleted), tuple(skipped), tuple(undo_ids))

    def _target_exists(self, planned: PlannedFile) -> bool:
        row = self.store.get(planned.checkpoint_id)
        return row is not None and row.before_sha256 is not None

    def _restore_one(self, planned: PlannedFile, *, force: bool) -> str | PlannedFile:
        """The id of the undo checkpoint kept, or the file as skipped (with why)."""
        from relavium_desktop.engine.errors import ToolError
        from relavium_desktop.host.fs.checkpoints import ConflictError, restore_path

        row = self.store.get(planned.checkpoint_id)
        if row is None:
            return _with(planned, "refused", "its checkpoint is gone (retention removed it)")
        data: bytes | None = None
        if row.before_sha256 is not None:
            try:
                data = self.media.open_verified(row.before_sha256)
            except (MediaError, OSError):
                return _with(planned, "refused", "its earlier content is no longer kept")
        undo_ids: list[str] = []

        def keep(current: Before, canonical: str) -> None:
            # Before anything changes: the current content, kept and recorded, so this undo can be undone.
            if current.exists and current.data is None:
                raise _TooLarge
            if current.exists and current.data is not None:
                self.media.publish_bytes(current.data)
            undo_ids.append(self._record_undo(row, planned, (current, canonical), data))

        try:
            restore_path(
                self._policy(planned),
                str(planned.path),
                data,
                expect=planned.expect_sha256,
                check=not force,
                keep=keep,
                before_rename=self._pause_hook(),
            )
        except BaseException as exc:
            self.store.delete(undo_ids)  # nothing was restored: no undo to offer
            if isinstance(exc, ConflictError):
                return _with(planned, "conflict", "the file changed since the agent wrote it")
            if isinstance(exc, _TooLarge):
                return _with(
                    planned, "refused", "the file is now too large to keep a copy of before restoring"
                )
            if isinstance(exc, MediaError):
                return _with(
                    planned, "refused", "its current content could not be kept, so it was left as it is"
                )
            if isinstance(exc, ToolError):
                return _with(planned, "refused", _reason(exc))
            if isinstance(exc, (OSError, ValueError)):
                return _with(planned, "refused", _os_reason(exc))
            raise
        return undo_ids[0]

    def _record_undo(
        self, row: CheckpointRow, planned: PlannedFile, replaced: tuple[Before, str], data: bytes | None
    ) -> str:
        from relavium_desktop.host.fs.checkpoints import diff_counts, new_checkpoint_id
        from relavium_desktop.host.media import format_handle
        from relavium_desktop.store.checkpoints import CheckpointRow

        current, canonical = replaced
        existed = current.exists
        old = current.data or b""
        added, removed = diff_counts(old, data or b"")
        undo_id = new_checkpoint_id()
        self.store.add(
            CheckpointRow(
                id=undo_id,
                scope=row.scope,
                scope_id=row.scope_id,
                kind="undo",
                message_index=None,
                node_id=None,
                tool_call_id=None,
                path=canonical,
                project=row.project,
                before_sha256=current.sha256 if existed else None,
                before_handle=format_handle(current.sha256) if existed and current.sha256 else None,
                after_sha256=hashlib.sha256(data).hexdigest() if data is not None else None,
                bytes=current.size if existed else 0,
                lines_added=added,
                lines_removed=removed,
                undoes=planned.checkpoint_ids,
                created_at=time.time(),
            )
        )
        return undo_id

    def _pause_hook(self) -> Callable[[], None] | None:
        pause = self._pause
        if pause <= 0:
            return None

        def sleep() -> None:
            import sys

            print("relavium: restore paused before rename", file=sys.stderr, flush=True)
            time.sleep(pause)

        return sleep

    # -- diff -----------------------------------------------------------------

    def diff(self, checkpoint: Checkpoint) -> DiffText:
        """The change ``checkpoint`` kept, old -> new, with line numbers (a sentence for binary files)."""
        counts = (checkpoint.lines_added, checkpoint.lines_removed)
        old: bytes | None = b""
        if checkpoint.existed:
            old = self._blob(checkpoint.before_sha256) if checkpoint.kept else None
        new = self._after(checkpoint)
        if old is None or new is None:
            return DiffText(
                sentence="The change can no longer be shown: the content it replaced or wrote "
                "is no longer kept.",
                lines_added=counts[0],
                lines_removed=counts[1],
            )
        try:
            old_text, new_text = _text(old), _text(new)
        except ValueError:
            return DiffText(
                sentence=f"Binary file: {len(old)} bytes before, {len(new)} bytes after.",
                lines_added=counts[0],
                lines_removed=counts[1],
            )
        return _diff_lines(old_text, new_text, counts)

    def _blob(self, sha256: str | None) -> bytes | None:
        if sha256 is None:
            return None
        try:
            return self.media.open_verified(sha256)
        except (MediaError, OSError):
            return None

    def _after(self, checkpoint: Checkpoint) -> bytes | None:
        if checkpoint.after_sha256 is None:
            return b""
        from relavium_desktop.engine.errors import ToolError
        from relavium_desktop.host.fs.checkpoints import read_path

        try:
            planned = PlannedFile(checkpoint.path, "restore", "", checkpoint.id, project=checkpoint.project)
            current = read_path(self._policy(planned), str(checkpoint.path))
            if current.sha256 == checkpoint.after_sha256 and current.data is not None:
                return current.data
        except (ToolError, OSError, ValueError):
            pass  # unreadable or outside the project now: a later checkpoint may still have the bytes
        later = self.store.later_with_before(
            str(checkpoint.path), checkpoint.after_sha256, checkpoint.created_at.timestamp()
        )
        return self._blob(later.before_sha256) if later is not None else None


class _TooLarge(Exception):
    pass


def _with(planned: PlannedFile, action: Action, reason: str) -> PlannedFile:
    from dataclasses import replace

    return replace(planned, action=action, reason=reason)


def _reason(exc: BaseException) -> str:
    message = getattr(exc, "message", None) or str(exc)
    return message[:1].upper() + message[1:] if message else "the path cannot be written"


def _os_reason(exc: BaseException) -> str:
    if isinstance(exc, ValueError):
        return _reason(exc)
    return _reason(OSError(getattr(exc, "strerror", None) or "the file cannot be written"))


def _pause_seconds(raw: str | None) -> float:
    try:
        return float(raw) if raw else 0.0
    except ValueError:
        return 0.0


def _text(data: bytes) -> str:
    if b"\0" in data:
        raise ValueError("binary")
    return data.decode("utf-8")  # UnicodeDecodeError is a ValueError


def _diff_lines(old: str, new: str, counts: tuple[int, int]) -> DiffText:
    a, b = old.splitlines(), new.splitlines()
    out: list[DiffLine] = []
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(3):
        first, last = group[0], group[-1]
        out.append(
            DiffLine(
                "hunk",
                None,
                None,
                f"@@ -{first[1] + 1},{last[2] - first[1]} +{first[3] + 1},{last[4] - first[3]} @@",
            )
        )
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(DiffLine("context", i + 1, j1 + (i - i1) + 1, a[i]) for i in range(i1, i2))
                continue
            out.extend(DiffLine("removed", i + 1, None, a[i]) for i in range(i1, i2))
            out.extend(DiffLine("added", None, j + 1, b[j]) for j in range(j1, j2))
    if not out:
        return DiffText(sentence="No change in content.", lines_added=counts[0], lines_removed=counts[1])
    return DiffText(lines=tuple(out), lines_added=counts[0], lines_removed=counts[1])


# -- the sink the file host records writes into --------------------------------


@dataclass
class HistoryCheckpoints:
    """A :class:`CheckpointSink` over ``home``'s history.db, opened on the first write it records.

    A host lives apart from the :class:`Application` (a surface may build
    several), so the sink has a connection of its own, opened lazily and
    closed when the sink is collected; retention runs once when it opens.
    Its commits skip the WAL fsync (``synchronous=NORMAL``): a write_file
    already waits for its own fsync, and a second one per record would double
    a small write's cost.  An app or process crash loses nothing; a power cut
    may lose the newest records (those writes then cannot be undone), never
    the database.
    """

    home: Path
    _store: CheckpointStore | None = field(default=None, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def _opened(self) -> CheckpointStore:
        with self._lock:
            if self._store is None:
                from relavium_desktop.store.checkpoints import CheckpointStore

                store = CheckpointStore.open(self.home, durable_commits=False)
                weakref.finalize(self, store.close)
                retention = Retention.with_overrides()
                store.prune(max_age_s=retention.max_age_s, max_bytes=retention.max_bytes, now=time.time())
                self._store = store
            return self._store

    def record(self, record: CheckpointRecord) -> None:
        from relavium_desktop.host.media import format_handle
        from relavium_desktop.store.checkpoints import CheckpointRow

        self._opened().add(
            CheckpointRow(
                id=record.id,
                scope=record.scope,
                scope_id=record.scope_id,
                kind=record.kind,
                message_index=None,
                node_id=record.node_id,
                tool_call_id=record.tool_call_id,
                path=record.path,
                project=record.project,
                before_sha256=record.before_sha256,
                before_handle=format_handle(record.before_sha256)
                if record.before_kept and record.before_sha256
                else None,
                after_sha256=record.after_sha256,
                bytes=record.size,
                lines_added=record.lines_added,
                lines_removed=record.lines_removed,
                undoes=record.undoes,
                created_at=record.created_at,
            )
        )


def checkpoint_sink(home: Path) -> CheckpointSink:
    """The sink a surface's file host records its writes into (history.db under ``home``)."""
    return HistoryCheckpoints(home)
