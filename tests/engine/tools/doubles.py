"""Host stand-ins for the dispatch pipeline tests (the pipeline is pure; these record what reaches the host)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from relavium_desktop.engine.host import SpawnOptions


class RecordingProcess:
    """Stands in for the process host: records what would have been spawned."""

    def __init__(self) -> None:
        self.spawned: list[tuple[str, list[str], dict[str, str], SpawnOptions]] = []

    async def spawn(
        self, command: str, args: Sequence[str], declared_env: Mapping[str, str], opts: SpawnOptions
    ) -> dict[str, Any]:
        self.spawned.append((command, list(args), dict(declared_env), opts))
        return {"exitCode": 0, "stdout": "ran", "stderr": "", "durationMs": 1}

    async def git(self, args: Sequence[str], opts: SpawnOptions) -> dict[str, Any]:
        self.spawned.append(("git", list(args), {}, opts))
        return {"exitCode": 0, "stdout": "", "stderr": "", "durationMs": 1}
