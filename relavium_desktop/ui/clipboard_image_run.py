"""Running an image clipboard action: the model reads the screenshot through the gated tools.

A text action puts the copied text into the prompt (``one_shot.ask_once``,
no tools).  An image cannot go that way without reading it before the user
said yes, so an image action gives the model exactly two tools --
``read_clipboard`` (os-class: the permission dialog asks first, as for any
chat) and ``read_media`` (read-only, scoped) -- and a prompt telling it to
use them.  The image is read, PNG-encoded and published to the media store
only after the user allowed the read; it then reaches the provider as the
provider's own image part, never as text.

The run has its own media scope (one per action run), so the screenshot is
readable in that run and nowhere else.  A model that does not accept images
is refused before anything is asked or read: it could only guess.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from relavium_desktop.application.tools import tool_registry
from relavium_desktop.engine.agent.loop import AgentLoop
from relavium_desktop.engine.agent.spec import AgentSpec
from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.llm.errors import ProviderError
from relavium_desktop.engine.llm.messages import Message
from relavium_desktop.engine.llm.provider import MediaInputAware
from relavium_desktop.engine.tools.tooldef import ApprovalHook, ApprovalRegime, ToolDispatchContext
from relavium_desktop.ui.chat.one_shot import OneShotError
from relavium_desktop.ui.clipboard_actions import ClipboardAction

if TYPE_CHECKING:
    from relavium_desktop.engine.agent.routing import ProviderLookup
    from relavium_desktop.engine.host import MediaCapability, OsCapability
    from relavium_desktop.ui.chat.view import ChatView
    from relavium_desktop.ui.context import AppContext

IMAGE_TOOLS = ("read_clipboard", "read_media")
ImageRunner = Callable[[ClipboardAction], Awaitable[str]]


@dataclass(frozen=True, slots=True)
class ImageSupport:
    """Whether the chat's model can look at an image, and which configured model could if it cannot.

    The quick panel offers image actions only when ``sees`` is true (a text-only
    model could only guess); otherwise it names ``suggestion`` ("provider/model"),
    or says that no configured model takes images when it is None.
    """

    sees: bool
    model: str  # the chat's route, "provider/model"
    suggestion: str | None = None

    def note(self) -> str:
        """The panel's muted line when image actions are held back."""
        if self.sees:
            return ""
        if self.suggestion:
            return f"Image actions need a model that can see images — e.g. {self.suggestion} (pick it in Chat)."
        return ("Image actions need a model that can see images, and none of your providers has one — "
                "add one in Settings → Providers.")


@runtime_checkable
class ImageAware(Protocol):
    """An image runner that can say, before anything runs, whether its model sees images."""

    def image_support(self) -> ImageSupport: ...


def _accepts_images(spec: AgentSpec, providers: ProviderLookup) -> bool:
    try:
        provider = providers(spec.provider)
    except ProviderError:
        return True  # the run itself reports the provider problem in the engine's words
    return isinstance(provider, MediaInputAware) and "image" in provider.media_input(spec.model)


async def run_image_action(
    action: ClipboardAction,
    *,
    spec: AgentSpec,
    providers: ProviderLookup,
    os_capability: OsCapability | None,
    media: MediaCapability,
    confirm: ApprovalHook | None,
    home: Path,
) -> str:
    """The model's answer to an image action; its read of the clipboard waits for ``confirm``."""
    if not _accepts_images(spec, providers):
        raise OneShotError(
            "media_unsupported",
            f"{spec.model} does not accept images; pick a model that does (in Chat) and run it again",
        )
    run_id = f"clipboard-{uuid.uuid4().hex[:12]}"
    # No hook (services not built) fails closed: the read is refused, never done unasked.
    ctx = ToolDispatchContext(
        run_id=run_id, node_id="clipboard", granted_tool_ids=frozenset(IMAGE_TOOLS),
        approval=ApprovalRegime(hook=confirm), media_scope=f"clipboard:{run_id}",
    )
    registry = tool_registry(ToolHost(os=os_capability, media=media), home=home)
    loop = AgentLoop(spec=spec.model_copy(update={"tools": list(IMAGE_TOOLS)}), providers=providers,
                     registry=registry, ctx=ctx)
    result = await loop.run([Message.user(action.render(""))])
    if result.status != "completed":
        failure = result.failure
        raise OneShotError(failure.code if failure else "failed", failure.message if failure else "no answer")
    return result.text


class ChatImageRunner:
    """The quick panel's image runner: the chat's agent and model, the app's permission dialog.

    The route is resolved as the chat's own turn and the text actions resolve it (``ChatService.resolve_agent``):
    the picked model, else the default model, else the agent's own.
    """

    def __init__(self, chat_view: ChatView, context: AppContext) -> None:
        self.chat_view = chat_view
        self.context = context

    def _spec(self) -> AgentSpec:
        backend = self.chat_view.ensure_loaded()
        spec: AgentSpec = backend.resolve_agent(self.chat_view.agent(), self.chat_view.model_combo.route() or None)
        return spec

    async def __call__(self, action: ClipboardAction) -> str:
        backend = self.chat_view.ensure_loaded()
        self.context.ensure_services()
        return await run_image_action(
            action,
            spec=self._spec(),
            providers=backend.providers(),
            os_capability=self.context.desktop_os,
            # The chat's media host (application.providers.media_host): the store every tool host of the data
            # folder uses.
            media=backend.media,
            confirm=self.context.approval_hook(),
            home=self.context.app.paths.home,
        )

    def image_support(self) -> ImageSupport:
        """The model catalog's media rule (``media_kinds``) for the chat's model and the configured ones.

        No network and no keyring: the chat's model picker already knows which providers are
        ready and what they list; a provider not listed yet is judged by its known models.
        """
        from relavium_desktop.application.model_catalog import known_model_ids, media_kinds

        spec = self._spec()
        entry = self.context.provider_entry(spec.provider)
        route = f"{spec.provider}/{spec.model}"
        if entry is None or "image" in media_kinds(entry.kind, spec.model):
            # An unknown provider: the run itself reports that in the engine's words.
            return ImageSupport(sees=True, model=route)
        choice = self.chat_view.models
        for name in choice.ready_providers():
            ready = choice.entries.get(name)
            if ready is None:
                continue
            listed = choice.lists.get(name)
            ids = [m.id for m in listed.models] if listed is not None else known_model_ids(ready.kind)
            for model in ids:
                if "image" in media_kinds(ready.kind, model):
                    return ImageSupport(sees=False, model=route, suggestion=f"{name}/{model}")
        return ImageSupport(sees=False, model=route)


def chat_image_runner(chat_view: ChatView, context: AppContext) -> ChatImageRunner:
    """The quick panel's image runner for this window's chat (see :class:`ChatImageRunner`)."""
    return ChatImageRunner(chat_view, context)
