"""The desktop's answers to what an MCP server asks of its client: forms, consent, sampling.

:class:`AppMcpHooks` turns the host's hook callbacks into dialogs, each
opened window-modal with ``open()`` and awaited through a future -- never
``exec()``, which would nest an event loop inside the qasync loop and stall
every other task while the user reads.

Consent is remembered per project in history.db (the Application's ``consents()``):
a second start of the same server in the same project does not ask again; a
changed fingerprint (another command, argument, variable name or folder) is
not covered by the old answer, so it asks again and says what changed.
Consent questions are asked one at a time, so two tools of one server
starting together produce one dialog, not two.

Sampling is approved per request, then answered by ``complete`` -- by
default the chat's own model (Settings' provider and the chat's model
picker), so the server's text goes nowhere the user has not already sent
their own.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from relavium_desktop.ui.mcp.consent_dialog import ConsentDialog
from relavium_desktop.ui.mcp.elicitation_dialog import ElicitationDialog
from relavium_desktop.ui.mcp.sampling_dialog import SamplingDialog
from relavium_desktop.ui.qt import QDialog, QObject, QWidget, Signal

if TYPE_CHECKING:
    from relavium_desktop.application.mcp_requests import (
        ConsentRequest,
        ElicitationAnswer,
        ElicitationRequest,
        McpClientHooks,
        SamplingAnswer,
        SamplingRequest,
    )
    from relavium_desktop.application.mcp_settings import McpConsentStore
    from relavium_desktop.ui.context import AppContext

log = logging.getLogger(__name__)
SamplingComplete = Callable[["SamplingRequest", str], Awaitable["SamplingAnswer"]]
ConsentStoreFactory = Callable[[], "McpConsentStore | None"]


async def run_dialog(dialog: QDialog) -> int:
    """Show ``dialog`` window-modal and wait for it without blocking the loop; its result code."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[int] = loop.create_future()

    def finished(code: int) -> None:
        if not done.done():
            done.set_result(code)

    dialog.finished.connect(finished)
    dialog.open()
    try:
        return await done
    finally:
        dialog.deleteLater()


def previous_fingerprint(consents: McpConsentStore, project: str, server: str, fingerprint: str) -> str | None:
    """The fingerprint this project's consent for ``server`` was given under, when it differs."""
    for record in consents.list(project):
        if record.server == server and record.fingerprint != fingerprint:
            return record.fingerprint
    return None


async def complete_with_chat_model(request: SamplingRequest, route: str, *, home: Path) -> SamplingAnswer:
    """One completion for ``request`` through the user's own provider and model (``provider/model``).

    ``home`` is the data folder whose providers.yaml names the provider (the window passes its own).
    """
    from relavium_desktop.application.mcp_requests import SamplingAnswer
    from relavium_desktop.application.providers import provider_set
    from relavium_desktop.engine.llm.messages import Message, TextPart
    from relavium_desktop.engine.llm.provider import ChatRequest
    from relavium_desktop.engine.llm.stream import TextDelta

    provider_name, _, model = route.partition("/")
    provider = await asyncio.to_thread(lambda: provider_set(home)(provider_name))
    messages = [Message("assistant" if role == "assistant" else "user", (TextPart(text),))
                for role, text in request.messages]
    chat = ChatRequest(model=model, messages=messages, system=request.system_prompt,
                       max_tokens=request.max_tokens)
    text: list[str] = []
    async for event in provider.stream(chat):
        if isinstance(event, TextDelta):
            text.append(event.text)
    return SamplingAnswer("".join(text), route)


class AppMcpHooks(QObject):
    """Builds the app's :class:`McpClientHooks`; ``dialog_opened`` lets a view (or a test) see each dialog."""

    dialog_opened = Signal(object)  # the QDialog just shown

    def __init__(
        self,
        parent: QWidget,
        *,
        project: Callable[[], str],
        consents: ConsentStoreFactory | None = None,
        model: Callable[[], str | None] | None = None,
        complete: SamplingComplete | None = None,
    ) -> None:
        """``consents`` gives the consent store (None: ask every time, remember nothing).

        ``complete`` answers an approved sampling request (the window's is
        :func:`complete_with_chat_model` over its data folder); None refuses every one.

        The store belongs to its opener (the window's Application), which closes it; the hooks never do.
        """
        super().__init__(parent)
        self._parent = parent
        self._project = project
        self._consents = consents
        self._model = model or (lambda: None)
        self._complete = complete
        self._consent_lock = asyncio.Lock()

    def client_hooks(self) -> McpClientHooks:
        from relavium_desktop.application.mcp_requests import McpClientHooks

        return McpClientHooks(elicit=self.elicit, sample=self.sample, consent=self.consent)

    async def _show(self, dialog: QDialog) -> int:
        self.dialog_opened.emit(dialog)
        return await run_dialog(dialog)

    # -- elicitation ---------------------------------------------------------------------

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer:
        from relavium_desktop.application.mcp_requests import ElicitationAnswer

        dialog = ElicitationDialog(request, self._parent)
        await self._show(dialog)
        return dialog.answer or ElicitationAnswer("cancel")

    # -- consent -------------------------------------------------------------------------

    async def consent(self, request: ConsentRequest) -> bool:
        async with self._consent_lock:
            project = self._project()
            old: str | None = None
            if self._consents is not None and project:
                granted, old = await asyncio.to_thread(self._recorded, project, request)
                if granted:
                    return True
            dialog = ConsentDialog(request, project=project, previous_fingerprint=old, parent=self._parent)
            await self._show(dialog)
            allowed = bool(dialog.allowed)
            if allowed and self._consents is not None and project:
                await asyncio.to_thread(self._grant, project, request)
            return allowed

    def _recorded(self, project: str, request: ConsentRequest) -> tuple[bool, str | None]:
        """(granted, the fingerprint an older consent was given under) -- in a worker thread."""
        store = self._consents() if self._consents is not None else None
        if store is None:
            return False, None
        if store.is_granted(project, request.server, request.fingerprint):
            return True, None
        return False, previous_fingerprint(store, project, request.server, request.fingerprint)

    def _grant(self, project: str, request: ConsentRequest) -> None:
        store = self._consents() if self._consents is not None else None
        if store is None:
            return
        store.grant(project, request.server, request.fingerprint, command=request.command,
                    args=request.args, env_names=request.env_names, cwd=request.cwd)

    # -- sampling --------------------------------------------------------------------------

    async def sample(self, request: SamplingRequest) -> SamplingAnswer:
        route = self._model()
        dialog = SamplingDialog(request, model=route, parent=self._parent)
        await self._show(dialog)
        if not dialog.approved or route is None:
            raise PermissionError(f"the user refused the sampling request of MCP server {request.server!r}")
        if self._complete is None:
            raise PermissionError(f"no model can answer the sampling request of MCP server {request.server!r}")
        return await self._complete(request, route)


def app_mcp_hooks(context: AppContext) -> McpClientHooks:
    """The window's MCP client hooks: dialogs parented to it, consents in its Application's history.db.

    One :class:`AppMcpHooks` per window (kept on the context), so consent
    questions from every host the window builds are asked one at a time.
    """
    hooks = context.mcp_hooks
    if hooks is None:
        from functools import partial

        def model() -> str | None:
            from relavium_desktop.application.defaults import Defaults

            return Defaults(context.app.paths).model()  # the default model ("provider/model"), read per request

        hooks = AppMcpHooks(context.window, project=lambda: context.project, consents=context.app.consents,
                            model=model, complete=partial(complete_with_chat_model, home=context.app.paths.home))
        context.mcp_hooks = hooks
    return hooks.client_hooks()
