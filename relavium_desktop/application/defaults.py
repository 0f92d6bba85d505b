"""The default model and agent, shared by the window and ``relavium chat``.

The welcome flow and the chat's model picker write them; ``relavium chat``
reads them, so a model chosen in the app is the one the terminal uses too.
They live in ``$RELAVIUM_HOME/defaults.json`` (not in the window's own
settings file, which the CLI does not read).  A missing or unreadable file
means "no default": the agent's own route applies, and an unreadable file is
never rewritten behind the user's back until they choose again.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from types import EllipsisType
from typing import Any

from relavium_desktop.application.paths import AppPaths

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ChatDefaults:
    """``model`` is a ``provider/model`` route; ``agent`` an agent id (``chat`` is the built-in one)."""

    model: str | None = None
    agent: str | None = None


class Defaults:
    """Read and write ``defaults.json``; every read sees the file as it is now."""

    def __init__(self, paths: AppPaths) -> None:
        self.path = paths.defaults_file

    def load(self) -> ChatDefaults:
        try:
            raw: Any = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return ChatDefaults()
        except (OSError, ValueError) as exc:
            log.warning("%s is not readable (%s); no default model or agent applies", self.path.name,
                        type(exc).__name__)
            return ChatDefaults()
        if not isinstance(raw, dict):
            return ChatDefaults()
        model, agent = raw.get("model"), raw.get("agent")
        return ChatDefaults(model if isinstance(model, str) and "/" in model else None,
                            agent if isinstance(agent, str) and agent else None)

    def model(self) -> str | None:
        return self.load().model

    def agent(self) -> str | None:
        return self.load().agent

    def save(self, *, model: str | EllipsisType | None = ..., agent: str | EllipsisType | None = ...) -> ChatDefaults:
        """Change the given fields (``None`` clears one; an omitted one is kept), atomically."""
        from relavium_desktop.host.atomic import write_text_atomic

        now = self.load()
        new = ChatDefaults(now.model if isinstance(model, EllipsisType) else model,
                           now.agent if isinstance(agent, EllipsisType) else agent)
        body = {k: v for k, v in (("model", new.model), ("agent", new.agent)) if v is not None}
        write_text_atomic(self.path, json.dumps(body, indent=2) + "\n", keep_backup=False)
        return new
