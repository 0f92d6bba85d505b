"""Settings → Chat tools: the allowlists that enable run_command and http_request in chat.

Below them, :class:`ToolConfigSection` pins what those tools (and web_search)
use in chat: the search provider and key, per-host credentials, run_command's
folder, timeout and environment.

Both tools are disabled until a list names something (``ToolPolicy``: an
absent list means disabled).  The lists live in ``desktop-settings.ini``
under ``chat/policy`` (JSON), read by the chat view at every turn, so a
change applies from the next message on.

Validation is the engine's own (``validate_command_entry``,
``validate_domain_entry``), the same rule the CLI's ``--policy`` and a
workflow's ``tools`` block apply, so this page can never accept an entry
another surface refuses, nor the reverse.  A command entry is shown as its
argument vector and stored re-joined (``shlex.join``), so odd spacing or
quoting cannot hide what is allowed; a domain entry is stored in the
engine's normalised form.

"Sandbox for commands" is the policy's ``sandbox`` (strict, network or off),
stored in the same JSON; strict is the default and is not written.  Off says
on the page that commands then run unconfined, and the page shows which
sandbox protections this system lacks (application.sandbox), since a mode the
kernel cannot enforce refuses to run rather than run unconfined.
"""

from __future__ import annotations

import json
import shlex
from typing import TYPE_CHECKING, Any

from relavium_desktop.application.sandbox import MODE_WORDS, sandbox_report
from relavium_desktop.engine.tools.command_policy import AllowlistEntryError, validate_command_entry
from relavium_desktop.engine.tools.domain_policy import validate_domain_entry
from relavium_desktop.engine.tools.tooldef import SANDBOX_MODES, SandboxMode, parse_sandbox_mode
from relavium_desktop.ui.chat.backend import KEY_POLICY  # the key the chat view reads per turn
from relavium_desktop.ui.error_text import error_text
from relavium_desktop.ui.qt import (
    QComboBox,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    Qt,
    QVBoxLayout,
    QWidget,
    Signal,
)
from relavium_desktop.ui.settings.chat_tool_config import ToolConfigSection
from relavium_desktop.ui.theme import set_surface, set_tone
from relavium_desktop.ui.theme.tokens import PAD_MAIN

if TYPE_CHECKING:
    from relavium_desktop.ui.context import AppContext

VALUE_ROLE = Qt.ItemDataRole.UserRole
SANDBOX_LABELS: dict[SandboxMode, str] = {
    "strict": "Strict",
    "network": "Allow network",
    "off": "Off \u2014 unconfined (runs with all of your rights)",
}
OFF_WARNING = (
    "Sandbox off: commands chat runs are NOT confined. They can read your keys (~/.ssh, ~/.aws), "
    "write anywhere you can and connect anywhere. Choose this only on purpose."
)

PolicyEntryError = AllowlistEntryError  # what the page reports: the engine's refusal, verbatim


def normalise_command(text: str) -> tuple[str, list[str]]:
    """``(stored entry, argv)`` for a command allowlist entry; the engine's error if refused."""
    argv = list(validate_command_entry(text))
    return shlex.join(argv), argv


def normalise_domain(text: str) -> str:
    """The stored form of a domain allowlist entry (``host`` or ``host:port``)."""
    return validate_domain_entry(text)


def read_policy(settings: Any) -> tuple[dict[str, Any], str | None]:
    """The stored policy JSON object and, if it was unreadable, why."""
    raw = settings.value(KEY_POLICY)
    if not raw:
        return {}, None
    try:
        data = json.loads(str(raw))
    except ValueError:
        return {}, "the stored chat tool policy was not valid JSON and has been ignored"
    if not isinstance(data, dict):
        return {}, "the stored chat tool policy was not a JSON object and has been ignored"
    return data, None


