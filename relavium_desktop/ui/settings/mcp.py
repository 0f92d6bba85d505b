"""Settings → MCP servers: the servers of mcp.yaml, their health and tools, and workflow consents.

The page edits ``$RELAVIUM_HOME/mcp.yaml`` -- the file the CLI and every
workflow read -- through :class:`McpYamlEditor`, so comments a user wrote
survive and nothing invalid is ever written.  When the file changes on disk
(``relavium`` commands, an editor) the page is rebuilt from it; a file that
does not load is shown with its error and an offer to open it, never a crash.

"Test" connects to one server, lists its tools, resources and prompts and
measures the time, on a host built for that test and closed right after.
It runs as a task on the qasync loop: a server that hangs costs its own
timeout, never a frozen window.  The tool list it returns is what the
allowlist checkboxes offer; all checked means no allowlist at all, so a tool
the server adds later is offered too.

The consents are the answers given to workflow-declared stdio servers
("start this program?") per project; revoking one makes it ask again.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relavium_desktop.application.mcp_settings import HttpServer, McpConfigError, McpYamlEditor, StdioServer
from relavium_desktop.ui.error_text import error_text
from relavium_desktop.ui.mcp.server_dialog import ServerDialog
from relavium_desktop.ui.mcp.sign_in import McpSignIn, SignInPanel, server_needing_sign_in, window_sign_in
from relavium_desktop.ui.qt import (
    QAbstractItemView,
    QCheckBox,
    QDesktopServices,
    QFileSystemWatcher,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSplitter,
    Qt,
    QTableWidget,
    QTableWidgetItem,
    QUrl,
    QVBoxLayout,
    QWidget,
    Signal,
)
from relavium_desktop.ui.runs.local_time import full_local, parse_wire_time, short_local
from relavium_desktop.ui.tasks import spawn
from relavium_desktop.ui.theme import set_surface, set_tone
from relavium_desktop.ui.theme.icons import icon
from relavium_desktop.ui.theme.tokens import PAD_MAIN

if TYPE_CHECKING:
    from relavium_desktop.application.mcp_auth import ServerAuthState
    from relavium_desktop.application.mcp_settings import McpConsent, McpConsentStore
    from relavium_desktop.engine.mcp_reports import ServerReport
    from relavium_desktop.ui.context import AppContext

TEST_TIMEOUT_S = 15.0
TOOL_COLUMNS = 3  # the allowlist's checkboxes, in rows of this many
CONSENT_COLUMNS = ("Project", "Server", "Command", "Allowed")
TRANSPORT_WORDS = {"stdio": "program (stdio)", "http": "URL (http)"}


# A program's sandbox, said beside its transport ("off" is the one worth a second look).
SANDBOX_ROW_WORDS = {"strict": " · sandbox: strict", "network": " · sandbox: network", "off": " · unsandboxed"}


def _sandbox_words(entry: Any) -> str:
    """How this server's program is confined (a URL server runs elsewhere: nothing to say)."""
    if entry.transport != "stdio":
        return ""
    return SANDBOX_ROW_WORDS.get(entry.sandbox_for("user"), "")


def open_in_editor(path: Path) -> None:
    QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))


def describe_entry(entry: StdioServer | HttpServer) -> str:
    """The launch line or URL, as a person reads it."""
    if isinstance(entry, StdioServer):
        import shlex

        line = shlex.join([entry.command, *entry.args])
        extra = []
        if entry.env:
            extra.append("env: " + ", ".join(sorted(entry.env)))
        if entry.cwd:
            extra.append(f"in {entry.cwd}")
        return line + (f"   ({'; '.join(extra)})" if extra else "")
    parts = [entry.url]
    if entry.credential_ref:
        parts.append(f"credential {entry.credential_ref}")
    if entry.allow_local:
        parts.append("local address allowed")
    return "   ·   ".join(parts)


