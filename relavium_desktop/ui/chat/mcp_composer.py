"""The composer's MCP helpers: attach a server's resource, and its prompts as slash commands.

A resource is read through the discovery host (``ChatMcp.read_resource``)
as a task on the qasync loop -- a slow server never blocks typing -- and its
text is added to the message with its source named, so the model (and the
user, reading the transcript later) knows where it came from.

Typing ``/`` lists the servers' prompts as ``/<server>:<prompt>``; choosing
one asks for its arguments, if it has any, then puts ``get_prompt``'s text
in the composer for the user to edit and send.  The list lives under the
composer (not a popup window), so typing goes on while it is shown.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from relavium_desktop.ui.error_text import error_text
from relavium_desktop.ui.qt import (
    QDialog,
    QEvent,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QObject,
    QPushButton,
    Qt,
    QToolButton,
    QVBoxLayout,
    QWidget,
    Signal,
)
from relavium_desktop.ui.theme import set_tone

if TYPE_CHECKING:
    from relavium_desktop.ui.chat.composer import Composer
    from relavium_desktop.ui.chat.mcp_tools import ChatMcp

log = logging.getLogger(__name__)

_ENTER = (Qt.Key.Key_Return, Qt.Key.Key_Enter)


def slash_name(prompt: Any) -> str:
    return f"/{prompt.server}:{prompt.name}"


class PromptArgsDialog(QDialog):
    """Asks for a prompt's arguments; a required one must be filled before OK."""

    def __init__(self, prompt: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mcpPromptArgs")
        self.setWindowTitle(f"{slash_name(prompt)} — arguments")
        self.prompt = prompt
        self.fields: dict[str, QLineEdit] = {}
        self._required: set[str] = set()
        column = QVBoxLayout(self)
        if prompt.description:
            about = QLabel(str(prompt.description))
            about.setWordWrap(True)
            set_tone(about, "muted")
            column.addWidget(about)
        form = QFormLayout()
        for name, required, description in prompt.arguments:
            field = QLineEdit()
            field.setObjectName(f"promptArg_{name}")
            if description:
                field.setPlaceholderText(str(description))
            field.textChanged.connect(self._check)
            form.addRow(f"{name}{' *' if required else ''}", field)
            self.fields[name] = field
            if required:
                self._required.add(name)
        column.addLayout(form)
        row = QHBoxLayout()
        row.addStretch(1)
        cancel = QPushButton("Cancel")
        cancel.setAutoDefault(False)
        cancel.clicked.connect(self.reject)
        self.ok_button = QPushButton("Use prompt")
        self.ok_button.setObjectName("promptArgsOk")
        self.ok_button.setDefault(True)
        self.ok_button.clicked.connect(self.accept)
        row.addWidget(cancel)
        row.addWidget(self.ok_button)
        column.addLayout(row)
        self._check()

    def _check(self) -> None:
        self.ok_button.setEnabled(all(self.fields[n].text().strip() for n in self._required))

    def values(self) -> dict[str, str]:
        return {name: field.text() for name, field in self.fields.items() if field.text()}


class SlashPrompts(QObject):
    """``/`` in an empty composer lists the MCP prompts; Enter or a click picks one."""

    inserted = Signal(str)  # the prompt's text, now in the composer

    def __init__(self, composer: Composer, mcp: ChatMcp, status: QLabel) -> None:
        super().__init__(composer)
        self.composer = composer
        self.mcp = mcp
        self.status = status
        self.dialog: PromptArgsDialog | None = None
        self.list = QListWidget()
        self.list.setObjectName("slashPrompts")
        self.list.setMaximumHeight(120)
        self.list.hide()
        self.list.itemActivated.connect(self._picked)
        self.list.itemClicked.connect(self._picked)
        composer.textChanged.connect(self._typed)
        composer.installEventFilter(self)

    def _typed(self) -> None:
        text = self.composer.toPlainText()
        if not text.startswith("/") or any(ch.isspace() for ch in text):
            self.list.hide()
            return
        self.list.clear()
        for prompt in self.mcp.prompts():
            name = slash_name(prompt)
            if name.startswith(text):
                item = QListWidgetItem(name + (f" — {prompt.description}" if prompt.description else ""))
                item.setData(Qt.ItemDataRole.UserRole, prompt)
                self.list.addItem(item)
        self.list.setVisible(self.list.count() > 0)
        if self.list.count():
            self.list.setCurrentRow(0)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Up/Down move in the list and Enter picks, while it is shown; everything else is typing."""
        if watched is self.composer and event.type() == QEvent.Type.KeyPress and self.list.isVisible():
            key = event.key()  # type: ignore[attr-defined]
            if key in _ENTER:
                item = self.list.currentItem()
                if item is not None:
                    self._picked(item)
                    return True
            elif key in (Qt.Key.Key_Down, Qt.Key.Key_Up):
                step = 1 if key == Qt.Key.Key_Down else -1
                self.list.setCurrentRow(max(0, min(self.list.count() - 1, self.list.currentRow() + step)))
                return True
            elif key == Qt.Key.Key_Escape:
                self.list.hide()
                return True
        return False

    def _picked(self, item: QListWidgetItem) -> None:
        prompt = item.data(Qt.ItemDataRole.UserRole)
        self.list.hide()
        if prompt is None:
            return
        if prompt.arguments:
            dialog = PromptArgsDialog(prompt, self.composer.window())
            dialog.accepted.connect(lambda: self._fetch(prompt, dialog.values()))
            dialog.finished.connect(lambda _code: dialog.deleteLater())
            self.dialog = dialog
            dialog.open()
        else:
            self._fetch(prompt, {})

    def _fetch(self, prompt: Any, arguments: dict[str, str]) -> None:
        from relavium_desktop.ui.tasks import spawn

        self.dialog = None
        self.status.setText(f"Getting {slash_name(prompt)}…")
        spawn(self._fill(prompt, arguments))

    async def _fill(self, prompt: Any, arguments: dict[str, str]) -> None:
        try:
            text = await self.mcp.get_prompt(prompt.server, prompt.name, arguments)
        except Exception as exc:  # noqa: BLE001 - a server's failure is shown, never raised into Qt
            self.status.setText(f"{slash_name(prompt)}: {error_text(exc, limit=200)}")
            return
        self.status.setText("")
        self.composer.setPlainText(text)
        self.composer.setFocus()
        self.inserted.emit(text)


class AttachResource(QToolButton):
    """"Attach an MCP resource": a menu of the servers' resources; the chosen one's text joins the message."""

    attached = Signal(str)  # the text added to the composer

    def __init__(self, composer: Composer, mcp: ChatMcp, status: QLabel) -> None:
        super().__init__()
        self.setObjectName("attachResource")
        self.setText("Attach")
        self.setToolTip("Attach a resource from an MCP server to the message")
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.composer = composer
        self.mcp = mcp
        self.status = status
        self.menu_ = QMenu(self)
        self.menu_.setObjectName("resourceMenu")
        self.menu_.aboutToShow.connect(self.fill)
        self.setMenu(self.menu_)
        mcp.changed.connect(self._shown_when_useful)
        self._shown_when_useful()

    def _shown_when_useful(self) -> None:
        self.setVisible(bool(self.mcp.resources()))

    def fill(self) -> None:
        self.menu_.clear()
        for res in self.mcp.resources():
            action = self.menu_.addAction(f"{res.server}: {res.name or res.uri}")
            action.setToolTip(res.description or res.uri)
            action.triggered.connect(lambda _checked=False, r=res: self.attach(r.server, r.uri))

    def attach(self, server: str, uri: str) -> None:
        from relavium_desktop.ui.tasks import spawn

        self.status.setText(f"Reading {uri} from '{server}'…")
        spawn(self._read(server, uri))

    async def _read(self, server: str, uri: str) -> None:
        from relavium_desktop.ui.chat.mcp_tools import attachment

        try:
            text = await self.mcp.read_resource(server, uri)
        except Exception as exc:  # noqa: BLE001 - a server's failure is shown, never raised into Qt
            self.status.setText(f"Could not read {uri} from '{server}': {error_text(exc, limit=200)}")
            return
        self.status.setText("")
        added = attachment(server, uri, text)
        current = self.composer.toPlainText()
        self.composer.setPlainText(f"{current.rstrip()}\n\n{added}" if current.strip() else added)
        self.composer.setFocus()
        self.attached.emit(added)