class AllowList(QGroupBox):
    """One list with an entry field, Add and Remove, and a line for validation errors."""

    changed = Signal()

    def __init__(self, title: str, placeholder: str, help_text: str) -> None:
        super().__init__(title)
        self.list = QListWidget()
        self.edit = QLineEdit()
        self.edit.setPlaceholderText(placeholder)
        self.add_button = QPushButton("Add")
        self.remove_button = QPushButton("Remove")
        for b in (self.add_button, self.remove_button):
            b.setAutoDefault(False)
        self.error = QLabel()
        self.error.setWordWrap(True)
        set_tone(self.error, "danger")
        self.error.setTextFormat(Qt.TextFormat.PlainText)
        help_label = QLabel(help_text)
        help_label.setWordWrap(True)
        set_tone(help_label, "muted")
        row = QHBoxLayout()
        row.addWidget(self.edit, 1)
        row.addWidget(self.add_button)
        row.addWidget(self.remove_button)
        layout = QVBoxLayout(self)
        layout.addWidget(help_label)
        layout.addWidget(self.list, 1)
        layout.addLayout(row)
        layout.addWidget(self.error)
        self.remove_button.clicked.connect(self.remove_selected)

    def values(self) -> list[str]:
        return [str(self.list.item(i).data(VALUE_ROLE)) for i in range(self.list.count())]

    def add_value(self, value: str, label: str) -> bool:
        if value in self.values():
            self.error.setText(f"{value!r} is already in the list")
            return False
        item = QListWidgetItem(label)
        item.setData(VALUE_ROLE, value)
        self.list.addItem(item)
        self.error.setText("")
        self.edit.clear()
        return True

    def remove_selected(self) -> None:
        row = self.list.currentRow()
        if 0 <= row < self.list.count():
            self.list.takeItem(row)
            self.changed.emit()


class SandboxChoice(QGroupBox):
    """The chat policy's ``sandbox``: a choice, what it allows, and what this system cannot enforce."""

    changed = Signal()

    def __init__(self) -> None:
        super().__init__("Sandbox for commands")
        self.mode = QComboBox()
        for mode in SANDBOX_MODES:
            self.mode.addItem(SANDBOX_LABELS[mode], mode)
        self.allows = QLabel()
        self.allows.setWordWrap(True)
        set_tone(self.allows, "muted")
        self.off_warning = QLabel(OFF_WARNING)
        self.off_warning.setWordWrap(True)
        set_surface(self.off_warning, "banner-warning")
        self.missing = QLabel()
        self.missing.setWordWrap(True)
        self.missing.setTextFormat(Qt.TextFormat.PlainText)
        set_surface(self.missing, "banner-warning")
        layout = QVBoxLayout(self)
        layout.addWidget(self.mode)
        layout.addWidget(self.allows)
        layout.addWidget(self.off_warning)
        layout.addWidget(self.missing)
        self.refresh_support()
        self._show(self.value())
        self.mode.currentIndexChanged.connect(self._picked)

    def value(self) -> SandboxMode:
        return parse_sandbox_mode(self.mode.currentData())

    def set_value(self, mode: SandboxMode) -> None:
        self.mode.blockSignals(True)
        self.mode.setCurrentIndex(self.mode.findData(mode))
        self.mode.blockSignals(False)
        self._show(mode)

    def refresh_support(self) -> None:
        summary = sandbox_report().missing_summary()
        self.missing.setText(summary or "")
        self.missing.setVisible(summary is not None)

    def _picked(self) -> None:
        self._show(self.value())
        self.changed.emit()

    def _show(self, mode: SandboxMode) -> None:
        self.allows.setText(f"{SANDBOX_LABELS[mode]}: {MODE_WORDS[mode]}.")
        self.off_warning.setVisible(mode == "off")