def health_text(report: ServerReport | None, testing: bool) -> tuple[str, str, str]:
    """``(text, tone, icon name)`` of a server's health line."""
    if testing:
        return "Testing…", "muted", "clock"
    if report is None:
        return "Not tested yet. Test connects, lists the tools and measures the time.", "muted", "info"
    if not report.ok and server_needing_sign_in(report.error) == report.server:
        return "Needs sign-in: the server answered that you must sign in first (Sign in, below).", "warning", "warning"
    if not report.ok:
        return f"Failing: {report.error or 'no reason given'}", "danger", "warning"
    latency = f" in {report.latency_ms} ms" if report.latency_ms is not None else ""
    offered, total = len(report.tools), len(report.all_tool_names)
    tools = f"{total} tool{'s' if total != 1 else ''}"
    if offered != total:
        tools += f" ({offered} offered)"
    return f"Working: answered{latency}, {tools}", "success", "check"


# The list row's short sign-in words (the detail says who and until when).
SIGN_IN_ROW_WORDS = {"needs_sign_in": " · needs sign-in", "expired": " · needs sign-in", "signed_in": " · signed in"}


def may_sign_in(entry: StdioServer | HttpServer) -> bool:
    """Whether this server could ask for a browser sign-in (a URL, no stored key, sign-in not turned off)."""
    return isinstance(entry, HttpServer) and entry.credential_ref is None and entry.oauth is not False


