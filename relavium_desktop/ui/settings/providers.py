"""Settings → Providers: API keys (keyring only) and base URLs.

A key typed here goes straight to the OS keyring through the host's
SecretStore, in a worker thread (keyring calls block on D-Bus); the field is
cleared right after and only the last four characters are ever shown again.
Nothing about a key is written to the settings file, history.db or the log.
If no keyring backend is usable the page says why and how to fix it instead
of failing.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from relavium_desktop.host.secrets import SecretStore, SecretStoreError, parse_ref
from relavium_desktop.providers.config import (
    DEFAULT_ENTRIES,
    ProviderConfigError,
    basic_validate_base_url,
)
from relavium_desktop.ui.qt import (
    QCheckBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSettings,
    Qt,
    QVBoxLayout,
    QWidget,
    Signal,
)
from relavium_desktop.ui.tasks import spawn

TITLES = {"anthropic": "Anthropic", "openai": "OpenAI / OpenAI-compatible", "gemini": "Google Gemini"}


@dataclass
class ProviderRow:
    name: str
    secret_name: str
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


class ProvidersPage(QWidget):
    changed = Signal()  # a keyring operation finished (tests and the chat view listen)
    connection_tested = Signal(str, object)  # provider name, ConnectionResult

    def __init__(self, settings: QSettings, store: SecretStore | None = None, home: Path | None = None) -> None:
        super().__init__()
        self._settings = settings
        self._store = store or SecretStore()
        self._home = home
        self.banner = QLabel()
        self.banner.setObjectName("keyringBanner")
        self.banner.setWordWrap(True)
        self.banner.setVisible(False)
        self.banner.setStyleSheet("QLabel { background: #fef3c7; color: #78350f; padding: 8px; }")
        layout = QVBoxLayout(self)
        layout.addWidget(self.banner)
        self.rows: dict[str, ProviderRow] = {}
        for name, entry in DEFAULT_ENTRIES.items():
            assert entry.api_key is not None
            row = self._build_row(name, parse_ref(entry.api_key), entry.base_url)
            self.rows[name] = row
            layout.addWidget(self._group(row))
        layout.addStretch(1)
        # No keyring call until the tab is shown: probing the keyring is slow
        # (D-Bus) and keyring caches which backends are viable per process.

    # -- layout ---------------------------------------------------------------

    def _build_row(self, name: str, secret_name: str, default_url: str) -> ProviderRow:
        key_edit = QLineEdit()
        key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        key_edit.setPlaceholderText("Paste an API key to add or replace it")
        key_edit.setObjectName(f"{name}KeyEdit")
        base_url = QLineEdit(str(self._settings.value(f"providers/{name}/base_url", default_url)))
        allow_local = QCheckBox("Allow a local endpoint (http://localhost, LAN address)")
        allow_local.setChecked(str(self._settings.value(f"providers/{name}/allow_local", "false")) == "true")
        row = ProviderRow(
            name=name, secret_name=secret_name, status=QLabel("…"), key_edit=key_edit,
            save_key=QPushButton("Save key"), remove_key=QPushButton("Remove key"), base_url=base_url,
            allow_local=allow_local, save_endpoint=QPushButton("Save endpoint"), endpoint_status=QLabel(),
            test_button=QPushButton("Test connection"), test_status=QLabel(),
        )
        row.test_button.setObjectName(f"{name}TestConnection")
        row.test_status.setWordWrap(True)
        row.test_status.setTextFormat(Qt.TextFormat.PlainText)
        row.test_button.clicked.connect(lambda: self.test_connection(name))
        row.save_key.clicked.connect(lambda: self.save_key(name))
        row.remove_key.clicked.connect(lambda: spawn(self.remove_key(name)))
        row.save_endpoint.clicked.connect(lambda: self.save_endpoint(name))
        key_edit.returnPressed.connect(lambda: self.save_key(name))
        for b in (row.save_key, row.remove_key, row.save_endpoint, row.test_button):
            b.setAutoDefault(False)
        return row

    def _group(self, row: ProviderRow) -> QGroupBox:
        box = QGroupBox(TITLES.get(row.name, row.name))
        form = QFormLayout(box)
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
        test = QHBoxLayout()
        test.addWidget(row.test_button)
        test.addWidget(row.test_status, 1)
        form.addRow("", test)
        return box

    # -- keyring ----------------------------------------------------------------

    def _unavailable(self, exc: SecretStoreError) -> None:
        self.banner.setText(f"API keys cannot be stored right now. {exc}")
        self.banner.setVisible(True)

    def refresh(self) -> None:
        spawn(self._refresh())

    async def _refresh(self) -> None:
        try:
            entries = await asyncio.to_thread(self._store.list)
        except SecretStoreError as exc:
            self._unavailable(exc)
            for row in self.rows.values():
                row.status.setText("Unavailable (no keyring)")
            self.changed.emit()
            return
        self.banner.setVisible(False)
        hints = {e.name: e.hint for e in entries}
        for row in self.rows.values():
            hint = hints.get(row.secret_name)
            row.status.setText(f"Stored in the keyring: {hint}" if hint else "Not set")
            row.remove_key.setEnabled(hint is not None)
        self.changed.emit()

    def save_key(self, name: str) -> None:
        row = self.rows[name]
        value = row.key_edit.text().strip()
        row.key_edit.clear()  # never keep the key in a widget longer than needed
        if value:
            spawn(self._store_key(row, value))

    async def _store_key(self, row: ProviderRow, value: str) -> None:
        try:
            # A closure, not call arguments: loop/executor debug logging prints the
            # arguments of what it runs, and the key must never reach a log.
            await asyncio.to_thread(lambda: self._store.set(row.secret_name, value))
        except SecretStoreError as exc:
            self._unavailable(exc)
            self.changed.emit()
            return
        await self._refresh()

    async def remove_key(self, name: str) -> None:
        row = self.rows[name]
        try:
            await asyncio.to_thread(self._store.delete, row.secret_name)
        except SecretStoreError as exc:
            self._unavailable(exc)
            self.changed.emit()
            return
        await self._refresh()

    # -- endpoint -----------------------------------------------------------------

    def save_endpoint(self, name: str) -> None:
        row = self.rows[name]
        url = row.base_url.text().strip()
        allow_local = row.allow_local.isChecked()
        try:
            basic_validate_base_url(url, allow_local)
        except ProviderConfigError as exc:
            row.endpoint_status.setText(str(exc))
            return
        self._settings.setValue(f"providers/{name}/base_url", url)
        self._settings.setValue(f"providers/{name}/allow_local", "true" if allow_local else "false")
        row.endpoint_status.setText("Saved.")

    # -- test connection ------------------------------------------------------------

    def test_connection(self, name: str) -> None:
        """Send one minimal request with the fields as they are now (saved or not)."""
        row = self.rows[name]
        row.test_button.setEnabled(False)
        row.test_status.setText("Testing…")
        spawn(self._test_connection(row))

    async def _test_connection(self, row: ProviderRow) -> None:
        from relavium_desktop.ui.settings.connection import ConnectionResult, run_connection_test

        if self._home is None:
            from relavium_desktop.host.datadir import data_dir

            self._home = data_dir()
        route = self._settings.value("chat/model")  # the chat's model picker (ui/chat/backend.KEY_MODEL)
        try:
            result = await run_connection_test(self._home, row.name, row.base_url.text(),
                                               row.allow_local.isChecked(),
                                               route if isinstance(route, str) else None)
        except Exception as exc:  # noqa: BLE001 -- an unreadable providers.yaml etc.: say so, never crash
            result = ConnectionResult("config", f"The provider settings are not usable: {type(exc).__name__}")
        row.test_status.setText(("✓ " if result.ok else "✗ ") + result.message)
        row.test_status.setStyleSheet("color: #166534;" if result.ok else "color: #991b1b;")
        row.test_button.setEnabled(True)
        self.connection_tested.emit(row.name, result)
