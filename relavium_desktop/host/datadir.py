"""Where Relavium keeps its data: platformdirs, or $RELAVIUM_HOME when set."""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "Relavium"


def data_dir() -> Path:
    """The data dir, created owner-only on first use."""
    override = os.environ.get("RELAVIUM_HOME")
    if override:
        path = Path(override).expanduser()
    else:
        from platformdirs import user_data_dir

        path = Path(user_data_dir(APP_NAME, appauthor=False))
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path

