"""What fills the model picker: providers.yaml, each provider's key state and its live model list.

Painting never waits for the network or the keyring: the picker is filled
at once from the file and the cached lists, then a task reads the key states
(keyring, in a thread) and fetches each ready provider's own model list
(``GET …/models`` through the guarded client, cached for a day), and the
picker is filled again with what it learned.  A provider without a key is
still listed -- with its known models and "no key" -- so a user sees what
adding one would give them.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relavium_desktop.application.paths import AppPaths
from relavium_desktop.ui.chat.model_picker import ModelPicker, ProviderGroup
from relavium_desktop.ui.error_text import error_text
from relavium_desktop.ui.qt import QObject, Signal

# asyncio loads after the first paint (the window is built before the event loop exists).
if TYPE_CHECKING:
    import asyncio

    from relavium_desktop.application.model_catalog import ModelList, ProviderEntry, ProviderStatus
    from relavium_desktop.ui.context import AppContext

log = logging.getLogger(__name__)

KEY_STATES = {
    "missing": ("no key", "No API key yet: add one in Settings → Providers."),
    "unavailable": ("keyring unavailable", "The system keyring cannot be read, so this provider's key is unknown."),
}


def group_for(name: str, status: ProviderStatus | None, models: ModelList | None,
              known: Sequence[str] = (), *, fetched: bool = False) -> ProviderGroup:
    """One picker heading from what is known so far about provider ``name``.

    ``known`` (the kind's known models) fills in until the provider's own list is in.
    """
    ids = tuple(m.id for m in models.models) if models is not None else tuple(known)
    if status is None:
        return ProviderGroup(name, "checking…", ids)
    if status.key_state in KEY_STATES:
        state, note = KEY_STATES[status.key_state]
        return ProviderGroup(name, state, ids, note if not status.detail else f"{note} {status.detail}")
    if models is None or not fetched:
        return ProviderGroup(name, "checking…", ids, ready=True)
    if models.note:
        return ProviderGroup(name, "unreachable", ids, models.note, ready=False)
    return ProviderGroup(name, "ready", ids, ready=True)


class ModelChoice(QObject):
    """The picker, kept in step with providers.yaml (its last entry refreshes the lists)."""

    updated = Signal()  # the picker was refilled with newer knowledge (tests wait on it)

    def __init__(self, context: AppContext) -> None:
        super().__init__()
        self.context = context
        self.picker = ModelPicker()
        self.picker.refresh_requested.connect(lambda: self.refresh(force=True))
        self.busy = False
        self.statuses: dict[str, ProviderStatus] = {}
        self.lists: dict[str, ModelList] = {}
        self.fetched: set[str] = set()  # providers whose list this run asked for (live, cache or fallback)
        self.entries: dict[str, ProviderEntry] = {}
        self.error = ""  # providers.yaml's problem, in words, when it cannot be read
        self._own_route = ""
        self._auto_pick = False
        self._task: asyncio.Task[Any] | None = None

    # -- state ---------------------------------------------------------------------

    def ready_providers(self) -> list[str]:
        """Providers with a usable key (or none needed), as far as the last check knows."""
        return [n for n, s in self.statuses.items() if s.key_state in ("present", "none_needed")]

    def _read_entries(self) -> None:
        from relavium_desktop.application.model_catalog import ProviderConfigError

        try:
            self.entries = self.context.provider_store().entries()
            self.error = ""
        except ProviderConfigError as exc:
            self.entries, self.error = {}, error_text(exc)

    def _groups(self) -> list[ProviderGroup]:
        from relavium_desktop.application.model_catalog import known_model_ids

        return [group_for(name, self.statuses.get(name), self.lists.get(name),
                          known_model_ids(entry.kind), fetched=name in self.fetched)
                for name, entry in self.entries.items()]

    def _paint(self) -> None:
        self.picker.set_groups(self._groups(), self.picker.route() or self._own_route)

    def _pick_a_ready_model(self) -> None:
        if not self._auto_pick:
            return
        self._auto_pick = False
        ready = set(self.ready_providers())
        if self.picker.route().split("/", 1)[0] in ready:
            return
        for group in self.picker.groups:
            if group.name in ready and group.ready and group.models:
                self.picker.set_route(f"{group.name}/{group.models[0]}")  # notifies: the choice is saved
                return

    # -- filling ---------------------------------------------------------------------

    def fill(self, route: str, home: Path, *, chosen: bool = True) -> None:
        """Fill at once from the file and the cache with ``route`` picked, then learn more in a task.

        ``chosen=False`` says ``route`` is only the agent's default: if its
        provider turns out not to be ready and another is, the picker moves
        to that provider's first model, so a user who set up only a local
        server is not left on a cloud model they have no key for.
        """
        from relavium_desktop.application.model_catalog import cached_model_list

        paths = AppPaths(home)
        self._own_route = route
        self._auto_pick = not chosen
        self._read_entries()
        for name, entry in self.entries.items():
            if name not in self.lists:
                cached = cached_model_list(paths, name, entry.base_url)
                if cached is not None:
                    self.lists[name] = cached
        self.picker.set_groups(self._groups(), route)
        self.refresh(home=home)

    def refresh(self, *, force: bool = False, home: Path | None = None) -> None:
        from relavium_desktop.ui.tasks import spawn

        if self._task is not None and not self._task.done():
            self._task.cancel()
        self._task = spawn(self._learn(AppPaths(home) if home is not None else self.context.app.paths, force))

    async def _learn(self, paths: AppPaths, force: bool) -> None:
        import asyncio

        from relavium_desktop.application.model_catalog import fetch_model_list, provider_readiness

        self.busy = True
        try:
            self._read_entries()
            entries = dict(self.entries)
            statuses = await asyncio.to_thread(provider_readiness, entries, keyring_in_child=True)  # idle memory
            self.statuses = {s.name: s for s in statuses}
            self._paint()
            ready = [n for n in self.ready_providers() if n in entries]
            lists = await asyncio.gather(*(fetch_model_list(paths, n, entries[n], refresh=force) for n in ready),
                                         return_exceptions=True)
            for name, listed in zip(ready, lists, strict=True):
                if isinstance(listed, BaseException):
                    log.warning("model list of %s failed: %s", name, type(listed).__name__)
                    continue
                self.lists[name] = listed
                self.fetched.add(name)
            self._paint()
            self._pick_a_ready_model()
        finally:
            self.busy = False
        self.updated.emit()
