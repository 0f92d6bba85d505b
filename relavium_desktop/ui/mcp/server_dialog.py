"""Adding or editing one MCP server entry: the fields of mcp.yaml, in words.

The dialog only gathers the fields; the page writes them through
:class:`~relavium_desktop.host.mcp.editing.McpYamlEditor`, which validates
the whole file before writing.  A refusal comes back here with
:meth:`ServerDialog.show_error` and the dialog stays open with what was
typed, so a typo costs one correction, not a re-entry.

Arguments are typed as in a shell (quotes keep spaces), because that is how
people copy a server's launch line from its README.  Environment values are
stored in plain text in mcp.yaml, so the editor refuses names that look like
credentials and says to use an http server's ``credentialRef`` instead.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

from relavium_desktop.ui.error_text import error_text
from relavium_desktop.ui.qt import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    Qt,
    QVBoxLayout,
    QWidget,
    Signal,
)
from relavium_desktop.ui.theme import set_surface, set_tone, set_variant
from relavium_desktop.ui.theme.tokens import PAD_MAIN, SPACE_3

TRANSPORTS = {"stdio": "A program on this computer (stdio)", "http": "A server at a URL (Streamable HTTP)"}
# Keys the form manages per transport; switching transport removes the other transport's keys.
STDIO_KEYS = ("command", "args", "env", "cwd")
HTTP_KEYS = ("url", "credentialRef", "credential_ref", "allowLocal", "allow_local", "headers",
             "credentialHeader", "credential_header", "credentialScheme", "credential_scheme")


class ServerDialog(QDialog):
    # (original name or "" for a new server, name, fields to write)
    submitted = Signal(str, str, object)

    def __init__(self, *, name: str = "", raw: Mapping[str, Any] | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.original = name
        self.raw = dict(raw or {})
        self.setObjectName("mcpServerDialog")
        self.setWindowTitle(f"Edit MCP server “{name}”" if name else "Add an MCP server")
        self.resize(600, 520)

        self.name_edit = QLineEdit(name)
        self.name_edit.setObjectName("mcpServerName")
        self.name_edit.setPlaceholderText("a short name, e.g. files or docs")
        self.transport = QComboBox()
        for key, title in TRANSPORTS.items():
            self.transport.addItem(title, key)

        self.command_edit = QLineEdit(str(self.raw.get("command") or ""))
        self.command_edit.setObjectName("mcpCommand")
        self.command_edit.setPlaceholderText("the program, e.g. npx or /usr/local/bin/my-server")
        args = self.raw.get("args") or []
        self.args_edit = QLineEdit(shlex.join(str(a) for a in args) if isinstance(args, list) else "")
        self.args_edit.setObjectName("mcpArgs")
        self.args_edit.setPlaceholderText("as in a shell: -y @scope/server \"/a folder\"")
        env = self.raw.get("env") or {}
        self.env_edit = QPlainTextEdit("\n".join(f"{k}={v}" for k, v in env.items()) if isinstance(env, dict) else "")
        self.env_edit.setObjectName("mcpEnv")
        self.env_edit.setPlaceholderText("NAME=value, one per line (no keys or tokens: stored in plain text)")
        self.env_edit.setMaximumHeight(90)
        self.cwd_edit = QLineEdit(str(self.raw.get("cwd") or ""))
        self.cwd_edit.setPlaceholderText("optional absolute folder; the project folder when empty")
        self.stdio_box = QGroupBox("Program")
        stdio = QFormLayout(self.stdio_box)
        stdio.addRow("Command:", self.command_edit)
        stdio.addRow("Arguments:", self.args_edit)
        stdio.addRow("Environment:", self.env_edit)
        stdio.addRow("Working folder:", self.cwd_edit)

        self.url_edit = QLineEdit(str(self.raw.get("url") or ""))
        self.url_edit.setObjectName("mcpUrl")
        self.url_edit.setPlaceholderText("https://example.com/mcp")
        ref = self.raw.get("credentialRef", self.raw.get("credential_ref"))
        self.credential_edit = QLineEdit(str(ref or ""))
        self.credential_edit.setPlaceholderText("optional: secret:NAME (stored with relavium secret set NAME)")
        self.allow_local = QCheckBox("Allow a local or private address (and plain http)")
        self.allow_local.setChecked(bool(self.raw.get("allowLocal", self.raw.get("allow_local", False))))
        self.http_box = QGroupBox("Server")
        http = QFormLayout(self.http_box)
        http.addRow("URL:", self.url_edit)
        http.addRow("Credential:", self.credential_edit)
        http.addRow("", self.allow_local)

        self.allow_sampling = QCheckBox("Let this server ask my model for answers (sampling); "
                                        "each request asks me first")
        self.allow_sampling.setObjectName("mcpAllowSampling")
        self.allow_sampling.setChecked(bool(self.raw.get("allowSampling", self.raw.get("allow_sampling", False))))

        self.status = QLabel()
        self.status.setObjectName("mcpServerDialogStatus")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setVisible(False)
        set_surface(self.status, "banner-danger")
        hint = QLabel("Saved to mcp.yaml in the Relavium data folder, which the relavium command line reads too.")
        hint.setWordWrap(True)
        set_tone(hint, "muted")

        self.save_button = QPushButton("Save")
        self.save_button.setObjectName("mcpServerSave")
        self.cancel_button = QPushButton("Cancel")
        for b in (self.save_button, self.cancel_button):
            b.setAutoDefault(False)
        set_variant(self.save_button, "primary")  # the one primary button of the sheet
        set_variant(self.cancel_button, "secondary")
        self.save_button.clicked.connect(self.submit)
        self.cancel_button.clicked.connect(self.reject)
        buttons = QHBoxLayout()
        buttons.addWidget(hint, 1)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.save_button)

        top = QFormLayout()
        top.addRow("Name:", self.name_edit)
        top.addRow("Kind:", self.transport)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(PAD_MAIN, PAD_MAIN, PAD_MAIN, PAD_MAIN)
        layout.setSpacing(SPACE_3)
        set_surface(self, "sheet")
        layout.addLayout(top)
        layout.addWidget(self.stdio_box)
        layout.addWidget(self.http_box)
        layout.addWidget(self.allow_sampling)
        layout.addStretch(1)
        layout.addWidget(self.status)
        layout.addLayout(buttons)

        self.transport.currentIndexChanged.connect(self._transport_picked)
        kind = str(self.raw.get("transport") or "stdio")
        self.transport.setCurrentIndex(max(0, self.transport.findData(kind)))
        self._transport_picked()

    def kind(self) -> str:
        return str(self.transport.currentData())

    def _transport_picked(self, _index: int = 0) -> None:
        self.stdio_box.setVisible(self.kind() == "stdio")
        self.http_box.setVisible(self.kind() == "http")

    def fields(self) -> dict[str, Any]:
        """The entry as typed, ready for the editor; raises ValueError with the field in words."""
        fields = self._transport_fields()
        fields["allowSampling"] = True if self.allow_sampling.isChecked() else None
        return fields

    def _transport_fields(self) -> dict[str, Any]:
        if self.kind() == "stdio":
            try:
                args = shlex.split(self.args_edit.text())
            except ValueError:
                raise ValueError("Arguments: a quote is not closed") from None
            env: dict[str, str] = {}
            for number, line in enumerate(self.env_edit.toPlainText().splitlines(), start=1):
                if not line.strip():
                    continue
                name, sep, value = line.partition("=")
                if not sep or not name.strip():
                    raise ValueError(f"Environment line {number}: write NAME=value")
                env[name.strip()] = value
            return {"transport": "stdio", "command": self.command_edit.text().strip(),
                    "args": args or None, "env": env or None, "cwd": self.cwd_edit.text().strip() or None}
        return {"transport": "http", "url": self.url_edit.text().strip(),
                "credentialRef": self.credential_edit.text().strip() or None,
                "allowLocal": True if self.allow_local.isChecked() else None}

    def changes(self) -> dict[str, Any]:
        """What to write over the existing entry: the form's fields, and None for keys to drop."""
        fields = self.fields()
        if self.raw.get("transport") and self.raw.get("transport") != fields["transport"]:
            other = HTTP_KEYS if fields["transport"] == "stdio" else STDIO_KEYS
            for key in other:
                if key in self.raw:
                    fields.setdefault(key, None)
        return fields

    def submit(self) -> None:
        name = self.name_edit.text().strip()
        if not name:
            self.show_error("Name: give the server a short name")
            return
        try:
            changes = self.changes()
        except ValueError as exc:
            self.show_error(error_text(exc))
            return
        self.status.setVisible(False)
        self.submitted.emit(self.original, name, changes)

    def show_error(self, text: str) -> None:
        self.status.setText(text)
        self.status.setVisible(True)
