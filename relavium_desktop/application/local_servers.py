"""Model servers already running on this computer (Ollama, LM Studio, ...), found for the welcome flow.

A first run offers a local server it can reach as a provider with no key:
each known kind is probed on loopback with a short timeout and its model
list read (bounded).  The window names the kinds and what was found from
here; the probing stays in the host's egress code.
"""

from __future__ import annotations

from relavium_desktop.host.egress.local_servers import (
    KNOWN_LOCAL_SERVERS,
    FoundServer,
    LocalServerKind,
    find_local_servers,
)

__all__ = ["KNOWN_LOCAL_SERVERS", "FoundServer", "LocalServerKind", "find_local_servers"]
