"""Which tool ids resolve to something, so an id that resolves to nothing is a validation error.

A tool id in a workflow or agent is *known* when it is a built-in, an enabled
plugin's tool, an http tool the same file declares, or ``mcp_<server>_<tool>``
for a configured MCP server.  MCP tools are discovered at run time (a server
may be down while a workflow is validated), so for them the check is the
server part only: ``mcp_github_anything`` is known when ``github`` is
configured, and a typo in the server name is caught before the run.

The old ``mcp:`` prefix is not an exemption any more: it named nothing at run
time and silently vanished.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def mcp_prefix(server: str) -> str:
    """``mcp_<server>_`` with the server name made id-safe the way MCP tool ids are."""
    return f"mcp_{_UNSAFE.sub('_', server)}_"


@dataclass(frozen=True, slots=True)
class KnownTools:
    """A ``Collection[str]`` of tool ids, plus the MCP servers whose ``mcp_<server>_*`` ids resolve.

    Iterating and ``len`` cover the plain ids only (the MCP part is a rule, not a list).
    """

    ids: frozenset[str] = frozenset()
    mcp_servers: frozenset[str] = frozenset()
    _prefixes: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_prefixes", tuple(sorted(mcp_prefix(s) for s in self.mcp_servers)))

    def __contains__(self, tool_id: object) -> bool:
        if not isinstance(tool_id, str):
            return False
        if tool_id in self.ids:
            return True
        return any(tool_id.startswith(p) and len(tool_id) > len(p) for p in self._prefixes)

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self.ids))

    def __len__(self) -> int:
        return len(self.ids)

    def with_ids(self, extra: Iterable[str]) -> KnownTools:
        """The same set plus ``extra`` (a file's own http tools)."""
        return KnownTools(self.ids | frozenset(extra), self.mcp_servers)

    def with_servers(self, extra: Iterable[str]) -> KnownTools:
        """The same set plus MCP servers a workflow declares itself."""
        return KnownTools(self.ids, self.mcp_servers | frozenset(extra))


def as_known(known: Iterable[str]) -> KnownTools:
    """``known`` as a KnownTools (a plain list of ids knows no MCP server)."""
    return known if isinstance(known, KnownTools) else KnownTools(frozenset(known))
