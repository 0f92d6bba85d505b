"""Settings → Providers: the named providers of providers.yaml, their keys, endpoints and tests.

The page edits ``$RELAVIUM_HOME/providers.yaml`` -- the file ``relavium
agent run`` and ``relavium run`` read -- in place, so a provider added here is
the provider the command line uses, and comments a user wrote in the file
survive.  When the file changes on disk (the CLI, an editor) the page is
rebuilt from it.

A key typed here goes straight to the OS keyring through the host's
SecretStore, in a worker thread (keyring calls block on D-Bus); the field is
cleared right after and only the last four characters are ever shown again.
The file holds only the reference (``secret:NAME``).  If no keyring backend
is usable the page says why and how to fix it instead of failing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from relavium_desktop.application.providers import (
    DEFAULT_ENTRIES,
    ProviderConfigError,
    ProviderEntry,
    basic_validate_base_url,
)
from relavium_desktop.application.secrets import SecretStore, SecretStoreError, parse_ref
from relavium_desktop.ui.error_text import error_text, first_line
from relavium_desktop.ui.qt import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    Qt,
    QVBoxLayout,
    QWidget,
    Signal,
)
from relavium_desktop.ui.settings.keyring_banner import KeyringBanner
from relavium_desktop.ui.tasks import spawn
from relavium_desktop.ui.theme import set_surface, set_tone, set_variant
from relavium_desktop.ui.theme.tokens import PAD_MAIN, SPACE_2, SPACE_3, SPACE_4

if TYPE_CHECKING:
    from relavium_desktop.application.providers import ConnectionResult, ProviderStore
    from relavium_desktop.ui.context import AppContext

KIND_TITLES = {"anthropic": "Anthropic", "openai": "OpenAI or compatible", "gemini": "Google Gemini"}


def key_ref_for(name: str) -> str:
    """The keyring reference a key typed for provider ``name`` is stored under."""
    safe = "".join(c if c.isalnum() else "_" for c in name).upper()
    return f"secret:{safe}_API_KEY"


@dataclass
class ProviderRow:
    name: str
    box: QWidget  # the provider's card
    state: QLabel  # its state in words: "Ready", "Needs a key", "Can't reach localhost:11434"
    edit_button: QPushButton  # opens the card's editor
    editor: QWidget  # key, endpoint, removal: collapsed until asked for
    status: QLabel
    key_edit: QLineEdit
    save_key: QPushButton
    remove_key: QPushButton
    base_url: QLineEdit
    allow_local: QCheckBox
    save_endpoint: QPushButton
    endpoint_status: QLabel
    test_button: QPushButton
    test_status: QLabel
    remove_provider: QPushButton


def state_words(result: ConnectionResult, base_url: str) -> tuple[str, str]:
    """A tested provider's state in a few words, and its tone: "Ready", "Needs a key", "Can't reach HOST"."""
    if result.ok:
        return "Ready", "success"
    if result.outcome == "auth" or result.next_step == "set_key":
        return "Needs a key", "warning"
    if result.outcome == "opt_in" or result.next_step == "allow_local":
        return "Needs “Allow a local endpoint”", "warning"
    if result.outcome == "unreachable":
        return f"Can't reach {urlsplit(base_url.strip()).netloc or base_url.strip()}", "danger"
    if result.outcome == "rate_limited":
        return "Busy: rate-limited", "warning"
    return "Not working: see the test result", "danger"


