"""mcp.yaml as the user edits it, and the consents given to servers that workflows and agent files declare.

Settings -> MCP servers lists, adds, changes and removes the servers of
mcp.yaml through :class:`McpYamlEditor` (an edit keeps the user's comments;
a broken file is refused, never rewritten) and shows the stored consents a
stdio server from a workflow needed before it could start.  The surface
takes the editor, the server entry types, the file's error and the consent
types from here; the MCP host stays behind the application layer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from relavium_desktop.host.mcp.config import HttpServer, McpConfigError, StdioServer
from relavium_desktop.host.mcp.editing import McpYamlEditor

if TYPE_CHECKING:
    from relavium_desktop.store.mcp_consents import McpConsent, McpConsentStore

__all__ = ["HttpServer", "McpConfigError", "McpConsent", "McpConsentStore", "McpYamlEditor", "StdioServer"]
