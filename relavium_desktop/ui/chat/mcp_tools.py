"""The MCP servers' tools, resources and prompts as the chat sees them, discovered off the first paint.

Discovery starts a server (stdio) or connects to it (HTTP) and lists what it
offers; a server that hangs in its handshake must never hold up the window,
so discovery is an asyncio task started after the first paint, every server
under its own timeout (``McpHost.discover``), and the window keeps turning
while it waits.  What was found is kept here -- the tool definitions the
chat's registry adds to the built-in ones, and one ``ServerReport`` per
server for the status line, the composer's resource menu and its slash
prompts -- and ``changed`` tells the chat when it changes.

Discovery runs again when ``$RELAVIUM_HOME/mcp.yaml`` changes (saved in
Settings, by hand, by the CLI) or the project changes: a stdio server's
working folder and every server's roots are the project's.

The host used to discover stays open after discovery and answers the
composer's ``read_resource`` / ``get_prompt``: those servers are already
started, and a resource read is no model tool call.  Tool calls go through
the chat session's own host (``ChatBackend.registry``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relavium_desktop.ui.error_text import error_text
from relavium_desktop.ui.qt import QFileSystemWatcher, QObject, QTimer, Signal

if TYPE_CHECKING:
    import asyncio

    from relavium_desktop.engine.host import McpCapability, ToolHost
    from relavium_desktop.engine.tools.tooldef import ToolDef

log = logging.getLogger(__name__)

MCP_FILE = "mcp.yaml"
# A server that has not answered its handshake and listing by then is reported unavailable.
DISCOVERY_TIMEOUT_S = 15.0
# Saves arrive as a burst of file and folder events (write, rename): look once they settle.
SETTLE_MS = 250


@dataclass(frozen=True, slots=True)
class McpStatus:
    """The status line's words, its tone (theme) and the tooltip with each server's details."""

    text: str
    tone: str | None
    details: str


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def status_of(reports: Sequence[Any], *, running: bool, refused: Sequence[Any] = ()) -> McpStatus:
    """``MCP: 3 tools from 'files' · 'docs' unavailable: <reason>``; empty when no server is configured."""
    if not reports:
        return McpStatus("MCP: connecting to servers…" if running else "", "muted" if running else None, "")
    ok = [r for r in reports if r.ok]
    down = [r for r in reports if not r.ok]
    parts: list[str] = []
    if ok:
        tools = sum(len(r.tools) for r in ok)
        names = ", ".join(f"'{r.server}'" for r in ok)
        parts.append(f"{_plural(tools, 'tool')} from {names}")
    from relavium_desktop.ui.mcp.sign_in import server_needing_sign_in

    for report in down:
        reason = (report.error or "no reason given").splitlines()[0]
        if server_needing_sign_in(reason) == report.server:
            parts.append(f"'{report.server}' needs you to sign in")  # the sign-in offer below says how
            continue
        parts.append(f"'{report.server}' unavailable: {reason[:120]}")
    text = "MCP: " + " · ".join(parts) + (" (refreshing…)" if running else "")
    lines = []
    for report in reports:
        if report.ok:
            extra = [_plural(len(report.tools), "tool")]
            if report.resources:
                extra.append(_plural(len(report.resources), "resource"))
            if report.prompts:
                extra.append(_plural(len(report.prompts), "prompt"))
            took = f" in {report.latency_ms} ms" if report.latency_ms is not None else ""
            listed = ", ".join(t.name for t in report.tools)
            lines.append(f"{report.server}: {', '.join(extra)}{took}" + (f"\n    {listed}" if listed else ""))
        else:
            lines.append(f"{report.server}: unavailable: {report.error or 'no reason given'}")
    # A tool the chat could not offer (an unusable schema, an id taken by a built-in) says so here.
    lines += [f"{t.server}: tool {t.name!r} left out: {t.reason}" for t in refused]
    return McpStatus(text, "warning" if down else "muted", "\n".join(lines))


class ChatMcp(QObject):
    """Discovered MCP tools and server reports for the chat, refreshed as mcp.yaml and the project change."""

    changed = Signal()

    def __init__(
        self,
        context: Any,
        home: Path,
        *,
        hooks: Callable[[], Any] | None = None,
        extra_roots: Callable[[str], tuple[Path, ...]] | None = None,
        timeout_s: float = DISCOVERY_TIMEOUT_S,
    ) -> None:
        super().__init__(context)
        self.context = context
        self.home = home
        # MCP-UI's client hooks (consent, elicitation, sampling dialogs), asked for per host built.
        self.hooks: Callable[[], Any] = hooks or (lambda: None)
        self.extra_roots: Callable[[str], tuple[Path, ...]] = extra_roots or (lambda _p: ())
        self.timeout_s = timeout_s
        self.tools: tuple[ToolDef, ...] = ()
        self.reports: tuple[Any, ...] = ()
        self.refused: tuple[Any, ...] = ()  # tools a server listed that the chat cannot offer, with why
        self.running = False
        self.needs_project = False  # servers are configured but there is no project to start them in
        self.discoveries = 0  # finished discoveries (tests and the bench wait on it)
        self._task: asyncio.Task[Any] | None = None
        self._host: ToolHost | None = None
        self._project = ""
        self._stamp: object = None
        self._watcher: QFileSystemWatcher | None = None
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(SETTLE_MS)
        self._settle.timeout.connect(self._check_file)
        context.project_changed.connect(lambda _project: self.refresh())

    # -- what the chat reads ---------------------------------------------------------

    def tool_ids(self) -> list[str]:
        return [tool.id for tool in self.tools]

    def status(self) -> McpStatus:
        if self.needs_project and not self.running:
            return McpStatus("MCP: servers start once a project is chosen", "muted",
                             f"{MCP_FILE} names MCP servers; they run in the project folder, so none is started yet.")
        return status_of(self.reports, running=self.running, refused=self.refused)

    def resources(self) -> list[Any]:
        return [res for report in self.reports if report.ok for res in report.resources]

    def prompts(self) -> list[Any]:
        return [prompt for report in self.reports if report.ok for prompt in report.prompts]

    def roots(self, project: str) -> tuple[Path, ...]:
        """The folders MCP servers are told they may work in: the project and the folders granted to it."""
        return (Path(project), *self.extra_roots(project)) if project else ()

    # -- discovery -------------------------------------------------------------------

    def start(self) -> None:
        """Watch mcp.yaml and discover: call after the first paint (the task runs on the qasync loop)."""
        if self._watcher is None:
            self._watch()
            self._stamp = self._file_stamp()
        QTimer.singleShot(0, self.refresh)

    def refresh(self) -> None:
        """Discover again (an earlier discovery still running is cancelled)."""
        from relavium_desktop.ui.tasks import spawn

        if self._task is not None and not self._task.done():
            self._task.cancel()
        self.running = True
        self.changed.emit()
        self._task = spawn(self._discover(self.context.project))

    async def _discover(self, project: str) -> None:
        import asyncio

        from relavium_desktop.application.hosting import close_mcp

        old, self._host = self._host, None
        if old is not None:
            await close_mcp(old)
        tools: tuple[ToolDef, ...] = ()
        reports: tuple[Any, ...] = ()
        refused: tuple[Any, ...] = ()
        try:
            if project and self._configured():
                # The hooks are Qt objects and the grants live in history.db: both are read here,
                # on the loop's (GUI) thread; only the pinning runs in the worker.
                host = await asyncio.to_thread(self._build_host, project, self.hooks(), self.extra_roots(project))
                self._host = host
                from relavium_desktop.application.mcp import discover_mcp
                from relavium_desktop.application.tools import tool_registry

                # The built-ins and this data folder's enabled plugins' tools: ids an MCP tool may not take.
                reserved = tool_registry(home=self.home).ids()
                found = await discover_mcp(host, self.timeout_s, reserved=reserved)
                tools, reports, refused = tuple(found.tools), tuple(found.reports), tuple(found.refused)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - discovery must never take the chat down
            log.warning("MCP discovery failed: %s", exc)
            from relavium_desktop.engine.mcp_reports import ServerReport

            reports = (ServerReport(server=MCP_FILE, origin="user", ok=False, error=error_text(exc, limit=300)),)
        self._project = project
        self.needs_project = not project and self._configured()
        self.tools, self.reports, self.refused = tools, reports, refused
        self.running = False
        self.discoveries += 1
        self.changed.emit()

    def _configured(self) -> bool:
        """Whether mcp.yaml exists: with no file there is nothing to start and nothing to show."""
        return (self.home / MCP_FILE).is_file()

    def _build_host(self, project: str, hooks: Any, extra_roots: tuple[Path, ...]) -> ToolHost:
        from relavium_desktop.application.tools import surface_host

        return surface_host(Path(project), surface="chat", extra_roots=extra_roots, home=self.home,
                            mcp_hooks=hooks, mcp_roots=(Path(project), *extra_roots))

    def set_roots(self, project: str) -> None:
        """Tell the open servers about the project's current roots (a folder was granted or revoked)."""
        if self._host is None or project != self._project:
            return
        self._host.mcp_or_absent().set_roots([str(root) for root in self.roots(project)])

    # -- resources and prompts (the composer's) ------------------------------------------

    def _mcp(self) -> McpCapability:
        if self._host is None or self._host.mcp is None:
            raise RuntimeError("no MCP server is connected; choose a project and check Settings → MCP servers")
        return self._host.mcp_or_absent()

    async def read_resource(self, server: str, uri: str) -> str:
        """The resource's text, for the composer (binary parts are named, never pasted)."""
        contents = await self._mcp().read_resource(server, uri)
        return resource_text(contents)

    async def get_prompt(self, server: str, name: str, arguments: Mapping[str, str]) -> str:
        """The prompt's messages as one text, for the composer."""
        messages = await self._mcp().get_prompt(server, name, dict(arguments))
        return "\n\n".join(str(m.get("text", "")) for m in messages if m.get("text"))

    # -- mcp.yaml -------------------------------------------------------------------------

    def _watch(self) -> None:
        watcher = QFileSystemWatcher(self)
        # The folder too: a save replaces the file (atomic rename), which ends a file watch,
        # and a file that does not exist yet cannot be watched at all.
        self.home.mkdir(parents=True, exist_ok=True)
        watcher.addPath(str(self.home))
        path = self.home / MCP_FILE
        if path.exists():
            watcher.addPath(str(path))
        watcher.fileChanged.connect(lambda _p: self._settle.start())
        watcher.directoryChanged.connect(lambda _p: self._settle.start())
        self._watcher = watcher

    def _file_stamp(self) -> object:
        try:
            st = (self.home / MCP_FILE).stat()
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def _check_file(self) -> None:
        path = self.home / MCP_FILE
        watcher = self._watcher
        if watcher is not None and path.exists() and str(path) not in watcher.files():
            watcher.addPath(str(path))
        stamp = self._file_stamp()
        if stamp != self._stamp:
            self._stamp = stamp
            self.refresh()

    async def aclose(self) -> None:
        """Stop discovery and end the servers it started."""
        from relavium_desktop.application.hosting import close_mcp

        if self._task is not None and not self._task.done():
            self._task.cancel()
        host, self._host = self._host, None
        if host is not None:
            await close_mcp(host)


def resource_text(contents: Any) -> str:
    """``read_resource``'s answer as text: text parts joined, a binary part named by type and size."""
    items = contents.get("contents") if isinstance(contents, dict) else contents
    if not isinstance(items, list):
        items = [contents]
    texts: list[str] = []
    for item in items:
        if not isinstance(item, dict):
            texts.append(str(item))
        elif isinstance(item.get("text"), str):
            texts.append(item["text"])
        else:
            kind = item.get("mimeType") or item.get("type") or "binary"
            size = item.get("bytes")
            texts.append(f"[{kind} content{f', {size} bytes' if size is not None else ''} not included]")
    return "\n".join(texts)


def attachment(server: str, uri: str, text: str) -> str:
    """The text a resource adds to the message, its source named so the model and the user see it."""
    return f"Resource {uri} (from MCP server '{server}'):\n```\n{text}\n```\n"