class ChatToolsPage(QWidget):
    saved = Signal()  # the policy in settings changed

    def __init__(self, context: AppContext) -> None:
        super().__init__()
        self._settings = context.settings
        intro = QLabel(
            "Running commands and web requests stay off in chat until you allow something here. "
            "Allowed actions still ask for permission unless the chat mode is Auto."
        )
        intro.setWordWrap(True)
        self.warning = QLabel()
        self.warning.setWordWrap(True)
        self.warning.setVisible(False)
        set_surface(self.warning, "banner-warning")
        self.commands = AllowList(
            "Commands (run_command)", "e.g. npm test",
            "Each entry allows exactly one command line, matched argument by argument. It is run "
            "without a shell.",
        )
        self.domains = AllowList(
            "Domains (http_request)", "e.g. api.github.com",
            "Each entry allows HTTPS requests to exactly that host (add :port for another port).",
        )
        self.commands.add_button.clicked.connect(self.add_command)
        self.commands.edit.returnPressed.connect(self.add_command)
        self.domains.add_button.clicked.connect(self.add_domain)
        self.domains.edit.returnPressed.connect(self.add_domain)
        self.commands.changed.connect(self.save)
        self.domains.changed.connect(self.save)
        self.sandbox = SandboxChoice()
        self.sandbox.changed.connect(self.save)
        # The allowlists and the tool settings are taller than a small window: they scroll together.
        content = QWidget()
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(content)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)
        layout = QVBoxLayout(content)
        layout.setContentsMargins(PAD_MAIN, PAD_MAIN, PAD_MAIN, PAD_MAIN)  # the main area's padding, inside the scroll
        layout.addWidget(intro)
        layout.addWidget(self.warning)
        layout.addWidget(self.commands, 1)
        layout.addWidget(self.sandbox)
        layout.addWidget(self.domains, 1)
        # Search provider, per-host credentials and run_command settings (chat's tool_config).
        self.tool_config = ToolConfigSection(context.settings)
        self.tool_config.saved.connect(self.saved.emit)
        layout.addWidget(self.tool_config)
        self.load()

    def load(self) -> None:
        if hasattr(self, "tool_config"):
            self.tool_config.load()
        data, problem = read_policy(self._settings)
        self.commands.list.clear()
        self.domains.list.clear()
        refused = 0
        for entry in data.get("allowedCommands") or []:
            try:
                stored, argv = normalise_command(str(entry))
            except PolicyEntryError:
                stored, argv = str(entry), []
                refused += 1
            self.commands.add_value(stored, _command_label(stored, argv))
        for entry in data.get("allowedDomains") or []:
            try:
                self.domains.add_value(normalise_domain(str(entry)), normalise_domain(str(entry)))
            except PolicyEntryError:
                refused += 1
                self.domains.add_value(str(entry), f"{entry}  (refused: not a usable host entry)")
        if problem is None and refused:
            # The engine refuses the whole stored policy (as the CLI would), so chat has neither tool.
            problem = (f"{refused} stored entr{'y is' if refused == 1 else 'ies are'} refused; running commands "
                       "and web requests stay off in chat until you remove "
                       f"{'it' if refused == 1 else 'them'}")
        stored_mode = data.get("sandbox", "strict")
        try:
            self.sandbox.set_value(parse_sandbox_mode(stored_mode))
        except ValueError:
            # The engine refuses the whole stored policy for it, as for a refused entry.
            self.sandbox.set_value("strict")
            problem = problem or ("the stored sandbox choice is not strict, network or off; running commands and "
                                  "web requests stay off in chat until you pick one")
        self.sandbox.refresh_support()
        self.warning.setText(problem or "")
        self.warning.setVisible(problem is not None)

    def add_command(self) -> None:
        try:
            stored, argv = normalise_command(self.commands.edit.text())
        except PolicyEntryError as exc:
            self.commands.error.setText(error_text(exc))
            return
        if self.commands.add_value(stored, _command_label(stored, argv)):
            self.save()

    def add_domain(self) -> None:
        try:
            host = normalise_domain(self.domains.edit.text())
        except PolicyEntryError as exc:
            self.domains.error.setText(error_text(exc))
            return
        if self.domains.add_value(host, host):
            self.save()

    def save(self) -> None:
        data, _problem = read_policy(self._settings)
        for key, values in (("allowedCommands", self.commands.values()), ("allowedDomains", self.domains.values())):
            if values:
                data[key] = values
            else:
                data.pop(key, None)
        mode = self.sandbox.value()
        if mode == "strict":
            data.pop("sandbox", None)  # the default: not written
        else:
            data["sandbox"] = mode
        self._settings.setValue(KEY_POLICY, json.dumps(data))
        self.warning.setVisible(False)
        self.saved.emit()


def _command_label(stored: str, argv: list[str]) -> str:
    if not argv:
        return f"{stored}  (refused: empty, unbalanced quotes or a shell operator)"
    return f"{stored}    →  argv {json.dumps(argv, ensure_ascii=False)}"
