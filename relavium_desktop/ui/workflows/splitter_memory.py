"""Splitter sizes that survive a restart.

A person who widens the graph pane should find it that wide next time.  The
sizes are saved in the app's QSettings whenever a handle is dragged, and
restored when the splitter is built; anything unreadable there (an older
format, a hand edit) falls back to the default instead of failing.
"""

from __future__ import annotations

from relavium_desktop.ui.qt import QSettings, QSplitter


def saved_sizes(settings: QSettings, key: str, count: int) -> list[int] | None:
    raw = settings.value(key)
    if not isinstance(raw, list | tuple) or len(raw) != count:
        return None
    try:
        sizes = [int(v) for v in raw]
    except (TypeError, ValueError):
        return None
    return sizes if all(v > 0 for v in sizes) else None


def remember_sizes(splitter: QSplitter, settings: QSettings, key: str, default: list[int]) -> None:
    """Restore ``splitter``'s sizes from ``key`` (or ``default``) and save them after every drag."""
    splitter.setSizes(saved_sizes(settings, key, len(default)) or default)

    def save(_pos: int, _index: int) -> None:
        settings.setValue(key, [int(v) for v in splitter.sizes()])

    splitter.splitterMoved.connect(save)