class ProvidersPage(QWidget):
    changed = Signal()  # a keyring or file operation finished (tests and the chat view listen)
    connection_tested = Signal(str, object)  # provider name, ConnectionResult
    setup_requested = Signal()  # "Run the setup guide again"

    def __init__(self, context: AppContext, store: SecretStore | None = None) -> None:
        super().__init__()
        self.context = context
        self._settings = context.settings
        self._secrets = store or SecretStore()
        self._hints: dict[str, str] | None = None  # secret name -> hint; None until read
        self._keyring_error: str | None = None
        self.rows: dict[str, ProviderRow] = {}
        self._tested: dict[str, tuple[str, str]] = {}  # provider -> its last test's state words and tone

        self.banner = KeyringBanner()
        self.file_error = QLabel()
        self.file_error.setObjectName("providersFileError")
        self.file_error.setWordWrap(True)
        self.file_error.setTextFormat(Qt.TextFormat.PlainText)
        set_surface(self.file_error, "banner-danger")
        self.file_error.setVisible(False)
        intro = QLabel(
            "Models come from the providers below. They are kept in providers.yaml in the Relavium data "
            "folder, which the relavium command line reads too. Keys stay in your system keyring."
        )
        intro.setWordWrap(True)
        set_tone(intro, "muted")
        self.setup_button = QPushButton("Run the setup guide again")
        self.setup_button.setAutoDefault(False)
        set_variant(self.setup_button, "ghost")
        self.setup_button.clicked.connect(self.setup_requested)
        self.add_toggle = QPushButton("Add provider…")
        self.add_toggle.setObjectName("addProviderToggle")
        self.add_toggle.setCheckable(True)
        self.add_toggle.setAutoDefault(False)
        set_variant(self.add_toggle, "secondary")
        heading = QLabel("Providers")
        set_variant(heading, "group-label")
        top = QHBoxLayout()
        top.setSpacing(SPACE_2)
        top.addWidget(heading, 1)
        top.addWidget(self.setup_button)
        top.addWidget(self.add_toggle)

        self._list = QWidget()
        self._list_layout = QVBoxLayout(self._list)
        self._list_layout.setContentsMargins(0, 0, 0, 0)
        self._list_layout.setSpacing(SPACE_3)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self._list)

        # The list is the page; the add form opens on demand under the heading, not beside the list.
        self.add_box = self._add_form()
        self.add_box.setVisible(False)
        self.add_toggle.toggled.connect(self._show_add_form)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(PAD_MAIN, PAD_MAIN, PAD_MAIN, PAD_MAIN)
        layout.setSpacing(SPACE_3)
        layout.addWidget(self.banner)
        layout.addLayout(top)
        layout.addWidget(intro)
        layout.addWidget(self.add_box)
        layout.addWidget(self.file_error)
        layout.addWidget(scroll, 1)
        context.providers_changed.connect(self.rebuild)
        self.rebuild()
        # No keyring call until the tab is shown: probing the keyring is slow
        # (D-Bus) and keyring caches which backends are viable per process.

    # -- the list of providers ------------------------------------------------------

    def rebuild(self) -> None:
        """One group per provider in providers.yaml, in the file's order."""
        for row in self.rows.values():
            row.box.deleteLater()
        self.rows.clear()
        try:
            entries = self.context.provider_store().entries()
        except ProviderConfigError as exc:
            self.file_error.setText(f"providers.yaml cannot be used as it is: {error_text(exc)}. Fix the file, "
                                    "or remove it to start again from the defaults.")
            self.file_error.setVisible(True)
            entries = {}
        else:
            self.file_error.setVisible(False)
        while self._list_layout.count():
            item = self._list_layout.takeAt(0)
            if item is not None and item.widget() is not None:
                item.widget().deleteLater()  # type: ignore[union-attr]
        if not entries:
            empty = QLabel("No providers yet. Add one with “Add provider…”, or run the setup guide.")
            empty.setObjectName("providersEmpty")
            self._list_layout.addWidget(empty)
        for name, entry in entries.items():
            row = self._build_row(name, entry)
            self.rows[name] = row
            self._list_layout.addWidget(row.box)
        self._list_layout.addStretch(1)
        self._show_key_states()

    def _build_row(self, name: str, entry: ProviderEntry) -> ProviderRow:
        """A card: the name, its kind and state in words, Test and Edit; the editor opens on demand."""
        box = QFrame()
        box.setObjectName(f"provider_{name}")
        set_surface(box, "card")
        title = QLabel(name)
        title.setTextFormat(Qt.TextFormat.PlainText)
        set_variant(title, "title")
        kind = QLabel(KIND_TITLES[entry.kind])
        set_variant(kind, "caption")
        state = QLabel("…")
        state.setObjectName(f"{name}State")
        state.setTextFormat(Qt.TextFormat.PlainText)
        edit_button = QPushButton("Edit")
        edit_button.setCheckable(True)
        edit_button.setAccessibleName(f"Edit {name}")
        set_variant(edit_button, "ghost")
        key_edit = QLineEdit()
        key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        key_edit.setPlaceholderText("Paste an API key to add or replace it")
        key_edit.setAccessibleName(f"API key for {name}")
        key_edit.setObjectName(f"{name}KeyEdit")
        base_url = QLineEdit(entry.base_url)
        base_url.setAccessibleName(f"Base URL of {name}")
        allow_local = QCheckBox("Allow a local endpoint (http://localhost, LAN address)")
        allow_local.setChecked(entry.allow_local)
        row = ProviderRow(
            name=name, box=box, state=state, edit_button=edit_button, editor=QWidget(), status=QLabel("…"),
            key_edit=key_edit, save_key=QPushButton("Save key"),
            remove_key=QPushButton("Remove key"), base_url=base_url, allow_local=allow_local,
            save_endpoint=QPushButton("Save endpoint"), endpoint_status=QLabel(),
            test_button=QPushButton("Test connection"), test_status=QLabel(),
            remove_provider=QPushButton("Remove provider"),
        )
        row.test_button.setObjectName(f"{name}TestConnection")
        row.test_button.setAccessibleName(f"Test the connection to {name}")
        set_variant(row.test_button, "secondary")
        set_variant(row.remove_provider, "danger")
        for label in (row.test_status, row.endpoint_status):
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.PlainText)
        row.test_status.setVisible(False)
        row.test_button.clicked.connect(lambda: self.test_connection(name))
        row.save_key.clicked.connect(lambda: self.save_key(name))
        row.remove_key.clicked.connect(lambda: spawn(self.remove_key(name)))
        row.save_endpoint.clicked.connect(lambda: self.save_endpoint(name))
        row.remove_provider.clicked.connect(lambda: self.remove_provider(name))
        edit_button.toggled.connect(lambda shown: self._show_editor(name, shown))
        key_edit.returnPressed.connect(lambda: self.save_key(name))
        for b in (row.save_key, row.remove_key, row.save_endpoint, row.test_button, row.remove_provider, edit_button):
            b.setAutoDefault(False)

        header = QHBoxLayout()
        header.setSpacing(SPACE_3)
        names = QVBoxLayout()
        names.setSpacing(0)
        names.addWidget(title)
        names.addWidget(kind)
        header.addLayout(names)
        header.addWidget(state, 1)
        header.addWidget(row.test_button)
        header.addWidget(edit_button)

        form = QFormLayout(row.editor)
        form.setContentsMargins(0, SPACE_2, 0, 0)
        form.addRow("API key:", row.status)
        keys = QHBoxLayout()
        keys.addWidget(row.key_edit, 1)
        keys.addWidget(row.save_key)
        keys.addWidget(row.remove_key)
        form.addRow("", keys)
        endpoint = QHBoxLayout()
        endpoint.addWidget(row.base_url, 1)
        endpoint.addWidget(row.save_endpoint)
        form.addRow("Base URL:", endpoint)
        form.addRow("", row.allow_local)
        form.addRow("", row.endpoint_status)
        removal = QHBoxLayout()
        removal.addStretch(1)
        removal.addWidget(row.remove_provider)
        form.addRow("", removal)
        row.editor.setVisible(False)

        layout = QVBoxLayout(box)
        layout.setContentsMargins(SPACE_4, SPACE_3, SPACE_4, SPACE_3)
        layout.setSpacing(SPACE_2)
        layout.addLayout(header)
        layout.addWidget(row.test_status)
        layout.addWidget(row.editor)
        return row

    def _show_editor(self, name: str, shown: bool) -> None:
        row = self.rows.get(name)
        if row is not None:
            row.editor.setVisible(shown)
            row.edit_button.setText("Done" if shown else "Edit")

    def _set_state(self, row: ProviderRow, words: str, tone: str | None) -> None:
        row.state.setText(words)
        set_tone(row.state, tone)

    # -- keys ---------------------------------------------------------------------------

    def _show_key_states(self) -> None:
        """Each row's key line, from the last keyring read (the file says which reference)."""
        import os

        for name, row in self.rows.items():
            entry = self.context.provider_entry(name)
            ref = entry.api_key if entry is not None else None
            row.remove_key.setEnabled(False)
            if ref is None:
                row.status.setText("No key needed (local server)")
                words, tone = "Local server · not tested yet", "muted"
            elif ref.startswith("env:"):
                var = ref[4:]
                present = bool(os.environ.get(var))
                row.status.setText(f"From the environment variable {var}: " + ("set" if present else "not set"))
                words, tone = ("Ready", "success") if present else ("Needs a key", "warning")
            elif self._keyring_error is not None:
                row.status.setText("Unavailable (no keyring)")
                words, tone = "Keys can't be stored right now", "warning"
            elif self._hints is None:
                row.status.setText("…")
                words, tone = "…", "muted"
            else:
                hint = self._hints.get(parse_ref(ref))
                row.status.setText(f"Stored in the keyring: {hint}" if hint else "Not set")
                row.remove_key.setEnabled(hint is not None)
                words, tone = ("Ready", "success") if hint else ("Needs a key", "warning")
            if name in self._tested:  # a test's outcome says more than the key's presence
                words, tone = self._tested[name]
            self._set_state(row, words, tone)

    def _unavailable(self, exc: SecretStoreError) -> None:
        self._keyring_error = error_text(exc)
        self.banner.show_problem(self._keyring_error)

    def refresh(self) -> None:
        self.context.check_providers()
        spawn(self._refresh())

    async def _refresh(self) -> None:
        try:
            entries = await asyncio.to_thread(self._secrets.list)
        except SecretStoreError as exc:
            self._unavailable(exc)
            self._show_key_states()
            self.changed.emit()
            return
        self._keyring_error = None
        self.banner.clear()
        self._hints = {e.name: e.hint for e in entries}
        self._show_key_states()
        self.changed.emit()

    def save_key(self, name: str) -> None:
        row = self.rows[name]
        value = row.key_edit.text().strip()
        row.key_edit.clear()  # never keep the key in a widget longer than needed
        self._tested.pop(name, None)  # a new key: the last test says nothing about it
        if value:
            spawn(self._store_key(name, value))

    async def _store_key(self, name: str, value: str) -> None:
        entry = self.context.provider_entry(name)
        ref = entry.api_key if entry is not None else None
        if ref is None or not ref.startswith("secret:"):
            # The key goes to the keyring; the file is pointed at it (never at the value).
            ref = key_ref_for(name)
        secret = parse_ref(ref)
        try:
            # A closure, not call arguments: loop/executor debug logging prints the
            # arguments of what it runs, and the key must never reach a log.
            await asyncio.to_thread(lambda: self._secrets.set(secret, value))
        except SecretStoreError as exc:
            self._unavailable(exc)
            self.changed.emit()
            return
        if entry is not None and entry.api_key != ref:
            self._edit(lambda store: store.update(name, api_key=ref))
        await self._refresh()

    async def remove_key(self, name: str) -> None:
        entry = self.context.provider_entry(name)
        if entry is None or entry.api_key is None or not entry.api_key.startswith("secret:"):
            return
        try:
            await asyncio.to_thread(self._secrets.delete, parse_ref(entry.api_key))
        except SecretStoreError as exc:
            self._unavailable(exc)
            self.changed.emit()
            return
        await self._refresh()

    # -- the file ---------------------------------------------------------------------

    def _edit(self, change: Callable[[ProviderStore], object]) -> str | None:
        """Apply ``change(store)`` to providers.yaml; the error in words, or None."""
        try:
            change(self.context.provider_store())
        except (ProviderConfigError, OSError, ValueError) as exc:
            return error_text(exc) if not isinstance(exc, OSError) else f"providers.yaml cannot be written: {exc.strerror}"
        self.context.check_providers()
        return None

    def save_endpoint(self, name: str) -> None:
        row = self.rows[name]
        url = row.base_url.text().strip()
        allow_local = row.allow_local.isChecked()
        try:
            basic_validate_base_url(url, allow_local)
        except ProviderConfigError as exc:
            row.endpoint_status.setText(error_text(exc))
            return
        self._tested.pop(name, None)  # a new endpoint: the last test says nothing about it
        error = self._edit(lambda store: store.update(name, base_url=url, allow_local=allow_local))
        row = self.rows.get(name, row)  # the page may have been rebuilt from the saved file
        row.endpoint_status.setText(error or "Saved.")

    def remove_provider(self, name: str) -> None:
        error = self._edit(lambda store: store.remove(name))
        if error:
            self.file_error.setText(error)
            self.file_error.setVisible(True)
        self.changed.emit()

    # -- adding -----------------------------------------------------------------------

    def _show_add_form(self, shown: bool) -> None:
        self.add_box.setVisible(shown)
        if shown:
            self.add_name.setFocus()

    def _add_form(self) -> QWidget:
        box = QFrame()
        box.setObjectName("addProviderForm")
        set_surface(box, "card")
        self.add_name = QLineEdit()
        self.add_name.setObjectName("addProviderName")
        self.add_name.setPlaceholderText("a short name, e.g. openrouter or ollama")
        self.add_kind = QComboBox()
        for kind, title in KIND_TITLES.items():
            self.add_kind.addItem(title, kind)
        self.add_kind.setCurrentIndex(1)
        self.add_url = QLineEdit(DEFAULT_ENTRIES["openai"].base_url)
        self.add_local = QCheckBox("Allow a local endpoint (a server you run yourself)")
        self.add_button = QPushButton("Add provider")
        self.add_button.setObjectName("addProviderButton")
        self.add_button.setAutoDefault(False)
        set_variant(self.add_button, "primary")  # the page's one primary button, shown with its form
        self.add_status = QLabel()
        self.add_status.setWordWrap(True)
        self.add_status.setTextFormat(Qt.TextFormat.PlainText)
        self.add_kind.currentIndexChanged.connect(self._kind_picked)
        self.add_button.clicked.connect(self.add_provider)
        form = QFormLayout(box)
        form.setContentsMargins(SPACE_4, SPACE_3, SPACE_4, SPACE_3)
        form.addRow("Name:", self.add_name)
        form.addRow("Kind:", self.add_kind)
        form.addRow("Base URL:", self.add_url)
        form.addRow("", self.add_local)
        row = QHBoxLayout()
        row.addWidget(self.add_button)
        row.addWidget(self.add_status, 1)
        form.addRow("", row)
        return box

    def _kind_picked(self, _index: int) -> None:
        kind = str(self.add_kind.currentData())
        defaults = {e.base_url for e in DEFAULT_ENTRIES.values()}
        if not self.add_url.text().strip() or self.add_url.text().strip() in defaults:
            self.add_url.setText(DEFAULT_ENTRIES[kind].base_url)

    def add_provider(self) -> None:
        name = self.add_name.text().strip()
        kind = str(self.add_kind.currentData())
        url = self.add_url.text().strip()
        local = self.add_local.isChecked()
        try:
            basic_validate_base_url(url, local)
            entry = ProviderEntry(kind=kind, base_url=url, allow_local=local,  # type: ignore[arg-type]
                                  api_key=None if local else key_ref_for(name or "provider"))
        except (ProviderConfigError, ValueError) as exc:
            self.add_status.setText(first_line(exc))
            return
        error = self._edit(lambda store: store.add(name, entry))
        if error:
            self.add_status.setText(error)
            return
        self.add_status.setText(f"Added {name}. Open its Edit to paste a key, then test the connection.")
        self.add_name.clear()
        self.changed.emit()

    # -- test connection ------------------------------------------------------------

    def test_connection(self, name: str) -> None:
        """Send one minimal request with the fields as they are now (saved or not)."""
        row = self.rows[name]
        row.test_button.setEnabled(False)
        row.test_status.setText("Testing…")
        row.test_status.setVisible(True)
        set_tone(row.test_status, "muted")
        spawn(self._test_connection(name, row.base_url.text(), row.allow_local.isChecked()))

    async def _test_connection(self, name: str, base_url: str, allow_local: bool) -> None:
        from relavium_desktop.application.defaults import Defaults
        from relavium_desktop.application.providers import connection_test, unusable_settings_result
        from relavium_desktop.ui.settings.provider_test_text import shown_text

        result: ConnectionResult
        paths = self.context.app.paths
        try:
            route = Defaults(paths).model()  # the default model, shared with `relavium chat`
            result = await connection_test(paths, name, base_url, allow_local, route)
        except Exception as exc:  # noqa: BLE001 -- an unreadable providers.yaml etc.: say so, never crash
            result = unusable_settings_result(exc)
        row = self.rows.get(name)
        if row is not None:
            # The message's first words say the outcome ("Connected: …", "Unreachable: …"); the tone repeats it.
            # What happened, then what to do on this page -- in the card's editor, opened for it.
            row.test_status.setText(shown_text(result, where="below"))
            if result.next_step is not None:
                row.edit_button.setChecked(True)
            set_tone(row.test_status, "success" if result.ok else "danger")
            row.test_button.setEnabled(True)
            self._tested[name] = state_words(result, base_url)
            self._set_state(row, *self._tested[name])
        self.connection_tested.emit(name, result)
