"""Structured values as text a person reads: the one renderer for arguments and outputs.

Tool arguments in the permission dialog, node outputs in Workflows and the
payload a gate asks about are JSON-shaped; shown as JSON they put a file's
content on one line full of ``\\n``.  Here strings stay text (multi-line ones
as an indented block), mappings become "key: value" lines and lists bullets.
Callers mask what they pass in: this module only lays it out.
"""

from __future__ import annotations

from typing import Any

INDENT = "  "


def readable(value: Any, depth: int = 0) -> str:
    """``value`` as plain, indented text: strings verbatim, mappings as key: value, lists as bullets."""
    pad = INDENT * depth
    if value is None:
        return f"{pad}(empty)"
    if isinstance(value, str):
        return "\n".join(pad + line for line in value.strip("\n").splitlines()) or f"{pad}(empty text)"
    if isinstance(value, bool):
        return pad + ("yes" if value else "no")
    if isinstance(value, int | float):
        return f"{pad}{value}"
    if isinstance(value, dict):
        if not value:
            return f"{pad}(nothing)"
        lines = []
        for key, item in value.items():
            if (isinstance(item, dict | list) and item) or (isinstance(item, str) and "\n" in item.strip("\n")):
                lines.append(f"{pad}{key}:")
                lines.append(readable(item, depth + 1))
            else:
                lines.append(f"{pad}{key}: {readable(item).strip()}")
        return "\n".join(lines)
    if isinstance(value, list):
        if not value:
            return f"{pad}(none)"
        bullets = []
        for item in value:
            body = readable(item, depth + 1).lstrip()
            bullets.append(f"{pad}• {body}")
        return "\n".join(bullets)
    return f"{pad}{value}"


# What a tool does, as a person names it (Settings → Permissions' Tool column); the id stays in the tooltip.
TOOL_NAMES = {
    "read_file": "Reading files",
    "write_file": "Writing files",
    "list_directory": "Listing folders",
    "run_command": "Running commands",
    "http_request": "Web requests",
    "web_search": "Web search",
    "git_status": "Git status",
    "git_commit": "Git commits",
    "read_clipboard": "Reading the clipboard",
    "notify": "Notifications",
    "invoke_agent": "Asking another agent",
    "read_media": "Looking at images",
}


def tool_name(tool_id: str) -> str:
    """``tool_id`` in words: a built-in by what it does, an MCP or plugin tool by its own name."""
    if tool_id in TOOL_NAMES:
        return TOOL_NAMES[tool_id]
    if tool_id.startswith("mcp_"):
        return "MCP tool " + tool_id[4:].replace("_", " ")
    if tool_id.startswith("plugin_"):
        return "Plugin tool " + tool_id[7:].replace("_", " ")
    return tool_id.replace("_", " ").capitalize()
