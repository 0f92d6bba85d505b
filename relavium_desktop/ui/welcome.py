"""The first-run flow: connect a provider (and store its key), pick a model, done.

Shown instead of an empty chat while no provider can answer, so setup is
three short steps instead of one error at a time: (1) choose how -- a local
model server found on this computer, or a cloud provider with its API key --
(2) the model, (3) done (with an optional project folder).  A found local
server needs no key, so it leads straight to the model step, where a sole
model is already picked.  Next stays off until the step has a choice;
skipping is offered in one place ("Skip setup"), and the whole flow can be
run again from Settings → Providers.  The keyring is touched only when a key
is saved in the key step (never to look at the screen's first paint).
What it writes is what the rest of the app reads: the provider goes into
providers.yaml (through the context's store), the key into the keyring
(the file names it as ``secret:NAME``), the model into defaults.json (the
default model the chat and ``relavium chat`` both use), the folder into the
project.

Local model servers are looked for only when the user clicks "Look for a
local model server": contacting a port on this machine is an explicit
opt-in, and only the loopback address is tried.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from relavium_desktop.ui import app_settings as keys
from relavium_desktop.ui.error_text import error_text
from relavium_desktop.ui.qt import (
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
from relavium_desktop.ui.theme import set_tone, set_variant
from relavium_desktop.ui.theme.tokens import PAD_MAIN, READING_WIDTH, SPACE_2, SPACE_3, SPACE_5, SPACE_6

# asyncio loads after the first paint: a fresh start paints this view first.
if TYPE_CHECKING:
    import asyncio

    from relavium_desktop.application.local_servers import FoundServer, LocalServerKind
    from relavium_desktop.application.providers import ProviderEntry
    from relavium_desktop.ui.context import AppContext

STEP_PROVIDER, STEP_KEY, STEP_MODEL, STEP_PROJECT = range(4)  # the stacked pages
STEP_COUNT = 3  # what the user is told: the key page is part of step 1 ("choose how")
# Page -> (the step's number as the user counts, its title).
STEP_TITLES: dict[int, tuple[int, str]] = {
    STEP_PROVIDER: (1, "Connect a model"),
    STEP_KEY: (1, "Add your API key"),
    STEP_MODEL: (2, "Pick a model"),
    STEP_PROJECT: (3, "Ready to chat"),
}
MODEL_LIST_MAX_ROWS = 6  # the model list grows with its rows up to this many, then scrolls


@dataclass(frozen=True, slots=True)
class CloudChoice:
    name: str  # the provider's name in providers.yaml
    label: str
    kind: str
    base_url: str
    key_help: str


CLOUD_CHOICES: tuple[CloudChoice, ...] = (
    CloudChoice("anthropic", "Anthropic (Claude)", "anthropic", "https://api.anthropic.com",
                "Create a key at console.anthropic.com → API keys."),
    CloudChoice("openai", "OpenAI", "openai", "https://api.openai.com/v1",
                "Create a key at platform.openai.com → API keys."),
    CloudChoice("gemini", "Google Gemini", "gemini", "https://generativelanguage.googleapis.com",
                "Create a key in Google AI Studio → Get API key."),
    CloudChoice("openrouter", "OpenRouter", "openai", "https://openrouter.ai/api/v1",
                "Create a key at openrouter.ai → Keys."),
)


def _heading(text: str) -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    set_tone(label, "title")
    return label


def _page_layout(page: QWidget) -> QVBoxLayout:
    """A step's column: flush with the title above it, on the 4 px grid."""
    layout = QVBoxLayout(page)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(SPACE_2)
    return layout


def _fit_rows(rows: QListWidget) -> None:
    """As tall as its rows (up to MODEL_LIST_MAX_ROWS), so one entry is one row, not an empty box."""
    count = rows.count()
    rows.setVisible(count > 0)
    if count == 0:
        return
    row = max(rows.sizeHintForRow(0), 1)
    rows.setFixedHeight(row * min(count, MODEL_LIST_MAX_ROWS) + 2 * rows.frameWidth() + SPACE_2)