class McpServersPage(QWidget):
    changed = Signal()  # the list was rebuilt from the file (an edit here or outside)
    tested = Signal(str, object)  # server name, ServerReport

    def __init__(self, context: AppContext, *, home: Path | None = None,
                 opener: Callable[[Path], None] = open_in_editor) -> None:
        super().__init__()
        self.context = context
        self.home = home if home is not None else context.app.paths.home
        self.editor = McpYamlEditor(self.home)
        self.opener = opener
        self.servers: dict[str, StdioServer | HttpServer] = {}
        self.reports: dict[str, ServerReport] = {}
        self.testing: set[str] = set()
        self.tool_boxes: dict[str, QCheckBox] = {}
        self.consents: list[McpConsent] = []
        self._consent_error: str | None = None
        self._stamp: object = None
        self.server_dialog: ServerDialog | None = None
        self.confirm_box: QMessageBox | None = None
        self.confirm_remove_button: QPushButton | None = None
        # Sign-in to remote servers: the window's one controller, so the chat hears of a new sign-in too.
        same_home = Path(self.home) == Path(context.app.paths.home)
        self.sign_in: McpSignIn = window_sign_in(context) if same_home else McpSignIn(self.home, self)
        self.auth_states: dict[str, ServerAuthState] = {}
        self.auth_reads = 0  # finished reads of the sign-in states (tests wait on it)
        self._auth_asked = 0
        self.sign_in.changed.connect(lambda _server: self.refresh_sign_ins())
        self.sign_in.finished.connect(lambda *_: self.refresh_sign_ins())

        intro = QLabel(
            "MCP servers give models extra tools. They are kept in mcp.yaml in the Relavium data folder, "
            "which the relavium command line and workflows read too."
        )
        intro.setWordWrap(True)
        self.add_button = QPushButton("Add server")
        self.add_button.setObjectName("mcpAddServer")
        self.open_button = QPushButton("Open mcp.yaml")
        for b in (self.add_button, self.open_button):
            b.setAutoDefault(False)
        self.add_button.clicked.connect(self.open_add_dialog)
        self.open_button.clicked.connect(lambda: self.opener(self.editor.path))
        top = QHBoxLayout()
        top.addWidget(intro, 1)
        top.addWidget(self.open_button)
        top.addWidget(self.add_button)

        self.file_error = QLabel()
        self.file_error.setObjectName("mcpFileError")
        self.file_error.setWordWrap(True)
        self.file_error.setTextFormat(Qt.TextFormat.PlainText)
        set_surface(self.file_error, "banner-danger")
        self.file_error.setVisible(False)

        # -- the list, and the selected server's details --
        self.server_list = QListWidget()
        self.server_list.setObjectName("mcpServerList")
        self.server_list.currentItemChanged.connect(lambda *_: self._show_selected())
        self.empty = QLabel("No MCP servers yet. Choose “Add server” and give the command that starts one "
                            "(from its README), or the URL of a remote server.")
        self.empty.setObjectName("mcpEmpty")
        self.empty.setWordWrap(True)
        set_tone(self.empty, "muted")
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.server_list, 1)
        left_layout.addWidget(self.empty)

        self.detail = QWidget()
        self.detail.setObjectName("mcpServerDetail")
        self.title = QLabel()
        set_tone(self.title, "heading")
        self.summary = QLabel()
        self.summary.setObjectName("mcpServerSummary")
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        set_surface(self.summary, "code")
        self.health_icon = QLabel()
        self.health = QLabel()
        self.health.setObjectName("mcpHealth")
        self.health.setWordWrap(True)
        self.health.setTextFormat(Qt.TextFormat.PlainText)
        health_row = QHBoxLayout()
        health_row.addWidget(self.health_icon, 0, Qt.AlignmentFlag.AlignTop)
        health_row.addWidget(self.health, 1)
        self.test_button = QPushButton("Test")
        self.test_button.setObjectName("mcpTest")
        self.edit_button = QPushButton("Edit…")
        self.remove_button = QPushButton("Remove…")
        for b in (self.test_button, self.edit_button, self.remove_button):
            b.setAutoDefault(False)
        self.test_button.clicked.connect(lambda: self.test_server(self.selected() or ""))
        self.edit_button.clicked.connect(lambda: self.open_edit_dialog(self.selected() or ""))
        self.remove_button.clicked.connect(lambda: self.confirm_remove(self.selected() or ""))
        actions = QHBoxLayout()
        actions.addWidget(self.test_button)
        actions.addWidget(self.edit_button)
        actions.addStretch(1)
        actions.addWidget(self.remove_button)

        self.tools_box = QGroupBox("Tools offered to models")
        self.tools_hint = QLabel()
        self.tools_hint.setWordWrap(True)
        set_tone(self.tools_hint, "muted")
        self.tools_grid = QWidget()
        self.tools_layout = QGridLayout(self.tools_grid)
        self.tools_layout.setContentsMargins(0, 0, 0, 0)
        tools_layout = QVBoxLayout(self.tools_box)
        tools_layout.addWidget(self.tools_hint)
        tools_layout.addWidget(self.tools_grid)
        self.tools_status = QLabel()
        self.tools_status.setWordWrap(True)
        self.tools_status.setTextFormat(Qt.TextFormat.PlainText)
        tools_layout.addWidget(self.tools_status)

        self.resources_list = QListWidget()
        self.resources_list.setObjectName("mcpResources")
        self.prompts_list = QListWidget()
        self.prompts_list.setObjectName("mcpPrompts")
        lists = QHBoxLayout()
        for caption, widget in (("Resources", self.resources_list), ("Prompts", self.prompts_list)):
            box = QGroupBox(caption)
            inner = QVBoxLayout(box)
            inner.addWidget(widget)
            widget.setMaximumHeight(140)
            lists.addWidget(box, 1)

        detail_layout = QVBoxLayout(self.detail)
        detail_layout.addWidget(self.title)
        detail_layout.addWidget(self.summary)
        detail_layout.addLayout(health_row)
        self.sign_in_panel = SignInPanel(self.sign_in)
        detail_layout.addWidget(self.sign_in_panel)
        detail_layout.addLayout(actions)
        detail_layout.addWidget(self.tools_box)
        detail_layout.addLayout(lists)
        detail_layout.addStretch(1)
        detail_scroll = QScrollArea()
        detail_scroll.setWidgetResizable(True)
        detail_scroll.setWidget(self.detail)

        splitter = QSplitter()
        splitter.addWidget(left)
        splitter.addWidget(detail_scroll)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 3)
        splitter.setSizes([260, 780])

        # -- consents for workflow-declared servers --
        consents_box = QGroupBox("Allowed servers from workflows and agent files")
        consents_hint = QLabel("A program a workflow or agent file wants to start asks first. "
                               "Your answers, per project; revoke one to be asked again.")
        consents_hint.setWordWrap(True)
        set_tone(consents_hint, "muted")
        self.consent_table = QTableWidget(0, len(CONSENT_COLUMNS))
        self.consent_table.setObjectName("mcpConsents")
        self.consent_table.setHorizontalHeaderLabels(CONSENT_COLUMNS)
        self.consent_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.consent_table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.consent_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.consent_table.verticalHeader().setVisible(False)
        header = self.consent_table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.ResizeToContents)
        self.consent_table.setMaximumHeight(120)
        self.consent_empty = QLabel("None yet: no workflow has asked to start a server.")
        set_tone(self.consent_empty, "muted")
        self.revoke_button = QPushButton("Revoke")
        self.revoke_button.setObjectName("mcpRevoke")
        self.revoke_button.setAutoDefault(False)
        self.revoke_button.clicked.connect(self.revoke_selected)
        consent_row = QHBoxLayout()
        consent_row.addWidget(self.consent_empty)
        consent_row.addStretch(1)
        consent_row.addWidget(self.revoke_button)
        consents_layout = QVBoxLayout(consents_box)
        consents_layout.addWidget(consents_hint)
        consents_layout.addWidget(self.consent_table)
        consents_layout.addLayout(consent_row)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(PAD_MAIN, PAD_MAIN, PAD_MAIN, PAD_MAIN)  # the main area's padding
        layout.addLayout(top)
        layout.addWidget(self.file_error)
        layout.addWidget(splitter, 1)
        layout.addWidget(consents_box)

        self._watcher = QFileSystemWatcher(self)
        self.home.mkdir(parents=True, exist_ok=True)
        # The folder too: a save replaces the file (rename), which ends a file watch.
        self._watcher.addPath(str(self.home))
        self._watcher.fileChanged.connect(lambda _p: self.check_file())
        self._watcher.directoryChanged.connect(lambda _p: self.check_file())
        context.theme.changed.connect(self._paint_icons)
        self.rebuild()
        self.refresh_consents()

    # -- the file --------------------------------------------------------------------------

    def check_file(self) -> None:
        """Rebuild when mcp.yaml differs from what the page shows."""
        stamp = self.editor.stamp()
        path = str(self.editor.path)
        if stamp is not None and path not in self._watcher.files():
            self._watcher.addPath(path)
        if stamp != self._stamp:
            self.rebuild()

    def rebuild(self) -> None:
        """The list from the file, keeping the selection and test results of servers still there."""
        self._stamp = self.editor.stamp()
        if self._stamp is not None and str(self.editor.path) not in self._watcher.files():
            self._watcher.addPath(str(self.editor.path))
        selected = self.selected()
        try:
            self.servers = self.editor.servers()
            bak = self.editor.bak_in_use()  # broken, running on mcp.yaml.bak: listed, not editable
        except McpConfigError as exc:
            self.servers = {}
            self.file_error.setText(f"mcp.yaml cannot be used as it is: {error_text(exc)}. No MCP server starts until it "
                                    "is fixed. Open it with “Open mcp.yaml” to correct it.")
            self.file_error.setVisible(True)
            self.add_button.setEnabled(False)
        else:
            if bak is not None:
                self.file_error.setText(f"{error_text(bak.describe(), limit=600)}. "
                                        "Open it with “Open mcp.yaml” to correct it.")
            self.file_error.setVisible(bak is not None)
            self.add_button.setEnabled(bak is None)
        for gone in set(self.reports) - set(self.servers):
            self.reports.pop(gone, None)
        self.server_list.blockSignals(True)
        self.server_list.clear()
        for name, entry in self.servers.items():
            item = QListWidgetItem(self._row_text(name, entry))
            item.setData(Qt.ItemDataRole.UserRole, name)
            self.server_list.addItem(item)
        self.server_list.blockSignals(False)
        names = list(self.servers)
        if names:
            row = names.index(selected) if selected in names else 0
            self.server_list.setCurrentRow(row)
        self.empty.setVisible(not names and not self.file_error.isVisible())
        self.server_list.setVisible(bool(names))
        self._paint_icons()
        self._show_selected()
        self.refresh_sign_ins()
        self.changed.emit()

    def _row_text(self, name: str, entry: StdioServer | HttpServer) -> str:
        state = self.auth_states.get(name)
        signed = SIGN_IN_ROW_WORDS.get(state.state, "") if state is not None and may_sign_in(entry) else ""
        return f"{name}\n{TRANSPORT_WORDS[entry.transport]}{_sandbox_words(entry)}{signed}"

    # -- sign-in (remote servers) ---------------------------------------------------------------

    def refresh_sign_ins(self) -> None:
        """Read every server's sign-in off the window's thread (the keyring), then show it."""
        if not any(may_sign_in(entry) for entry in self.servers.values()):
            self.auth_states = {}
            self._show_sign_in()
            return
        self._auth_asked += 1
        spawn(self._read_sign_ins(self._auth_asked))

    async def _read_sign_ins(self, asked: int) -> None:
        states = await self.sign_in.states()
        if asked != self._auth_asked:
            return  # a newer read is on its way
        self.auth_states = {state.server: state for state in states}
        for row in range(self.server_list.count()):
            item = self.server_list.item(row)
            name = item.data(Qt.ItemDataRole.UserRole)
            if name in self.servers:
                item.setText(self._row_text(name, self.servers[name]))
        self._show_sign_in()
        self.auth_reads += 1

    def _show_sign_in(self) -> None:
        name = self.selected()
        entry = self.servers.get(name) if name is not None else None
        state = self.auth_states.get(name) if name is not None else None
        shown = entry is not None and may_sign_in(entry) and (state is None or state.transport == "http")
        shown = shown and (state is None or state.state in ("needs_sign_in", "signed_in", "expired"))
        self.sign_in_panel.setVisible(shown)
        if shown and name is not None:
            self.sign_in_panel.show_state(name, state)

    def selected(self) -> str | None:
        item = self.server_list.currentItem()
        value = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        return value if isinstance(value, str) and value in self.servers else None

    def select(self, name: str) -> None:
        for row in range(self.server_list.count()):
            if self.server_list.item(row).data(Qt.ItemDataRole.UserRole) == name:
                self.server_list.setCurrentRow(row)
                return

    def _paint_icons(self) -> None:
        palette = self.context.theme.palette
        for row in range(self.server_list.count()):
            item = self.server_list.item(row)
            name = item.data(Qt.ItemDataRole.UserRole)
            _, tone, glyph = health_text(self.reports.get(name), name in self.testing)
            item.setIcon(icon(glyph, palette, tone))
        name = self.selected()
        if name is not None:
            _, tone, glyph = health_text(self.reports.get(name), name in self.testing)
            self.health_icon.setPixmap(icon(glyph, palette, tone).pixmap(16, 16))

    # -- the selected server -------------------------------------------------------------------

    def _show_selected(self) -> None:
        name = self.selected()
        self.detail.setVisible(name is not None)
        if name is None:
            return
        entry = self.servers[name]
        report = self.reports.get(name)
        self.title.setText(name)
        self.summary.setText(describe_entry(entry))
        text, tone, _ = health_text(report, name in self.testing)
        self.health.setText(text)
        set_tone(self.health, tone)
        self.test_button.setEnabled(name not in self.testing)
        self._show_sign_in()
        self._paint_icons()
        self._show_tools(name, entry, report)
        self._show_lists(report)

    def _show_tools(self, name: str, entry: StdioServer | HttpServer, report: ServerReport | None) -> None:
        for box in self.tool_boxes.values():
            box.deleteLater()
        self.tool_boxes.clear()
        self.tools_status.setText("")
        allowlist = getattr(entry, "tools_allowlist", None)
        if report is None or not report.ok:
            if allowlist is not None:
                self.tools_hint.setText("Only these tools are offered: " + ", ".join(allowlist)
                                        + ". Test the server to choose from all of its tools.")
            else:
                self.tools_hint.setText("All of this server's tools are offered. Test the server to list them "
                                        "and choose which ones models may use.")
            return
        if not report.all_tool_names:
            self.tools_hint.setText("This server offers no tools.")
            return
        self.tools_hint.setText("Uncheck a tool to keep it from models. All checked: every tool is offered, "
                                "including ones the server adds later.")
        described = {t.name: t.description for t in report.tools}
        for index, tool in enumerate(report.all_tool_names):
            box = QCheckBox(tool)
            box.setObjectName(f"mcpTool_{tool}")
            box.setChecked(allowlist is None or tool in allowlist)
            description = described.get(tool)
            if description:
                box.setToolTip(description[:500])
            box.toggled.connect(lambda _checked, server=name: self._allowlist_changed(server))
            self.tools_layout.addWidget(box, index // TOOL_COLUMNS, index % TOOL_COLUMNS)
            self.tool_boxes[tool] = box

    def _allowlist_changed(self, name: str) -> None:
        checked = [tool for tool, box in self.tool_boxes.items() if box.isChecked()]
        allowlist = None if len(checked) == len(self.tool_boxes) else checked
        try:
            self.editor.set_tools_allowlist(name, allowlist)
        except McpConfigError as exc:
            self.tools_status.setText(error_text(exc))
            set_tone(self.tools_status, "danger")
            return
        report = self.reports.get(name)
        if report is not None:
            # What the server now offers, without another connection: the same list, filtered.
            import dataclasses

            keep = set(checked)
            self.reports[name] = dataclasses.replace(
                report, tools=tuple(t for t in report.tools if allowlist is None or t.name in keep))
        self.check_file()

    def _show_lists(self, report: ServerReport | None) -> None:
        self.resources_list.clear()
        self.prompts_list.clear()
        if report is None or not report.ok:
            for widget in (self.resources_list, self.prompts_list):
                widget.addItem("Test the server to list these.")
            return
        for resource in report.resources:
            label = resource.name or resource.uri
            item = QListWidgetItem(f"{label}  —  {resource.uri}" if label != resource.uri else label)
            item.setToolTip(resource.description or resource.mime_type or resource.uri)
            self.resources_list.addItem(item)
        for prompt in report.prompts:
            args = ", ".join(f"{n}*" if required else n for n, required, _ in prompt.arguments)
            item = QListWidgetItem(f"/{prompt.name}" + (f"  ({args})" if args else ""))
            item.setToolTip(prompt.description or "")
            self.prompts_list.addItem(item)
        if not report.resources:
            self.resources_list.addItem("None offered.")
        if not report.prompts:
            self.prompts_list.addItem("None offered.")

    # -- testing -----------------------------------------------------------------------------------

    def test_server(self, name: str) -> None:
        if name not in self.servers or name in self.testing:
            return
        self.testing.add(name)
        self._show_selected()
        spawn(self._test(name))

    async def _test(self, name: str) -> None:
        report = await self.run_test(name)
        self.testing.discard(name)
        if name in self.servers:
            self.reports[name] = report
        if self.selected() == name:
            self._show_selected()
        else:
            self._paint_icons()
        self.tested.emit(name, report)

    async def run_test(self, name: str) -> ServerReport:
        """Connect to ``name`` on a host of its own, list what it offers, close it; never raises."""
        from relavium_desktop.application.hosting import close_mcp
        from relavium_desktop.application.tools import surface_host
        from relavium_desktop.engine.mcp_reports import ServerReport

        project = self.context.project
        workspace = Path(project) if project and os.path.isdir(project) else self.home
        try:
            host = await asyncio.to_thread(lambda: surface_host(workspace, surface="chat", home=self.home))
        except Exception as exc:  # noqa: BLE001 -- a host that cannot be built is a failed test, said in words
            return ServerReport(server=name, origin="user", ok=False, error=f"cannot prepare the test ({type(exc).__name__})")
        mcp: Any = host.mcp
        try:
            reports = await mcp.discover(servers=[name], timeout_s=TEST_TIMEOUT_S)
        except Exception as exc:  # noqa: BLE001 -- discover should not raise; if it does, show it
            reports = [ServerReport(server=name, origin="user", ok=False, error=f"{type(exc).__name__}")]
        finally:
            await close_mcp(host)
        for report in reports:
            if report.server == name:
                return report  # type: ignore[no-any-return]
        if reports:
            first = reports[0]
            return ServerReport(server=name, origin="user", ok=False, error=first.error or "no report")
        return ServerReport(server=name, origin="user", ok=False, error="the server was not found in mcp.yaml")

    # -- add, edit, remove -------------------------------------------------------------------------------

    def open_add_dialog(self) -> ServerDialog:
        return self._open_dialog(ServerDialog(parent=self))

    def open_edit_dialog(self, name: str) -> ServerDialog | None:
        try:
            raw = self.editor.raw_entry(name)
        except McpConfigError as exc:
            self.file_error.setText(error_text(exc))
            self.file_error.setVisible(True)
            return None
        return self._open_dialog(ServerDialog(name=name, raw=raw, parent=self))

    def _open_dialog(self, dialog: ServerDialog) -> ServerDialog:
        if self.server_dialog is not None:
            self.server_dialog.close()
        self.server_dialog = dialog
        dialog.submitted.connect(lambda original, name, fields: self._save(dialog, original, name, fields))
        dialog.finished.connect(lambda _code: self._dialog_closed(dialog))
        dialog.open()
        return dialog

    def _dialog_closed(self, dialog: ServerDialog) -> None:
        if self.server_dialog is dialog:
            self.server_dialog = None
        dialog.deleteLater()

    def _save(self, dialog: ServerDialog, original: str, name: str, fields: dict[str, Any]) -> None:
        try:
            if not original:
                self.editor.add_server(name, {k: v for k, v in fields.items() if v is not None})
            else:
                self.editor.update_server(original, fields)
                if name != original:
                    self.editor.rename_server(original, name)
                    self.reports.pop(original, None)
        except McpConfigError as exc:
            dialog.show_error(error_text(exc))
            return
        if original:
            self.reports.pop(name, None)  # the launch changed: the last test no longer says anything
        dialog.accept()
        self.check_file()
        self.select(name)

    def confirm_remove(self, name: str) -> None:
        if name not in self.servers:
            return
        box = QMessageBox(self)
        box.setObjectName("mcpConfirmRemove")
        box.setWindowTitle("Remove MCP server")
        box.setText(f"Remove “{name}” from mcp.yaml?")
        box.setInformativeText("Its tools stop being offered to models, in the app and on the command line.")
        box.setIconPixmap(icon("trash", self.context.theme.palette, "danger").pixmap(32, 32))
        remove = box.addButton("Remove", QMessageBox.ButtonRole.DestructiveRole)
        box.addButton("Keep", QMessageBox.ButtonRole.RejectRole)
        self.confirm_box, self.confirm_remove_button = box, remove

        def finished(_code: int) -> None:
            if box.clickedButton() is remove:
                self.remove_server(name)
            self.confirm_box = self.confirm_remove_button = None
            box.deleteLater()

        box.finished.connect(finished)
        box.open()

    def remove_server(self, name: str) -> None:
        try:
            self.editor.remove_server(name)
        except McpConfigError as exc:
            self.file_error.setText(error_text(exc))
            self.file_error.setVisible(True)
            return
        self.reports.pop(name, None)
        self.check_file()

    # -- consents ------------------------------------------------------------------------------------------

    def _with_consents(self, use: Callable[[McpConsentStore], Any]) -> Any:
        """Run ``use`` on the consent store, opened for just this (history.db is shared with the CLI)."""
        from relavium_desktop.application.mcp import mcp_consents

        try:
            store = mcp_consents(self.home)
        except Exception as exc:  # noqa: BLE001 -- an unreadable history.db: said in the table's place
            self._consent_error = f"The consents cannot be read ({type(exc).__name__})."
            return None
        try:
            self._consent_error = None
            return use(store)
        finally:
            store.close()

    def refresh_consents(self) -> None:
        found = self._with_consents(lambda store: store.list())
        self.consents = list(found or [])
        self.consent_table.setRowCount(len(self.consents))
        for row, consent in enumerate(self.consents):
            argv = " ".join([consent.command, *consent.args])
            epoch = parse_wire_time(consent.created_at)
            when = short_local(epoch) if epoch is not None else consent.created_at.replace("T", " ")[:19]
            cells = (consent.project, consent.server, argv, when)
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                tip = full_local(epoch) if col == 3 and epoch is not None else text
                item.setToolTip(consent.describe() if col == 2 else tip)
                self.consent_table.setItem(row, col, item)
        self.consent_empty.setText(self._consent_error or "None yet: no workflow has asked to start a server.")
        self.consent_empty.setVisible(not self.consents)
        self.revoke_button.setEnabled(bool(self.consents))

    def revoke_selected(self) -> None:
        row = self.consent_table.currentRow()
        if not 0 <= row < len(self.consents):
            return
        consent = self.consents[row]
        self._with_consents(lambda store: store.revoke(consent.project, consent.server))
        self.refresh_consents()
