"""Logging for a Relavium process: every record masked, shown on stderr only when asked for.

Each surface (the window, ``relavium``) calls :func:`configure_logging` once,
first thing, so no log line anywhere can carry a key or token unmasked;
``RELAVIUM_LOG=<level>`` sends the app's own logs to stderr.
"""

from __future__ import annotations

from relavium_desktop.host.log_masking import configure_logging

__all__ = ["configure_logging"]