def _text(text: str) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label


class StepPages(QWidget):
    """The flow's pages, one shown at a time, the column as tall as the page shown.

    Unlike a QStackedWidget (as tall as its tallest page), hidden pages take no room, so
    the buttons under the step sit right under what it shows.
    """

    def __init__(self) -> None:
        super().__init__()
        self._pages: list[QWidget] = []
        self._current = -1
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)

    def addWidget(self, page: QWidget) -> None:
        self._pages.append(page)
        self._layout.addWidget(page)
        page.setVisible(False)
        if self._current < 0:
            self.setCurrentIndex(0)

    def count(self) -> int:
        return len(self._pages)

    def widget(self, index: int) -> QWidget:
        return self._pages[index]

    def currentIndex(self) -> int:
        return self._current

    def currentWidget(self) -> QWidget | None:
        return self._pages[self._current] if 0 <= self._current < len(self._pages) else None

    def setCurrentIndex(self, index: int) -> None:
        self._current = index
        for i, page in enumerate(self._pages):
            page.setVisible(i == index)


class WelcomeView(QWidget):
    finished = Signal(str)  # "done" (a provider was set up) or "skipped"
    choose_project = Signal()  # the window owns the folder dialog
    step_changed = Signal(int)

    def __init__(self, context: AppContext, local_candidates: Sequence[LocalServerKind] | None = None) -> None:
        super().__init__()
        self.setObjectName("welcomeView")
        self.context = context
        self._candidates = local_candidates
        self.provider: str | None = None  # the provider set up in step 1
        self.found: list[FoundServer] = []
        self._task: asyncio.Task[Any] | None = None

        self.step_label = QLabel()
        self.step_label.setObjectName("welcomeStep")
        set_tone(self.step_label, "muted")
        self.skip_all = QPushButton("Skip setup")
        self.skip_all.setObjectName("welcomeSkipAll")
        self.skip_all.setToolTip("Start without a model; set one up later in Settings → Providers.")
        set_variant(self.skip_all, "ghost")
        self.skip_all.clicked.connect(lambda: self.finish("skipped"))
        top = QHBoxLayout()
        top.addWidget(self.step_label, 1)

        self.steps = StepPages()
        self.steps.addWidget(self._provider_step())
        self.steps.addWidget(self._key_step())
        self.steps.addWidget(self._model_step())
        self.steps.addWidget(self._project_step())

        self.back_button = QPushButton("Back")
        set_variant(self.back_button, "secondary")
        self.next_button = QPushButton("Next")
        self.next_button.setObjectName("welcomeNext")
        for b in (self.back_button, self.next_button, self.skip_all):
            b.setAutoDefault(False)
        self.back_button.clicked.connect(self.previous_step)
        self.next_button.clicked.connect(self.next_step)
        nav = QHBoxLayout()
        nav.setSpacing(SPACE_2)
        nav.addWidget(self.skip_all)
        nav.addStretch(1)
        nav.addWidget(self.back_button)
        nav.addWidget(self.next_button)

        column = QVBoxLayout()
        column.setSpacing(SPACE_3)
        column.addSpacing(2 * SPACE_6)  # anchored near the top: the title does not jump between steps
        column.addWidget(_heading("Welcome to Relavium"))
        column.addWidget(_text("Three short steps and you are chatting: connect a model, pick it, done."))
        column.addSpacing(SPACE_2)
        column.addLayout(top)
        column.addWidget(self.steps)
        column.addSpacing(SPACE_2)
        column.addLayout(nav)
        column.addStretch(1)
        frame = QWidget()
        frame.setObjectName("welcomeColumn")
        frame.setMaximumWidth(READING_WIDTH)
        frame.setLayout(column)
        outer = QHBoxLayout(self)
        outer.setContentsMargins(PAD_MAIN, SPACE_5, PAD_MAIN, PAD_MAIN)
        outer.addStretch(1)
        outer.addWidget(frame, 4)
        outer.addStretch(1)
        self._key_saved = False  # the key step's key reached the keyring
        context.project_changed.connect(self._project_chosen)
        self.go(STEP_PROVIDER)

    # -- steps -------------------------------------------------------------------------

    def _provider_step(self) -> QWidget:
        page = QWidget()
        layout = _page_layout(page)
        layout.addWidget(_text("Chat needs a model. Use a cloud provider with your API key, or a model "
                               "server running on this computer (Ollama, LM Studio)."))
        self.cloud_buttons: dict[str, QPushButton] = {}
        for choice in CLOUD_CHOICES:
            button = QPushButton(choice.label)
            button.setObjectName(f"welcome_{choice.name}")
            button.setAutoDefault(False)
            set_variant(button, "secondary")
            button.clicked.connect(lambda _c=False, ch=choice: self.pick_cloud(ch))
            self.cloud_buttons[choice.name] = button
            layout.addWidget(button)
        self.look_button = QPushButton("Look for a local model server")
        self.look_button.setObjectName("welcomeLookLocal")
        self.look_button.setAutoDefault(False)
        set_variant(self.look_button, "secondary")
        self.look_button.setToolTip("Checks this computer only (127.0.0.1), on the ports Ollama and LM Studio "
                                    "use. Nothing is contacted until you click.")
        self.look_button.clicked.connect(self.look_for_local)
        layout.addWidget(self.look_button)
        self.local_status = _text("")
        self.local_status.setObjectName("welcomeLocalStatus")
        layout.addWidget(self.local_status)
        self.local_list = QListWidget()
        self.local_list.setObjectName("welcomeLocalList")
        self.local_list.setVisible(False)
        self.local_list.itemActivated.connect(lambda item: self.pick_local(self.local_list.row(item)))
        self.local_list.itemClicked.connect(lambda item: self.pick_local(self.local_list.row(item)))
        layout.addWidget(self.local_list)
        self.provider_status = _text("")
        self.provider_status.setObjectName("welcomeProviderStatus")
        layout.addWidget(self.provider_status)
        layout.addStretch(1)
        return page

    def _key_step(self) -> QWidget:
        page = QWidget()
        layout = _page_layout(page)
        self.key_help = _text("")
        layout.addWidget(self.key_help)
        self.key_edit = QLineEdit()
        self.key_edit.setObjectName("welcomeKey")
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setPlaceholderText("Paste the API key")
        self.key_edit.returnPressed.connect(self.save_and_test)
        self.test_button = QPushButton("Save and test")
        self.test_button.setObjectName("welcomeTestKey")
        self.test_button.setAutoDefault(False)
        set_variant(self.test_button, "primary")  # the key step's one primary: Next waits for a saved key
        self.test_button.clicked.connect(self.save_and_test)
        row = QHBoxLayout()
        row.addWidget(self.key_edit, 1)
        row.addWidget(self.test_button)
        layout.addLayout(row)
        layout.addWidget(_text("The key is stored in your system keyring, never in a file."))
        self.key_status = _text("")
        self.key_status.setObjectName("welcomeKeyStatus")
        layout.addWidget(self.key_status)
        layout.addStretch(1)
        return page

    def _model_step(self) -> QWidget:
        page = QWidget()
        layout = _page_layout(page)
        self.model_status = _text("")
        self.model_status.setObjectName("welcomeModelStatus")
        layout.addWidget(self.model_status)
        self.model_list = QListWidget()
        self.model_list.setObjectName("welcomeModels")
        self.model_list.setAccessibleName("Models")
        self.model_list.currentRowChanged.connect(self._model_picked)
        self.model_list.setVisible(False)  # shown, as tall as its rows, once the provider listed them
        layout.addWidget(self.model_list)
        layout.addStretch(1)
        return page

    def _project_step(self) -> QWidget:
        page = QWidget()
        layout = _page_layout(page)
        layout.addWidget(_text("Agents read and change files only inside the project folder you choose. "
                               "Without one, chat still works, with file and command tools off."))
        self.project_button = QPushButton("Choose a project folder…")
        self.project_button.setObjectName("welcomeChooseProject")
        self.project_button.setAutoDefault(False)
        self.project_button.clicked.connect(self.choose_project)
        layout.addWidget(self.project_button)
        self.project_status = _text("")
        self.project_status.setObjectName("welcomeProjectStatus")
        layout.addWidget(self.project_status)
        layout.addStretch(1)
        return page

    # -- navigation -----------------------------------------------------------------

    def go(self, step: int) -> None:
        step = max(STEP_PROVIDER, min(STEP_PROJECT, step))
        if step == STEP_KEY and not self._needs_key():
            step = STEP_MODEL if self.steps.currentIndex() < STEP_KEY else STEP_PROVIDER
        self.steps.setCurrentIndex(step)
        number, title = STEP_TITLES[step]
        self.step_label.setText(f"Step {number} of {STEP_COUNT} · {title}")
        self.back_button.setVisible(step > STEP_PROVIDER)  # nothing to go back to on the first step
        self.next_button.setText("Start chatting" if step == STEP_PROJECT else "Next")
        # One primary per step: on the key step it is "Save and test"; elsewhere it is Next.
        set_variant(self.next_button, "secondary" if step == STEP_KEY else "primary")
        if step == STEP_KEY:
            self.check_stored_key()
        if step == STEP_MODEL:
            self.load_models()
        if step == STEP_PROJECT:
            self._project_chosen(self.context.project)
        self._update_next()
        self.step_changed.emit(step)

    def _update_next(self) -> None:
        """Next is on only when the step has its choice: a provider, a saved key, a model."""
        step = self.steps.currentIndex()
        if step == STEP_PROVIDER:
            ready = self.provider is not None
        elif step == STEP_KEY:
            ready = self._key_saved
        elif step == STEP_MODEL:
            ready = self.model_list.currentRow() >= 0
        else:
            ready = True
        self.next_button.setEnabled(ready)

    def next_step(self) -> None:
        if not self.next_button.isEnabled():
            return
        if self.steps.currentIndex() == STEP_PROJECT:
            self.finish("done" if self.provider else "skipped")
        else:
            self.go(self.steps.currentIndex() + 1)

    def previous_step(self) -> None:
        step = self.steps.currentIndex()
        # Back from the model step goes to the key page only when that provider needs a key.
        self.go(STEP_KEY if step == STEP_MODEL and self._needs_key() else
                STEP_PROVIDER if step == STEP_MODEL else step - 1)

    def finish(self, how: str) -> None:
        self.context.settings.setValue(keys.KEY_WELCOME_DONE, how)
        self.context.check_providers()
        self.finished.emit(how)

    # -- step 1: the provider -------------------------------------------------------------

    def _save_provider(self, name: str, entry: ProviderEntry) -> bool:
        """Add ``name`` to providers.yaml, or point the existing entry at this endpoint."""
        from relavium_desktop.application.providers import ProviderConfigError

        store = self.context.provider_store()
        try:
            existing = self.context.provider_entry(name)
            if existing is None:
                store.add(name, entry)
            else:
                # A keyless local server stays keyless; a cloud entry keeps the key reference it had.
                key = None if entry.api_key is None else existing.api_key or entry.api_key
                store.update(name, kind=entry.kind, base_url=entry.base_url, allow_local=entry.allow_local,
                             api_key=key)
        except (ProviderConfigError, OSError, ValueError) as exc:
            self.provider_status.setText(f"Could not save the provider: {error_text(exc)}")
            return False
        self.provider = name
        self.context.check_providers()
        return True

    def pick_cloud(self, choice: CloudChoice) -> None:
        from relavium_desktop.application.providers import ProviderEntry
        from relavium_desktop.ui.settings.providers import key_ref_for

        existing = self.context.provider_entry(choice.name)
        ref = existing.api_key if existing is not None and existing.api_key else key_ref_for(choice.name)
        entry = ProviderEntry(kind=choice.kind, base_url=choice.base_url, api_key=ref)  # type: ignore[arg-type]
        if self._save_provider(choice.name, entry):
            self.key_help.setText(f"Paste your {choice.label} API key. {choice.key_help}")
            self.key_status.setText("")
            self._key_saved = False
            self.go(STEP_KEY)

    def look_for_local(self) -> None:
        from relavium_desktop.ui.tasks import spawn

        self.look_button.setEnabled(False)
        self.local_status.setText("Looking on this computer…")
        self._task = spawn(self._look())

    async def _look(self) -> None:
        from relavium_desktop.application.local_servers import KNOWN_LOCAL_SERVERS, find_local_servers

        try:
            self.found = await find_local_servers(self._candidates or KNOWN_LOCAL_SERVERS)
        finally:
            self.look_button.setEnabled(True)
        self.local_list.clear()
        for server in self.found:
            count = len(server.models)
            self.local_list.addItem(QListWidgetItem(
                f"{server.label} at {server.base_url} · {count} model{'s' if count != 1 else ''}"))
        _fit_rows(self.local_list)
        self.local_status.setText(
            "Found — pick one to use it." if self.found else
            "No local model server answered. Start Ollama or LM Studio (with its server on) and look again, "
            "or pick a cloud provider.")

    def pick_local(self, row: int) -> None:
        from relavium_desktop.application.providers import ProviderEntry

        if not 0 <= row < len(self.found):
            return
        server = self.found[row]
        entry = ProviderEntry(kind="openai", base_url=server.base_url, api_key=None, allow_local=True)
        if self._save_provider(server.name, entry):
            self.go(STEP_MODEL)

    # -- step 2: the key -----------------------------------------------------------------

    def _needs_key(self) -> bool:
        entry = self.context.provider_entry(self.provider) if self.provider else None
        return entry is not None and entry.api_key is not None

    def check_stored_key(self) -> None:
        """Whether the provider's key is already in the keyring (the flow run again): then Next is on.

        The first keyring contact of the flow, and only a search (``SecretStore.has``): it creates
        no keyring and unlocks none, so reaching this step pops no dialog either.
        """
        from relavium_desktop.ui.tasks import spawn

        entry = self.context.provider_entry(self.provider) if self.provider else None
        if entry is None or not entry.api_key or not entry.api_key.startswith("secret:"):
            return
        self._task = spawn(self._check_stored_key(entry.api_key))

    async def _check_stored_key(self, ref: str) -> None:
        import asyncio

        from relavium_desktop.application.secrets import SecretStore, SecretStoreError, parse_ref

        try:
            name = parse_ref(ref)
            stored = await asyncio.to_thread(lambda: SecretStore().has(name))
        except SecretStoreError:
            return  # saving says what is wrong with the keyring, in its own words
        if stored and not self._key_saved and self.steps.currentIndex() == STEP_KEY:
            self._key_saved = True
            self.key_status.setText("A key is already stored for this provider. Paste a new one to replace it, "
                                    "or go on.")
            set_tone(self.key_status, "muted")
            self._update_next()

    def save_and_test(self) -> None:
        from relavium_desktop.ui.tasks import spawn

        value = self.key_edit.text().strip()
        self.key_edit.clear()  # never keep a key in a widget longer than needed
        if not self.provider:
            return
        self.test_button.setEnabled(False)
        self.key_status.setText("Saving the key and testing…")
        set_tone(self.key_status, "muted")
        self._task = spawn(self._save_and_test(self.provider, value))

    async def _save_and_test(self, name: str, value: str) -> None:
        import asyncio

        from relavium_desktop.application.providers import saved_provider_test
        from relavium_desktop.application.secrets import SecretStore, SecretStoreError, parse_ref
        from relavium_desktop.ui.settings.provider_test_text import shown_text

        try:
            entry = self.context.provider_entry(name)
            if value and entry is not None and entry.api_key and entry.api_key.startswith("secret:"):
                secret = parse_ref(entry.api_key)
                try:
                    # A closure, not call arguments: executor debug logging prints arguments.
                    await asyncio.to_thread(lambda: SecretStore().set(secret, value))
                except SecretStoreError as exc:
                    self.key_status.setText(f"The key could not be stored: {error_text(exc)}")
                    set_tone(self.key_status, "danger")
                    return
                self._key_saved = True
            elif entry is not None and entry.api_key and not entry.api_key.startswith("secret:"):
                self._key_saved = True  # an env: reference: nothing to store here
            result = await saved_provider_test(self.context.app.paths, name)
            self.key_status.setText(shown_text(result))  # "Connected: …" / "Unreachable: …", coloured by tone
            set_tone(self.key_status, "success" if result.ok else "danger")
            if result.ok:
                self.context.settings.setValue(keys.KEY_WELCOME_DONE, "done")
        finally:
            self.test_button.setEnabled(True)
            self._update_next()

    # -- step 3: the model ---------------------------------------------------------------

    def load_models(self) -> None:
        from relavium_desktop.ui.tasks import spawn

        self.model_list.clear()
        self.model_list.setVisible(False)
        if not self.provider:
            self.model_status.setText("No provider was set up, so there is no model to pick yet. "
                                      "Go back and connect one, or skip setup.")
            return
        self.model_status.setText("Asking the provider for its models…")
        self._task = spawn(self._load_models(self.provider))

    async def _load_models(self, name: str) -> None:
        from relavium_desktop.application.model_catalog import fetch_model_list

        entry = self.context.provider_entry(name)
        if entry is None:
            return
        listed = await fetch_model_list(self.context.app.paths, name, entry)
        self.model_list.blockSignals(True)
        self.model_list.clear()
        for model in listed.models:
            label = f"{model.display_name}  ({model.id})" if model.display_name else model.id
            item = QListWidgetItem(label)
            item.setData(Qt.ItemDataRole.UserRole, f"{name}/{model.id}")
            self.model_list.addItem(item)
        self.model_list.blockSignals(False)
        _fit_rows(self.model_list)
        note = f" {listed.note}" if listed.note else ""
        count = self.model_list.count()
        if count == 1:
            self.model_status.setText(f"{name} has one model; chat will use it.{note}")
            self.model_list.setCurrentRow(0)  # a sole model is the choice: saved as the default at once
        else:
            self.model_status.setText(f"Models of {name}. Pick the one chat should use.{note}")
        self._update_next()


    def _model_picked(self, row: int) -> None:
        """The pick becomes the default model in defaults.json, which the chat and ``relavium chat`` both read."""
        from relavium_desktop.application.defaults import Defaults

        self._update_next()
        item = self.model_list.item(row) if row >= 0 else None
        route = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        if isinstance(route, str):
            try:
                Defaults(self.context.app.paths).save(model=route)
            except OSError as exc:
                self.model_status.setText(f"The model could not be saved as the default: {error_text(exc)}")
                set_tone(self.model_status, "danger")

    # -- step 4: the project -------------------------------------------------------------

    def _project_chosen(self, project: str) -> None:
        self.project_status.setText(f"Project: {project}" if project else "No project yet — that is fine.")


async def usable_providers(context: AppContext) -> list[str]:
    """Providers whose key is present or not needed (reads the keyring in a thread).

    None usable, and the flow never finished: the window opens the welcome flow.
    """
    import asyncio

    from relavium_desktop.application.providers import ProviderConfigError, usable_provider_names

    try:
        entries = context.provider_store().entries()
    except ProviderConfigError:
        return []
    return await asyncio.to_thread(usable_provider_names, entries, keyring_in_child=True)
