"""What a ``relavium.tools`` plugin exports, and how its tools become registry tools.

A plugin is a Python distribution with an entry point in the group
``relavium.tools``; the entry point names a :class:`PluginTool` or a list of
them.  Each tool declares:

- ``name``, ``description`` and ``args_model`` (a pydantic model: the schema
  the model sees and the validator the registry runs);
- ``action``: the governed class it belongs to (``read``, ``fs_write``,
  ``process``, ``egress``, ``os``) -- the approval regime asks about it like
  a built-in of that class;
- ``capabilities``: the ToolHost capabilities its handler may use, from
  :data:`CAPABILITIES`.  The handler gets a :class:`PluginCaps` in which every
  capability it did not declare is ``None``, so a plugin cannot reach the
  process runner by declaring only ``fs``.  The ones it did declare keep the
  workflow's guardrails: ``fs`` is the host's path-policed capability, each
  ``process`` spawn must match ``allowedCommands`` and its env ``allowedEnv``
  like run_command (and git
  is not offered: git_commit's gate cannot be enforced through it), each
  ``egress`` fetch must pass ``allowedDomains`` like http_request;
- ``handler(args, caps)``: async, returns a JSON-able value.

Tool ids are ``plugin_<name>``: a plugin can never take a built-in's id (no
built-in starts with ``plugin_``), nor an MCP tool's (``mcp_``), and the id
says where the tool comes from in every approval prompt and event.  Two
plugins exporting the same name clash; the second is refused.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

from relavium_desktop.engine.errors import DenyReason, ToolDeniedError
from relavium_desktop.engine.host import (
    EgressCapability,
    EgressRequest,
    FsCapability,
    OsCapability,
    OutputStore,
    ProcessCapability,
    SpawnOptions,
    ToolHost,
)
from relavium_desktop.engine.jsontypes import JsonDict
from relavium_desktop.engine.tools.command_policy import check_command
from relavium_desktop.engine.tools.domain_policy import check_url
from relavium_desktop.engine.tools.env_policy import check_declared_env
from relavium_desktop.engine.tools.tooldef import PolicyClass, ToolDef, ToolDispatchContext, ToolPolicy

CAPABILITIES: frozenset[str] = frozenset({"fs", "process", "egress", "os", "output_store"})
PluginAction = Literal["read", "fs_write", "process", "egress", "os"]
PLUGIN_PREFIX = "plugin_"
_NAME_RE = re.compile(r"^[a-z][a-z0-9_]{0,47}$")

_POLICY: dict[str, PolicyClass] = {
    "read": PolicyClass(),
    "fs_write": PolicyClass(fs_scoped=True, fs_write=True),
    "process": PolicyClass(spawns_process=True),
    "egress": PolicyClass(egress="http"),
    "os": PolicyClass(os=True),
}


@dataclass(frozen=True, slots=True)
class PluginCaps:
    """The host capabilities a plugin declared; every other one is None."""

    fs: FsCapability | None = None
    process: ProcessCapability | None = None
    egress: EgressCapability | None = None
    os: OsCapability | None = None
    output_store: OutputStore | None = None
    run_id: str = ""


PluginHandler = Callable[[Any, PluginCaps], Awaitable[Any]]


@dataclass(frozen=True, slots=True)
class PluginTool:
    """One tool a plugin exports (see the module docstring for each field's meaning)."""

    name: str
    description: str
    args_model: type[BaseModel]
    handler: PluginHandler
    action: PluginAction = "read"
    capabilities: tuple[str, ...] = ()


class PluginRefused(Exception):
    """A plugin tool that cannot be offered; the message says why, for the plugin list."""


class _GuardedProcess:
    """The host's process capability behind the workflow's command allowlist (run_command's rule)."""

    def __init__(self, inner: ProcessCapability, policy: ToolPolicy, tool: str) -> None:
        self._inner, self._policy, self._tool = inner, policy, tool

    async def spawn(
        self, command: str, args: Sequence[str], declared_env: Mapping[str, str], opts: SpawnOptions
    ) -> JsonDict:
        check_command((command, *args), self._policy)
        # The workflow's allowedEnv and sandbox, never ones the plugin put in its own options.
        allowed = tuple(self._policy.allowed_env or ())
        check_declared_env(self._tool, declared_env, allowed=allowed)
        opts = dataclasses.replace(opts, allowed_env=allowed, sandbox=self._policy.sandbox)
        return await self._inner.spawn(command, args, declared_env, opts)

    async def git(self, args: Sequence[str], opts: SpawnOptions) -> JsonDict:
        raise ToolDeniedError(f"{self._tool}: plugins cannot run git (use the git tools)",
                              reason=DenyReason.COMMAND_NOT_ALLOWED)


class _GuardedEgress:
    """The host's egress capability behind the workflow's domain allowlist (http_request's rule)."""

    def __init__(self, inner: EgressCapability, policy: ToolPolicy, tool: str) -> None:
        self._inner, self._policy, self._tool = inner, policy, tool

    async def fetch(self, request: EgressRequest) -> JsonDict:
        allowed = tuple(self._policy.allowed_domains or ())
        check_url(request.url, allowed, tool=self._tool)
        return await self._inner.fetch(dataclasses.replace(request, allowed_domains=allowed, allow_local=False))


def plugin_tool_id(name: str) -> str:
    return PLUGIN_PREFIX + name


def check_plugin_tool(tool: object) -> PluginTool:
    """``tool`` if it is a well-formed PluginTool, else PluginRefused with the reason."""
    if not isinstance(tool, PluginTool):
        raise PluginRefused(f"exports {type(tool).__name__}, not a PluginTool")
    if not _NAME_RE.match(tool.name):
        raise PluginRefused(f"tool name {tool.name!r} must be lower-case letters, digits and _ (at most 48)")
    if not (isinstance(tool.args_model, type) and issubclass(tool.args_model, BaseModel)):
        raise PluginRefused(f"tool {tool.name!r}: args_model is not a pydantic model")
    if tool.action not in _POLICY:
        raise PluginRefused(f"tool {tool.name!r}: unknown action class {tool.action!r}")
    unknown = sorted(set(tool.capabilities) - CAPABILITIES)
    if unknown:
        raise PluginRefused(f"tool {tool.name!r} declares unknown capabilit{'y' if len(unknown) == 1 else 'ies'} "
                            f"{', '.join(map(repr, unknown))} (known: {', '.join(sorted(CAPABILITIES))})")
    if not callable(tool.handler):
        raise PluginRefused(f"tool {tool.name!r}: handler is not callable")
    return tool


def make_plugin_tool(tool: PluginTool) -> ToolDef:
    """A registry ToolDef (source ``plugin``, id ``plugin_<name>``) for a checked PluginTool."""
    declared = frozenset(tool.capabilities)

    async def _dispatch(args: BaseModel, host: ToolHost, ctx: ToolDispatchContext) -> Any:
        tool_id = plugin_tool_id(tool.name)
        process = host.process if "process" in declared else None
        egress = host.egress if "egress" in declared else None
        caps = PluginCaps(
            fs=host.fs if "fs" in declared else None,
            process=_GuardedProcess(process, ctx.policy, tool_id) if process is not None else None,
            egress=_GuardedEgress(egress, ctx.policy, tool_id) if egress is not None else None,
            os=host.os if "os" in declared else None,
            output_store=host.output_store if "output_store" in declared else None,
            run_id=ctx.run_id,
        )
        return await tool.handler(args, caps)

    return ToolDef(
        id=plugin_tool_id(tool.name),
        description=tool.description,
        args_model=tool.args_model,
        dispatch=_dispatch,
        source="plugin",
        policy=_POLICY[tool.action],
    )
