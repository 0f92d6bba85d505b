"""Settings → Chat tools, second half: what chat's web_search, http_request and run_command are pinned to.

Chat has no agent file to carry a ``tool_config``, so this section is its
equivalent: the search provider (Brave or a SearXNG URL) and its key, one
credential per HTTP host, and run_command's working folder, timeout and
environment.  It is stored as the engine's own ``tool_config`` JSON under
``chat/tool_config`` and read by the chat view every turn.

run_command's environment passes the engine's env allowlist: inert names
(CI, TZ, LANG, ...) always, any other harmless name once it is listed under
"Allowed variables" -- chat's ``allowedEnv``, stored in the chat policy
(``chat/policy``) beside the command and domain allowlists, the same field
a workflow's ``tools.allowedEnv`` and ``--policy`` use.  Names in a hijack
family (LD_PRELOAD, PYTHONPATH, proxies, tokens, ...) cannot be listed.

A key typed here goes straight to the OS keyring (the host's SecretStore, in
a worker thread, as Settings → Providers does); the stored config holds only
its ``secret:NAME`` reference, and the field is cleared at once.  Every save
is checked by the engine's ``parse_tool_config`` against the built-in tools
— the same rule ``relavium chat --tool-config`` and an agent file meet — so
this page cannot store a config another surface would refuse.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import TYPE_CHECKING, Any

from relavium_desktop.application.base_urls import check_base_url_shape
from relavium_desktop.application.secrets import SecretStore, SecretStoreError
from relavium_desktop.engine.agent.tool_config import ToolConfigError, parse_tool_config
from relavium_desktop.engine.errors import ToolError
from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS
from relavium_desktop.engine.tools.command_policy import AllowlistEntryError
from relavium_desktop.engine.tools.domain_policy import validate_domain_entry
from relavium_desktop.engine.tools.env_policy import (
    AllowedEnvEntryError,
    env_refusal,
    validate_allowed_env_entry,
)
from relavium_desktop.ui.chat.backend import KEY_POLICY, KEY_TOOL_CONFIG
from relavium_desktop.ui.error_text import error_text
from relavium_desktop.ui.qt import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    Qt,
    QVBoxLayout,
    QWidget,
    Signal,
)
from relavium_desktop.ui.tasks import spawn
from relavium_desktop.ui.theme import set_tone

if TYPE_CHECKING:
    from relavium_desktop.ui.qt import QSettings

VALUE_ROLE = Qt.ItemDataRole.UserRole
SEARCH_KEY_NAME = "CHAT_WEB_SEARCH_KEY"
_TOOLS = {t.id: t for t in BUILTIN_TOOLS}
_REF_RE = re.compile(r"^secret:[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def http_key_name(domain: str) -> str:
    """The keyring name a key typed for ``domain`` (normalised) is stored under."""
    return "CHAT_HTTP_" + re.sub(r"[^A-Za-z0-9]", "_", domain).upper()


def read_tool_config(settings: QSettings) -> tuple[dict[str, Any], str | None]:
    """The stored ``{tool_id: {parameters}}`` and, when the engine refuses it, why (tool and field only)."""
    raw = settings.value(KEY_TOOL_CONFIG)
    if not raw:
        return {}, None
    try:
        data = json.loads(str(raw))
    except ValueError:
        return {}, "the stored chat tool settings were not valid JSON and are ignored"
    if not isinstance(data, dict):
        return {}, "the stored chat tool settings were not a JSON object and are ignored"
    try:
        parse_tool_config(data, _TOOLS.get)
    except ToolConfigError as exc:
        return data, f"{error_text(exc)}; chat ignores these settings until this is fixed"
    return data, None


def read_allowed_env(settings: QSettings) -> list[str]:
    """Chat's ``allowedEnv`` from the stored chat policy (entries the engine refuses are dropped)."""
    raw = settings.value(KEY_POLICY)
    try:
        data = json.loads(str(raw)) if raw else {}
    except ValueError:
        return []
    names = data.get("allowedEnv") if isinstance(data, dict) else None
    out: list[str] = []
    for name in names if isinstance(names, list) else []:
        try:
            out.append(validate_allowed_env_entry(name))
        except AllowedEnvEntryError:
            continue
    return out


