"""The thirteen built-in tools, one module each."""

from __future__ import annotations

from relavium_desktop.engine.tools.builtins import (
    git_commit,
    git_status,
    http_request,
    invoke_agent,
    list_directory,
    mcp_call,
    notify,
    read_clipboard,
    read_file,
    read_media,
    run_command,
    web_search,
    write_file,
)
from relavium_desktop.engine.tools.tooldef import ToolDef

BUILTIN_TOOLS: tuple[ToolDef, ...] = tuple(
    m.TOOL
    for m in (
        read_file,
        write_file,
        list_directory,
        run_command,
        http_request,
        web_search,
        git_status,
        git_commit,
        read_clipboard,
        notify,
        mcp_call,
        invoke_agent,
        read_media,
    )
)

__all__ = ["BUILTIN_TOOLS"]
