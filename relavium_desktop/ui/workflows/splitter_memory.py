"""Splitter sizes that survive a restart.

A person who widens the graph pane should find it that wide next time.  The
sizes are saved in the app's QSettings whenever a handle is dragged, and
applied when the splitter first gets its real size: sizes set on a splitter
that is not laid out yet are rescaled by Qt when the window grows, so the
restored pane would come back at some other width.  Anything unreadable in
the settings (an older format, a hand edit) falls back to the default.
"""

from __future__ import annotations

from relavium_desktop.ui.qt import QEvent, QObject, QSettings, QSplitter


def saved_sizes(settings: QSettings, key: str, count: int) -> list[int] | None:
    raw = settings.value(key)
    if not isinstance(raw, list | tuple) or len(raw) != count:
        return None
    try:
        sizes = [int(v) for v in raw]
    except (TypeError, ValueError):
        return None
    return sizes if all(v > 0 for v in sizes) else None


class _ApplyOnFirstLayout(QObject):
    """Sets the sizes once the splitter has been given its real size, then steps aside."""

    def __init__(self, splitter: QSplitter, sizes: list[int]) -> None:
        super().__init__(splitter)
        self._splitter = splitter
        self._sizes = sizes
        splitter.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Show or event.type() == QEvent.Type.Resize:
            extent = self._splitter.width() if self._splitter.orientation().name == "Horizontal" \
                else self._splitter.height()
            if self._splitter.isVisible() and extent > 0:
                self._splitter.removeEventFilter(self)
                self._splitter.setSizes(self._sizes)
                self.deleteLater()
        return False


def remember_sizes(splitter: QSplitter, settings: QSettings, key: str, default: list[int]) -> None:
    """Restore ``splitter``'s sizes from ``key`` (or ``default``) and save them after every drag."""
    sizes = saved_sizes(settings, key, len(default)) or default
    splitter.setSizes(sizes)
    _ApplyOnFirstLayout(splitter, sizes)

    def save(_pos: int, _index: int) -> None:
        settings.setValue(key, [int(v) for v in splitter.sizes()])

    splitter.splitterMoved.connect(save)
