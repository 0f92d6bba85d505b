"""One chat session's turns: history from the store, the loop, persistence.

Every message is persisted the moment the loop appends it.  The reply being
streamed is saved as it grows, at most about once a second (a store that is a
:class:`~relavium_desktop.engine.agent.session.PartialAnswerStore`), so a
kill -9 loses at most the last second of it; a reply cut off by a failed or
cancelled turn is kept, marked as cut off.  A cancelled turn closes its open
tool calls with "not run: cancelled" results, keeping the stored history
valid for every provider on resume; the history sent never has two user
messages in a row (:func:`~relavium_desktop.engine.agent.session.alternating`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from relavium_desktop.engine.agent.loop import AgentLoop
from relavium_desktop.engine.agent.modes import SessionApprovals
from relavium_desktop.engine.agent.outcome import AgentFailure, LoopResult
from relavium_desktop.engine.agent.routing import ProviderLookup
from relavium_desktop.engine.agent.session import PartialAnswerStore, SessionStore, alternating
from relavium_desktop.engine.agent.spec import AgentSpec
from relavium_desktop.engine.agent.tool_config import node_tool_configs
from relavium_desktop.engine.events import (
    AgentToken,
    ChatTurnCancelled,
    ChatTurnCompleted,
    ChatTurnFailed,
    Emit,
    RunEvent,
)
from relavium_desktop.engine.llm.errors import ProviderError
from relavium_desktop.engine.llm.messages import MediaPart, Message, Part, TextPart, ToolResultPart
from relavium_desktop.engine.llm.provider import MediaInputAware
from relavium_desktop.engine.tools.media_turn import INLINE_MEDIA_CEILING, media_kind, media_scope_of
from relavium_desktop.engine.tools.registry import ToolRegistry
from relavium_desktop.engine.tools.tooldef import FsScopeTier, NodeToolConfig, ToolDispatchContext, ToolPolicy


@dataclass
class ChatSession:
    session_id: str
    spec: AgentSpec
    providers: ProviderLookup
    registry: ToolRegistry
    store: SessionStore
    approvals: SessionApprovals
    emit: Emit
    policy: ToolPolicy = field(default_factory=ToolPolicy)
    fs_scope: FsScopeTier = "project"
    # What the model is told about; None: every tool of the agent.  A mode may
    # offer fewer than the agent has, so a guessed call meets the mode's refusal.
    offered_tools: frozenset[str] | None = None
    # The user's chat tool configs (Settings -> Chat tools / --tool-config), per tool id.
    tool_configs: Mapping[str, NodeToolConfig] = field(default_factory=dict)
    # The streaming answer is saved at most once per this many seconds (the first token at once).
    partial_every_s: float = 1.0
    clock: Callable[[], float] = time.monotonic
    _draft: list[str] = field(default_factory=list, init=False, repr=False)
    _saved_at: float = field(default=float("-inf"), init=False, repr=False)
    _restarting: bool = field(default=False, init=False, repr=False)

    def _emit(self, event: RunEvent) -> None:
        if isinstance(event, AgentToken):
            if self._restarting:  # the answer starts over (after a retry or a fallback)
                self._draft.clear()
                self._restarting = False
            self._draft.append(event.token)
        elif event.TYPE in ("agent:retrying", "agent:provider_fallback"):
            # Not cleared yet: if the new attempt fails before a word, what was shown is what is kept.
            self._restarting = True
        self.emit(event)
        if isinstance(event, AgentToken):
            self._save_partial()

    def _save_partial(self) -> None:
        store = self.store
        now = self.clock()
        if not isinstance(store, PartialAnswerStore) or now - self._saved_at < self.partial_every_s:
            return
        self._saved_at = now
        # Best effort: a store that cannot write now fails the turn's next message, which says why.
        with contextlib.suppress(Exception):
            store.save_partial(self.session_id, "".join(self._draft))

    def _append(self, message: Message) -> None:
        """A message the loop finished: it supersedes the draft (the store drops it in the same write)."""
        self._draft.clear()
        self._saved_at = float("-inf")
        self._restarting = False
        self.store.append_message(self.session_id, message)

    def _keep_cut_off(self, fallback: str = "") -> None:
        """End the turn's draft: what was streamed (or the provider's partial text) is kept as cut off."""
        text = "".join(self._draft) or fallback
        self._draft.clear()
        self._restarting = False
        store = self.store
        if isinstance(store, PartialAnswerStore):
            store.keep_cut_off(self.session_id, text)

    def _loop(self) -> AgentLoop:
        granted = frozenset(t for t in self.spec.tools if self.registry.get(t) is not None)
        ctx = ToolDispatchContext(
            run_id=f"chat-{self.session_id}", node_id="chat", granted_tool_ids=granted,
            policy=self.policy, fs_scope=self.fs_scope, approval=self.approvals.regime(), emit=self._emit,
            tool_configs=merged_tool_configs(self.tool_configs, node_tool_configs(self.spec.tool_config)),
        )
        return AgentLoop(
            spec=self.spec, providers=self.providers, registry=self.registry, ctx=ctx, emit=self._emit,
            chat=True, offered_tool_ids=self.offered_tools,
            on_message=self._append,
            on_usage=lambda u: self.store.record_usage(self.session_id, u),
        )

    async def send(self, text: str, media: Sequence[MediaPart] = ()) -> LoopResult:
        """Send the user's ``text`` with the media they attached (handles, published by this process).

        Every attachment is admitted to this chat's media scope and checked
        against the limits and the model before anything is stored, so a
        refused attachment fails the send with the reason (``ValueError``)
        instead of reaching the model as a placeholder.  The stored message
        keeps the handles; bytes are resolved per request by the loop.
        """
        if self.spec.input_schema is not None and text:
            from relavium_desktop.engine.agent.spec_fields import input_problem

            problem = input_problem(self.spec.input_schema, text)  # the agent's input contract, before storing
            if problem is not None:
                raise ValueError(problem)
        if media:
            await self._admit_attachments(media)
        history = self.store.messages(self.session_id)
        parts: tuple[Part, ...] = (*media, TextPart(text)) if text else tuple(media)
        user = Message("user", parts)
        self.store.append_message(self.session_id, user)
        history.append(user)
        return await self._run(history)

    async def _admit_attachments(self, media: Sequence[MediaPart]) -> None:
        capability = self.registry.host.media
        if capability is None:
            raise ValueError("attachments cannot be sent here: this chat has no media store")
        scope = media_scope_of(self._loop().ctx)
        kinds: set[str] = set()
        for part in media:
            label = part.name or "the attachment"
            if not await capability.admit(part.handle, scope):
                raise ValueError(f"{label} was not added in this app session; attach it again")
            described = await capability.describe(part.handle, scope)
            problem = attachment_problem(str(described.get("mimeType", "")), int(described.get("sizeBytes", 0)))
            if problem is not None:
                raise ValueError(f"{label}: {problem}")
            kinds.add(media_kind(str(described.get("mimeType", ""))))
        try:
            provider = self.providers(self.spec.provider)
        except ProviderError:
            return  # the turn itself reports the provider's trouble, with its own code
        accepts = provider.media_input(self.spec.model) if isinstance(provider, MediaInputAware) else frozenset()
        refused = cannot_take(self.spec.model, kinds, accepts)
        if refused is not None:
            raise ValueError(refused)

    async def resume(self) -> LoopResult:
        """Carry on from the stored history without a new user message.

        What "Try again" and "Continue" mean after a failed or refused turn:
        the user's message is already stored, and sending it again would put
        it in the history twice.
        """
        history = self.store.messages(self.session_id)
        if not history:
            raise ValueError("there is nothing to continue in this session yet")
        return await self._run(history)

    async def _run(self, history: list[Message]) -> LoopResult:
        history = alternating(history)
        try:
            result = await self._loop().run(history)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
            self._close_open_calls(history)
            self._keep_cut_off()
            self.emit(ChatTurnCancelled())
            return LoopResult(status="cancelled",
                              failure=AgentFailure("cancelled", "cancelled by the user"))
        except Exception:
            with contextlib.suppress(Exception):  # the original error is what the caller needs
                self._keep_cut_off()
            raise
        if result.status == "failed" and result.failure is not None:
            self._keep_cut_off(str(getattr(result.failure, "partial_text", None) or ""))
            self.emit(ChatTurnFailed(error=result.failure.info()))
        else:
            self.emit(ChatTurnCompleted(tool_turns=result.tool_turns))
        return result

    def _close_open_calls(self, history: list[Message]) -> None:
        last = history[-1] if history else None
        if last is None or last.role != "assistant" or not last.tool_calls:
            return
        closed = Message("tool", tuple(
            ToolResultPart(c.call_id, c.name, "not run: cancelled", is_error=True, error_code="cancelled")
            for c in last.tool_calls
        ))
        self.store.append_message(self.session_id, closed)


def merged_tool_configs(
    surface: Mapping[str, NodeToolConfig], agent: Mapping[str, NodeToolConfig]
) -> dict[str, NodeToolConfig]:
    """Chat's configs with the agent's own pinned parameters over them, per parameter.

    The user's Settings give chat a search provider or a cwd; an agent whose
    author pinned a value for the same parameter keeps it (the author wrote the
    agent around it), while the parameters it leaves open still come from Settings.
    """
    merged = dict(surface)
    for tool_id, config in agent.items():
        base = merged.get(tool_id)
        params = {**(base.parameters if base else {}), **config.parameters}
        merged[tool_id] = NodeToolConfig(parameters=params)
    return merged


def chat_media_scope(session_id: str) -> str:
    """The media scope of a chat session: what its turns (and its transcript) may read."""
    return f"run:chat-{session_id}"


def size_text(size: int) -> str:
    """A size as a person reads it: bytes, KiB below one MiB, else MiB with one decimal."""
    if size < 1024:
        return f"{size} B"
    return f"{size / (1024 * 1024):.1f} MiB" if size >= 1024 * 1024 else f"{size / 1024:.0f} KiB"


def attachment_problem(mime: str, size: int) -> str | None:
    """Why an attachment of this type and size cannot be sent, or None: the media turn's limits.

    The composer shows this before sending and :meth:`ChatSession.send`
    enforces it, so the user sees the size and the limit instead of an
    attachment that silently never arrives.
    """
    kind = media_kind(mime)
    if kind not in INLINE_MEDIA_CEILING:
        return "only images (PNG, JPEG, GIF, WebP) and PDF documents can be attached"
    limit = INLINE_MEDIA_CEILING[kind]
    if size > limit:
        what = "an image" if kind == "image" else "a PDF"
        return f"it is {size_text(size)} ({size:,} bytes); {what} may be at most {size_text(limit)} ({limit:,} bytes)"
    return None


def cannot_take(model: str, kinds: set[str] | frozenset[str], accepts: frozenset[str]) -> str | None:
    """What to tell the user when ``model`` cannot take some of the attached kinds, else None."""
    missing = sorted(k for k in kinds if k not in accepts)
    if not missing:
        return None
    names = " or ".join("images" if k == "image" else "PDF documents" for k in missing)
    return (f"{model} cannot take {names}: pick a model that can take them, "
            "or remove the attachment")
