"""Move the chat's default model and agent from the window's settings file into ``defaults.json``, once.

Earlier versions kept them as ``chat/model`` and ``chat/agent`` in the
window's own settings (an INI file the CLI does not read), so a model chosen
in the app never reached ``relavium chat``.  At start-up a value still there
is copied to ``$RELAVIUM_HOME/defaults.json`` (application/defaults.py) and
removed from the settings file, so there is one default and it is shared.
A value ``defaults.json`` already holds wins: it is the newer choice, made
by ``relavium chat`` or by a window that already migrated.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from relavium_desktop.application.defaults import Defaults

if TYPE_CHECKING:
    from relavium_desktop.application.paths import AppPaths
    from relavium_desktop.ui.qt import QSettings

log = logging.getLogger(__name__)

OLD_MODEL_KEY = "chat/model"  # "provider/model"
OLD_AGENT_KEY = "chat/agent"  # an agent id


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _unreadable(defaults: Defaults) -> bool:
    """True when defaults.json exists but cannot be read: it is then left for the user, never overwritten."""
    try:
        json.loads(defaults.path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return False
    except (OSError, ValueError):
        return True
    return False


def migrate_chat_defaults(settings: QSettings, paths: AppPaths) -> bool:
    """Copy an old ``chat/model`` / ``chat/agent`` into defaults.json and drop them; True when one was copied.

    Nothing is dropped when defaults.json cannot be written (or is there but
    unreadable): the old values stay, and the next start tries again.
    """
    model, agent = _text(settings.value(OLD_MODEL_KEY)), _text(settings.value(OLD_AGENT_KEY))
    if settings.value(OLD_MODEL_KEY) is None and settings.value(OLD_AGENT_KEY) is None:
        return False
    defaults = Defaults(paths)
    if _unreadable(defaults):
        log.warning("%s is not readable; the chat's old default model and agent stay where they are",
                    defaults.path.name)
        return False
    now = defaults.load()
    take_model = model if now.model is None and model is not None and "/" in model else None
    take_agent = agent if now.agent is None else None
    if take_model is not None or take_agent is not None:
        try:
            defaults.save(model=take_model or now.model, agent=take_agent or now.agent)
        except OSError as exc:
            log.warning("could not write %s (%s); the chat's old defaults stay where they are",
                        defaults.path.name, type(exc).__name__)
            return False
    settings.remove(OLD_MODEL_KEY)
    settings.remove(OLD_AGENT_KEY)
    return take_model is not None or take_agent is not None
