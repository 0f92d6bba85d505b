"""What a running MCP server may ask of the user, and the answers a surface gives back.

Consent before a stdio server is launched, an elicitation (a form the server
wants filled), a sampling request (the server asks the user's model to
write): the window shows each as a dialog, the CLI declines or refuses on
the command line.  Surfaces take these plain request and answer types from
here; the MCP host that raises them stays behind the application layer.
Importing this module loads the MCP host, so a surface imports it where a
request is answered, and names the types under ``TYPE_CHECKING`` otherwise.
"""

from __future__ import annotations

from relavium_desktop.host.mcp.hooks import (
    ConsentRequest,
    ElicitationAnswer,
    ElicitationRequest,
    McpClientHooks,
    SamplingAnswer,
    SamplingRequest,
)

__all__ = [
    "ConsentRequest",
    "ElicitationAnswer",
    "ElicitationRequest",
    "McpClientHooks",
    "SamplingAnswer",
    "SamplingRequest",
]