def write_allowed_env(settings: QSettings, names: list[str]) -> None:
    """Store ``names`` as the chat policy's ``allowedEnv``, keeping its other lists as they are."""
    raw = settings.value(KEY_POLICY)
    try:
        data = json.loads(str(raw)) if raw else {}
    except ValueError:
        data = {}
    if not isinstance(data, dict):
        data = {}
    if names:
        data["allowedEnv"] = names
    else:
        data.pop("allowedEnv", None)
    settings.setValue(KEY_POLICY, json.dumps(data))


def _params(data: dict[str, Any], tool_id: str) -> dict[str, Any]:
    entry = data.get(tool_id)
    params = entry.get("parameters") if isinstance(entry, dict) else None
    return dict(params) if isinstance(params, dict) else {}


class ToolConfigSection(QWidget):
    """Web search provider, per-host HTTP credentials and run_command's settings for chat."""

    saved = Signal()  # the config in settings changed (or a save was refused: see ``error``)

    def __init__(self, settings: QSettings, store: SecretStore | None = None) -> None:
        super().__init__()
        self._settings = settings
        self._secrets = store or SecretStore()
        self._search_ref: str | None = None
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setTextFormat(Qt.TextFormat.PlainText)
        set_tone(self.error, "danger")
        self.status = QLabel()
        self.status.setWordWrap(True)
        set_tone(self.status, "muted")

        # -- web_search
        search = QGroupBox("Web search (web_search)")
        self.provider = QComboBox()
        self.provider.addItem("Brave Search", "brave")
        self.provider.addItem("SearXNG", "searxng")
        self.search_url = QLineEdit()
        self.search_url.setPlaceholderText("SearXNG: https://searx.example.org (Brave: leave empty)")
        self.allow_local = QCheckBox("The search server is on this computer or my local network")
        self.search_key = QLineEdit()
        self.search_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.search_key.setPlaceholderText("API key (kept in the system keyring), or secret:NAME")
        self.search_key_state = QLabel()
        set_tone(self.search_key_state, "muted")
        self.search_key_forget = QPushButton("Forget key")
        key_state = QHBoxLayout()
        key_state.addWidget(self.search_key_state, 1)
        key_state.addWidget(self.search_key_forget)
        form = QFormLayout(search)
        form.addRow("Provider", self.provider)
        form.addRow("URL", self.search_url)
        form.addRow("", self.allow_local)
        form.addRow("Key", self.search_key)
        form.addRow("", key_state)

        # -- http_request credentials per host
        http = QGroupBox("HTTP credentials (http_request)")
        http_help = QLabel("A key is sent only with requests to exactly that host, never to another host and "
                           "never across a redirect. The host still has to be allowed under Domains.")
        http_help.setWordWrap(True)
        set_tone(http_help, "muted")
        self.credentials = QListWidget()
        self.cred_domain = QLineEdit()
        self.cred_domain.setPlaceholderText("api.example.com")
        self.cred_key = QLineEdit()
        self.cred_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.cred_key.setPlaceholderText("API key (kept in the keyring), or secret:NAME")
        self.cred_add = QPushButton("Add")
        self.cred_remove = QPushButton("Remove")
        row = QHBoxLayout()
        row.addWidget(self.cred_domain, 1)
        row.addWidget(self.cred_key, 1)
        row.addWidget(self.cred_add)
        row.addWidget(self.cred_remove)
        http_layout = QVBoxLayout(http)
        http_layout.addWidget(http_help)
        http_layout.addWidget(self.credentials)
        http_layout.addLayout(row)

        # -- run_command
        commands = QGroupBox("Command settings (run_command)")
        self.cwd = QLineEdit()
        self.cwd.setPlaceholderText("working folder (empty: the project folder)")
        self.timeout = QSpinBox()
        self.timeout.setRange(0, 24 * 60 * 60)
        self.timeout.setSuffix(" s")
        self.timeout.setSpecialValueText("default (120 s)")
        self.env = QListWidget()
        self.env_edit = QLineEdit()
        self.env_edit.setPlaceholderText("NAME=value")
        self.env_add = QPushButton("Add")
        self.env_remove = QPushButton("Remove")
        env_row = QHBoxLayout()
        env_row.addWidget(self.env_edit, 1)
        env_row.addWidget(self.env_add)
        env_row.addWidget(self.env_remove)
        # allowedEnv: harmless names beyond the inert set (CI, TZ, LANG, ...), one per line.
        self.allowed_env = QListWidget()
        self.allowed_env_edit = QLineEdit()
        self.allowed_env_edit.setPlaceholderText("a harmless variable name, e.g. MY_APP_MODE")
        self.allowed_env_add = QPushButton("Allow")
        self.allowed_env_remove = QPushButton("Remove")
        allowed_row = QHBoxLayout()
        allowed_row.addWidget(self.allowed_env_edit, 1)
        allowed_row.addWidget(self.allowed_env_add)
        allowed_row.addWidget(self.allowed_env_remove)
        allowed_help = QLabel("Inert names (CI, NODE_ENV, TZ, LANG, LC_*, TERM, NO_COLOR, FORCE_COLOR, COLUMNS) "
                              "are always passed; list any other harmless name here first. Loader, interpreter, "
                              "proxy and credential variables (LD_PRELOAD, PYTHONPATH, HTTPS_PROXY, *_TOKEN, ...) "
                              "can never be allowed.")
        allowed_help.setWordWrap(True)
        set_tone(allowed_help, "muted")
        cmd_form = QFormLayout(commands)
        cmd_form.addRow("Working folder", self.cwd)
        cmd_form.addRow("Timeout", self.timeout)
        cmd_form.addRow("Environment", self.env)
        cmd_form.addRow("", env_row)
        cmd_form.addRow("Allowed variables", self.allowed_env)
        cmd_form.addRow("", allowed_row)
        cmd_form.addRow("", allowed_help)

        self.save_button = QPushButton("Save tool settings")
        for b in (self.cred_add, self.cred_remove, self.env_add, self.env_remove, self.save_button,
                  self.search_key_forget, self.allowed_env_add, self.allowed_env_remove):
            b.setAutoDefault(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(search)
        layout.addWidget(http)
        layout.addWidget(commands)
        buttons = QHBoxLayout()
        buttons.addWidget(self.status, 1)
        buttons.addWidget(self.save_button)
        layout.addLayout(buttons)
        layout.addWidget(self.error)

        self.save_button.clicked.connect(self.save)
        self.search_key_forget.clicked.connect(lambda: spawn(self.forget_search_key()))
        self.cred_add.clicked.connect(self.add_credential)
        self.cred_remove.clicked.connect(self._remove_credential)
        self.env_add.clicked.connect(self.add_env)
        self.env_edit.returnPressed.connect(self.add_env)
        self.env_remove.clicked.connect(self._remove_env)
        self.allowed_env_add.clicked.connect(self.add_allowed_env)
        self.allowed_env_edit.returnPressed.connect(self.add_allowed_env)
        self.allowed_env_remove.clicked.connect(self._remove_allowed_env)
        self.load()

    # -- load ------------------------------------------------------------------------

    def load(self) -> None:
        data, problem = read_tool_config(self._settings)
        search = _params(data, "web_search")
        index = self.provider.findData(search.get("provider", "brave"))
        self.provider.setCurrentIndex(max(index, 0))
        self.search_url.setText(str(search.get("baseUrl") or ""))
        self.allow_local.setChecked(bool(search.get("allowLocal")))
        ref = search.get("credentialRef")
        self._search_ref = ref if isinstance(ref, str) else None
        self._show_search_key()
        self.credentials.clear()
        refs = _params(data, "http_request").get("credentialRefs")
        for domain, cred in (refs.items() if isinstance(refs, dict) else ()):
            self._add_credential_item(str(domain), str(cred))
        command = _params(data, "run_command")
        self.cwd.setText(str(command.get("cwd") or ""))
        timeout_ms = command.get("timeoutMs")
        self.timeout.setValue(int(timeout_ms) // 1000 if isinstance(timeout_ms, int) else 0)
        self.env.clear()
        env = command.get("env")
        for name, value in (env.items() if isinstance(env, dict) else ()):
            self._add_env_item(str(name), str(value))
        self.allowed_env.clear()
        self.allowed_env.addItems(read_allowed_env(self._settings))
        self.error.setText(problem or "")

    # -- edits -----------------------------------------------------------------------

    def add_credential(self) -> None:
        try:
            domain = validate_domain_entry(self.cred_domain.text(), field="host")
        except AllowlistEntryError as exc:
            self.error.setText(error_text(exc))
            return
        typed = self.cred_key.text().strip()
        self.cred_key.clear()  # never keep a key in a widget longer than needed
        if not typed:
            self.error.setText(f"type the key (or a secret:NAME reference) for {domain}")
            return
        spawn(self._add_credential(domain, typed))

    async def _add_credential(self, domain: str, typed: str) -> None:
        ref = await self._reference_for(typed, http_key_name(domain))
        if ref is None:
            return
        for i in range(self.credentials.count()):
            if self.credentials.item(i).data(VALUE_ROLE)[0] == domain:
                self.credentials.takeItem(i)
                break
        self._add_credential_item(domain, ref)
        self.cred_domain.clear()
        self.save()

    def _add_credential_item(self, domain: str, ref: str) -> None:
        item = QListWidgetItem(f"{domain}  →  {ref}")
        item.setData(VALUE_ROLE, (domain, ref))
        self.credentials.addItem(item)

    def _remove_credential(self) -> None:
        row = self.credentials.currentRow()
        if 0 <= row < self.credentials.count():
            self.credentials.takeItem(row)
            self.save()

    def add_env(self) -> None:
        name, sep, value = self.env_edit.text().partition("=")
        name = name.strip()
        if not sep or not name:
            self.error.setText("type an environment variable as NAME=value")
            return
        refusal = env_refusal("run_command", name, self.allowed_names())
        if refusal is not None:
            self.error.setText(refusal)
            return
        for i in range(self.env.count()):
            if self.env.item(i).data(VALUE_ROLE)[0] == name:
                self.env.takeItem(i)
                break
        self._add_env_item(name, value)
        self.env_edit.clear()
        self.error.setText("")

    def _add_env_item(self, name: str, value: str) -> None:
        item = QListWidgetItem(f"{name}={value}")
        item.setData(VALUE_ROLE, (name, value))
        self.env.addItem(item)

    def _remove_env(self) -> None:
        row = self.env.currentRow()
        if 0 <= row < self.env.count():
            self.env.takeItem(row)

    def allowed_names(self) -> list[str]:
        return [self.allowed_env.item(i).text() for i in range(self.allowed_env.count())]

    def add_allowed_env(self) -> None:
        """List a harmless name in chat's allowedEnv (stored at once, like the command allowlist)."""
        try:
            name = validate_allowed_env_entry(self.allowed_env_edit.text().strip(), field="Allowed variables")
        except AllowedEnvEntryError as exc:
            self.error.setText(error_text(exc))
            return
        if name.upper() not in {n.upper() for n in self.allowed_names()}:
            self.allowed_env.addItem(name)
        self.allowed_env_edit.clear()
        self.error.setText("")
        write_allowed_env(self._settings, self.allowed_names())
        self.saved.emit()

    def _remove_allowed_env(self) -> None:
        row = self.allowed_env.currentRow()
        if 0 <= row < self.allowed_env.count():
            self.allowed_env.takeItem(row)
            write_allowed_env(self._settings, self.allowed_names())
            self.saved.emit()

    # -- save ------------------------------------------------------------------------

    def save(self) -> None:
        """Store the form if the engine accepts it; a typed search key first goes to the keyring."""
        typed = self.search_key.text().strip()
        self.search_key.clear()
        spawn(self._save(typed))

    async def _save(self, typed_key: str) -> None:
        if typed_key:
            ref = await self._reference_for(typed_key, SEARCH_KEY_NAME)
            if ref is None:
                self.saved.emit()
                return
            self._search_ref = ref
        data = self.config()
        try:
            self._check_search_url()
            parse_tool_config(data, _TOOLS.get, allowed_env=self.allowed_names())
        except (ToolConfigError, ToolError) as exc:
            self.error.setText(error_text(exc))
            self.status.setText("")
            self.saved.emit()
            return
        self._settings.setValue(KEY_TOOL_CONFIG, json.dumps(data))
        self._show_search_key()
        self.error.setText("")
        self.status.setText("Saved; chat uses these settings from the next message.")
        self.saved.emit()

    def _show_search_key(self) -> None:
        self.search_key_state.setText(f"Key: {self._search_ref}" if self._search_ref else "No key set")
        self.search_key_forget.setEnabled(self._search_ref is not None)

    async def forget_search_key(self) -> None:
        """Drop the search key: the keyring entry this page made goes too; a named reference is only unlinked."""
        ref, self._search_ref = self._search_ref, None
        if ref == f"secret:{SEARCH_KEY_NAME}":
            try:
                await asyncio.to_thread(self._secrets.delete, SEARCH_KEY_NAME)
            except SecretStoreError as exc:
                self.error.setText(f"the key could not be removed from the system keyring: {error_text(exc)}")
        await self._save("")

    def _check_search_url(self) -> None:
        """SearXNG needs its URL; any URL must pass the egress rule for a configured base URL."""
        url = self.search_url.text().strip()
        if self.provider.currentData() == "searxng" and not url:
            raise ToolConfigError("web search: SearXNG needs the URL of its server")
        if url:
            try:
                check_base_url_shape(url, allow_local=self.allow_local.isChecked(),
                                     opt_in="'on this computer or my local network'")
            except ToolError as exc:
                raise ToolConfigError(f"web search URL: {exc.message}") from None

    def config(self) -> dict[str, Any]:
        """The form as the engine's ``{tool_id: {parameters}}`` (entries left at defaults are omitted)."""
        data: dict[str, Any] = {}
        search: dict[str, Any] = {"provider": self.provider.currentData()}
        if self.search_url.text().strip():
            search["baseUrl"] = self.search_url.text().strip()
        if self.allow_local.isChecked():
            search["allowLocal"] = True
        if self._search_ref:
            search["credentialRef"] = self._search_ref
        if search != {"provider": "brave"}:
            data["web_search"] = {"parameters": search}
        refs = dict(self.credentials.item(i).data(VALUE_ROLE) for i in range(self.credentials.count()))
        if refs:
            data["http_request"] = {"parameters": {"credentialRefs": refs}}
        command: dict[str, Any] = {}
        if self.cwd.text().strip():
            command["cwd"] = self.cwd.text().strip()
        if self.timeout.value():
            command["timeoutMs"] = self.timeout.value() * 1000
        env = dict(self.env.item(i).data(VALUE_ROLE) for i in range(self.env.count()))
        if env:
            command["env"] = env
        if command:
            data["run_command"] = {"parameters": command}
        return data

    async def _reference_for(self, typed: str, name: str) -> str | None:
        """``typed`` if it is a reference, else the reference of the keyring entry it was just stored in."""
        if typed.startswith("secret:"):
            if not _REF_RE.match(typed):
                self.error.setText("a reference looks like secret:NAME (letters, digits, '.', '_' or '-')")
                return None
            return typed
        try:
            # A closure, not call arguments: executor debug logging would print the key.
            await asyncio.to_thread(lambda: self._secrets.set(name, typed))
        except SecretStoreError as exc:
            self.error.setText(f"the key could not be stored in the system keyring: {error_text(exc)}")
            return None
        return f"secret:{name}"
