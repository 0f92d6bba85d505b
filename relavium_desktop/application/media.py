"""The media store, kept offline: its figures, re-hashing, sweeping temporaries, collecting garbage.

``relavium media`` (and any later maintenance view) works on the store under
the data folder it is handed; none of these creates the store when it is
absent.  Garbage collection is the one step that needs more than the store:
which objects a stored chat or run still refers to, read from history.db
and the runs folder, so it lives here rather than in a surface.
"""

from __future__ import annotations

from relavium_desktop.application.paths import AppPaths
from relavium_desktop.host.media import MediaError, MediaStore

__all__ = ["MediaError", "MediaStore", "collect_garbage", "media_store"]


def media_store(paths: AppPaths) -> MediaStore:
    """The store under ``paths.media`` (not created by reads, stats or GC; the first publish does)."""
    return MediaStore(paths.media)


def collect_garbage(
    store: MediaStore, paths: AppPaths, *, min_age_s: float, dry_run: bool
) -> dict[str, list[str]]:
    """Delete ``store``'s objects no stored chat or run under ``paths`` refers to, older than ``min_age_s``.

    Corrupt objects are quarantined first; ``dry_run`` reports and moves nothing.  The lists of
    digests under ``removed``, ``kept`` and ``quarantined``.
    """
    from relavium_desktop.host.media.references import collect_references

    return store.gc(collect_references(paths.home), min_age_s=min_age_s, dry_run=dry_run)
