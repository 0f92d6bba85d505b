"""Running on a settings file's last good ``.bak`` while the file itself is broken -- in memory only.

providers.yaml, mcp.yaml and plugins.yaml are written through
:func:`~relavium_desktop.host.atomic.write_text_atomic`, which keeps the
version it replaces as ``NAME.bak``; the stores refuse to edit a file that
does not parse, so that copy is one that loaded.  When the file is later
broken (a truncated sync, a bad hand edit) and its ``.bak`` still loads, the
CLI and the app use the ``.bak``'s content so the user's providers, servers
and plugins keep working -- but nothing is copied or rewritten: the broken
file stays byte for byte as the user left it, and every edit through
Relavium is refused until the user fixes or removes it (an edit would
otherwise replace the broken file, and whatever the user meant to put in it,
with the old content).  Without a usable ``.bak`` the loader's error stands.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from relavium_desktop.host.atomic import backup_path

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class BakInUse:
    """``file`` did not load (``reason``, secret-free) and its ``.bak`` is what runs."""

    file: str  # the broken file's name, e.g. "providers.yaml"
    reason: str  # the loader's message for the broken file (names it; never a value from it)

    @property
    def bak(self) -> str:
        return backup_path(Path(self.file)).name

    def describe(self) -> str:
        """The one line the CLI prints on stderr and the window shows in its banner."""
        return (
            f"{self.reason} -- the last good version ({self.bak}) is in use; "
            f"edits are not saved until {self.file} is fixed or removed"
        )

    def refusal(self) -> str:
        """Why an edit through Relavium is refused while the ``.bak`` runs."""
        return (
            f"not saved: {self.file} is broken ({self.reason}) and Relavium is running on its last good "
            f"version ({self.bak}); fix or remove {self.file} first, then try again"
        )


def load_or_bak(
    path: Path,
    read: Callable[[Path], T],
    errors: type[Exception],
) -> tuple[T, BakInUse | None]:
    """``read(path)``, or ``read(path.bak)`` with a :class:`BakInUse` when the file fails and the ``.bak`` loads.

    ``read`` raises ``errors`` for a file that does not load.  When the
    ``.bak`` fails too (or there is none), the file's own error is raised,
    saying whether a ``.bak`` exists.
    """
    try:
        return read(path), None
    except errors as exc:
        reason = str(exc)
        bak = backup_path(path)
        if not bak.is_file():
            raise
        try:
            value = read(bak)
        except errors:
            raise errors(f"{reason}; {bak.name} does not load either") from None
    return value, BakInUse(path.name, reason)
