"""Desktop dialogs for what MCP servers ask of the client, and the hooks that open them."""
