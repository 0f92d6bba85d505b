"""Settings → Chat tools: the allowlists that enable run_command and http_request in chat.

Both tools are disabled until a list names something (``ToolPolicy``: an
absent list means disabled).  The lists live in ``desktop-settings.ini``
under ``chat/policy`` (JSON), read by the chat view at every turn, so a
change applies from the next message on.

Validation mirrors how the engine matches, so what the page shows is what
will match:

- a command entry is split shell-style with the engine's own splitter and
  shown as its argument vector; it is stored re-joined (``shlex.join``), so
  odd spacing or quoting cannot hide what is allowed.  Shell operators
  (``&&``, ``|``, ``;`` …) are refused: run_command starts one program and
  never a shell, so they would only ever be literal arguments.
- a domain entry is normalised with the engine's allowlist parser (lower
  case, IDNA, one trailing dot dropped, optional ``:port``); wildcards, paths,
  credentials and ``http://`` are refused (http_request is HTTPS-only and
  matches exact hosts).
"""

from __future__ import annotations

import json
import shlex
from typing import TYPE_CHECKING, Any

from relavium_desktop.ui.chat.backend import KEY_POLICY  # the key the chat view reads per turn
from relavium_desktop.ui.qt import (
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    Qt,
    QVBoxLayout,
    QWidget,
    Signal,
)

if TYPE_CHECKING:
    from relavium_desktop.ui.shell import MainWindow

SHELL_OPERATORS = frozenset({"&&", "||", "|", ";", "&", ">", ">>", "<", "<<", "$(", "`"})
VALUE_ROLE = Qt.ItemDataRole.UserRole


class PolicyEntryError(ValueError):
    """An allowlist entry the engine could never match as the user meant it."""


def normalise_command(text: str) -> tuple[str, list[str]]:
    """``(stored entry, argv)`` for a command allowlist entry; PolicyEntryError if unusable."""
    from relavium_desktop.engine.tools.command_policy import split_entry

    text = text.strip()
    if not text:
        raise PolicyEntryError("type a command, e.g. npm test")
    try:
        argv = shlex.split(text, posix=True)
    except ValueError as exc:
        raise PolicyEntryError(f"cannot split {text!r}: {exc}") from None
    if list(split_entry(text)) != argv or not argv:
        raise PolicyEntryError(f"cannot split {text!r} into arguments")
    operators = [a for a in argv if a in SHELL_OPERATORS or a.startswith("$(")]
    if operators:
        raise PolicyEntryError(
            f"{operators[0]!r} is a shell operator, but run_command runs one program without a shell; "
            "add each command as its own entry"
        )
    return shlex.join(argv), argv


def normalise_domain(text: str) -> str:
    """The stored form of a domain allowlist entry (``host`` or ``host:port``)."""
    from relavium_desktop.engine.tools.domain_policy import parse_entry

    raw = text.strip()
    if not raw:
        raise PolicyEntryError("type a host name, e.g. api.github.com")
    if raw.lower().startswith("http://"):
        raise PolicyEntryError("http_request uses HTTPS only; enter the host name without http://")
    if "*" in raw:
        raise PolicyEntryError("entries match one exact host; wildcards are not supported")
    parsed = parse_entry(raw)
    if parsed is None:
        raise PolicyEntryError(f"{raw!r} is not a host name (no paths, credentials or spaces)")
    host, port = parsed
    return host if port is None else f"{host}:{port}"


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
        self.error.setStyleSheet("color: #991b1b;")
        self.error.setTextFormat(Qt.TextFormat.PlainText)
        help_label = QLabel(help_text)
        help_label.setWordWrap(True)
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


class ChatToolsPage(QWidget):
    saved = Signal()  # the policy in settings changed

    def __init__(self, window: MainWindow) -> None:
        super().__init__()
        self._settings = window.settings
        intro = QLabel(
            "run_command and http_request stay disabled in chat until you allow something here. "
            "Allowed actions still ask for permission unless the chat mode is Auto."
        )
        intro.setWordWrap(True)
        self.warning = QLabel()
        self.warning.setWordWrap(True)
        self.warning.setVisible(False)
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
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.warning)
        layout.addWidget(self.commands, 1)
        layout.addWidget(self.domains, 1)
        self.load()

    def load(self) -> None:
        data, problem = read_policy(self._settings)
        self.warning.setText(problem or "")
        self.warning.setVisible(problem is not None)
        self.commands.list.clear()
        self.domains.list.clear()
        for entry in data.get("allowedCommands") or []:
            try:
                stored, argv = normalise_command(str(entry))
            except PolicyEntryError:
                stored, argv = str(entry), []
            self.commands.add_value(stored, _command_label(stored, argv))
        for entry in data.get("allowedDomains") or []:
            try:
                self.domains.add_value(normalise_domain(str(entry)), normalise_domain(str(entry)))
            except PolicyEntryError:
                self.domains.add_value(str(entry), f"{entry}  (never matches)")

    def add_command(self) -> None:
        try:
            stored, argv = normalise_command(self.commands.edit.text())
        except PolicyEntryError as exc:
            self.commands.error.setText(str(exc))
            return
        if self.commands.add_value(stored, _command_label(stored, argv)):
            self.save()

    def add_domain(self) -> None:
        try:
            host = normalise_domain(self.domains.edit.text())
        except PolicyEntryError as exc:
            self.domains.error.setText(str(exc))
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
        self._settings.setValue(KEY_POLICY, json.dumps(data))
        self.warning.setVisible(False)
        self.saved.emit()


def _command_label(stored: str, argv: list[str]) -> str:
    if not argv:
        return f"{stored}  (never matches: cannot be split)"
    return f"{stored}    →  argv {json.dumps(argv, ensure_ascii=False)}"
