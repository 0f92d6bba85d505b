"""Where everything of the user's lives, decided once at start-up.

The environment (``$RELAVIUM_HOME``) is read in one place, when a surface
starts; every other module is handed this value, so a test or a second
profile can point a whole process at another folder without the answer
changing halfway through a run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class AppPaths:
    """The data folder and the files and folders Relavium keeps in it."""

    home: Path

    @classmethod
    def from_environment(cls) -> AppPaths:
        """``$RELAVIUM_HOME`` when set, else the platform's data folder (created owner-only)."""
        from relavium_desktop.host.datadir import data_dir

        return cls(data_dir())

    @property
    def runs(self) -> Path:
        """Spilled tool output of runs and chats (created owner-only on first use)."""
        path = self.home / "runs"
        path.mkdir(exist_ok=True, mode=0o700)
        return path

    @property
    def history_db(self) -> Path:
        return self.home / "history.db"

    @property
    def agents(self) -> Path:
        """The user's own ``*.agent.yaml`` files."""
        return self.home / "agents"

    @property
    def media(self) -> Path:
        return self.home / "media"

    @property
    def providers_file(self) -> Path:
        return self.home / "providers.yaml"

    @property
    def mcp_file(self) -> Path:
        return self.home / "mcp.yaml"

    @property
    def plugins_file(self) -> Path:
        return self.home / "plugins.yaml"

    @property
    def defaults_file(self) -> Path:
        """The default model and agent, shared by the window and ``relavium chat``."""
        return self.home / "defaults.json"
