"""The identity of what a stdio MCP server would run, for consent.

Consent is given to a concrete launch, not to a server name: a workflow that
keeps the name but changes the command, an argument, the set of environment
variables it passes or the folder it runs in is a different program and must
be asked about again -- and so is one whose ``sandbox`` is loosened (network,
off): consent to a confined server is not consent to an unconfined one.  The
strict default is left out, so consents given before ``sandbox`` existed hold.
Environment *values* are left out on purpose: they may
be secrets (which must never be stored in the consent list) and they do not
change which program runs.
"""

from __future__ import annotations

import hashlib
import json

from relavium_desktop.host.mcp.config import StdioServer


def stdio_fingerprint(entry: StdioServer) -> str:
    """sha256 hex of the canonical JSON ``{command, args, env names sorted, cwd}`` (+ a loosened ``sandbox``)."""
    launch: dict[str, object] = {
        "command": entry.command,
        "args": list(entry.args),
        "env": sorted(entry.env),
        "cwd": entry.cwd,
    }
    if entry.sandbox not in (None, "strict"):
        launch["sandbox"] = entry.sandbox
    canonical = json.dumps(
        launch,
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
