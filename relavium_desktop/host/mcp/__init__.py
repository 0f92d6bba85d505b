"""The MCP host: ``mcp_call`` reaches user-configured MCP servers through here.

- :mod:`.config` -- the server registry (``mcp.yaml`` / an injected mapping), strict;
- :mod:`.stdio` -- a server as a shell-free child in the process host's built env (its whole
  tree killed on stop, a malformed line failing pending calls at once);
- :mod:`.http` -- Streamable HTTP through the SSRF-guarded, address-pinned client;
- :mod:`.connection` -- one session owned by its own task for the host's life;
- :mod:`.results` -- a ``CallToolResult`` as JSON (binary anywhere, ``structuredContent`` included,
  as media handles), ``isError`` as ``tool_failed``;
- :mod:`.client_callbacks` -- roots, elicitation, sampling and log messages of one session;
- :mod:`.hooks` -- what a surface lends the client (forms, its model, a consent prompt);
- :mod:`.fingerprint` -- the identity of a stdio launch that consent is given to;
- :mod:`.discovery` -- per-server reports of tools (allowlisted; broken, nameless or task-only
  ones skipped with a reason), resources and prompts;
- :mod:`.host` -- :class:`McpHost`, the engine's ``McpCapability``.
"""

from relavium_desktop.host.mcp.config import McpConfigError, load_servers, parse_servers
from relavium_desktop.host.mcp.host import McpHost

__all__ = ["McpConfigError", "McpHost", "load_servers", "parse_servers"]
