"""The agent loop: model turn → tool calls (in order) → results → repeat.

Budgets (issue 6): at most 16 tool turns (the 17th fails ``turn_limit``) and
3 correction rounds — a turn with an ``unknown_tool`` or ``invalid_args``
result is fed back and counts; the 4th such turn fails ``tool_failed``
(not retryable: retrying the node would replay the same confusion).
``tool_denied`` is fatal and never fed back, except the recoverable scope
reasons in chat; a host ``tool_failed`` ends the loop as retryable, except a
failed read in chat, which the model may work around.  Cancellation is
asyncio cancellation of the caller's task and propagates untouched.

Media (``read_media``): each response's dispatches share a ``MediaTurn``;
what they attach is appended as one engine-synthesised user message (a
``NoticePart`` preamble, then the ``MediaPart`` handles) after the final
tool result, and every request resolves the handles in its history to bytes
that travel only in ``ChatRequest.media``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from relavium_desktop.engine.agent.egress_check import EgressRefused, PreEgress
from relavium_desktop.engine.agent.outcome import TURN_LIMIT, AgentFailure, LoopResult, UsageRecord
from relavium_desktop.engine.agent.pricing import cost_usd, usd_to_microcents
from relavium_desktop.engine.agent.routing import ProviderLookup, Route, Sleep, StreamedTurn, stream_turn
from relavium_desktop.engine.agent.spec import AgentSpec
from relavium_desktop.engine.errors import (
    RECOVERABLE_DENIALS,
    ErrorCode,
    InvalidArgsError,
    ToolError,
)
from relavium_desktop.engine.events import AgentToolCall, AgentToolResult, CostUpdated, Emit, ErrorInfo
from relavium_desktop.engine.llm.errors import ProviderError
from relavium_desktop.engine.llm.messages import MediaBlob, MediaPart, Message, NoticePart, ToolResultPart
from relavium_desktop.engine.llm.provider import MediaInputAware
from relavium_desktop.engine.llm.retry import DEFAULT_PROVIDER_RETRY, ProviderRetry
from relavium_desktop.engine.llm.stream import ToolCallEvent
from relavium_desktop.engine.llm.tools import tool_specs
from relavium_desktop.engine.tools.masking import clip, mask_text
from relavium_desktop.engine.tools.media_turn import MEDIA_NOTICE, MediaTurn, media_handles, media_scope_of
from relavium_desktop.engine.tools.registry import EVENT_INPUT_PREVIEW_CHARS, ToolRegistry
from relavium_desktop.engine.tools.tooldef import ActionClass, ToolCall, ToolDispatchContext

DEFAULT_TURN_LIMIT = 16
DEFAULT_CORRECTION_ROUNDS = 3
# What one request may carry of the media in its history: the newest first, so
# a long chat about many screenshots keeps sending the recent ones (older ones
# become a text placeholder) instead of growing past what a provider accepts.
# 12 MiB of bytes is about 16 MB of base64: inside Gemini's 20 MB inline request
# limit and Anthropic's 32 MB request limit.
REQUEST_MEDIA_MAX_PARTS = 16
REQUEST_MEDIA_MAX_BYTES = 12 * 1024 * 1024
_CORRECTABLE = (ErrorCode.UNKNOWN_TOOL, ErrorCode.INVALID_ARGS)


@dataclass(slots=True)
class AgentLoop:
    spec: AgentSpec
    providers: ProviderLookup
    registry: ToolRegistry
    ctx: ToolDispatchContext
    emit: Emit = lambda e: None
    chat: bool = False
    turn_limit: int = DEFAULT_TURN_LIMIT
    correction_rounds: int = DEFAULT_CORRECTION_ROUNDS
    sleep: Sleep = asyncio.sleep
    on_message: Callable[[Message], object] | None = None
    on_usage: Callable[[UsageRecord], object] | None = None
    # The retry policy for passing provider failures (429, 5xx, resets) within a turn.
    # An agent file's own ``retry:`` replaces it (the node-level retry then waits
    # at least the server's Retry-After); a workflow node with ``retry:`` passes None.
    provider_retry: ProviderRetry | None = DEFAULT_PROVIDER_RETRY
    # The tools described to the model; None: every granted tool.  Chat's
    # read-only mode offers fewer than it grants, so a call to a write tool the
    # model guessed at reaches the mode's refusal (which says how to allow it)
    # instead of a bare "not granted".
    offered_tool_ids: frozenset[str] | None = None
    # Sees every request before it leaves and may refuse it (a workflow's budget): egress_check.py.
    pre_egress: PreEgress | None = None
    _result: LoopResult = field(init=False)

    async def run(self, history: list[Message]) -> LoopResult:
        """Continue ``history`` (ending in a user message) until the model stops.

        New messages are appended to ``history`` as they happen, so a chat
        session persists each one even if a later step fails.
        """
        self._result = LoopResult(status="completed")
        offered = self.ctx.granted_tool_ids
        if self.offered_tool_ids is not None:
            offered = offered & self.offered_tool_ids
        specs = tool_specs(self.registry.describe(), offered)
        corrections = 0
        retry = None if "retry" in self.spec.model_fields_set else self.provider_retry
        while True:
            try:
                turn = await stream_turn(
                    self.spec, self.providers, history, specs,
                    emit=self.emit, node_id=self.ctx.node_id, sleep=self.sleep,
                    media=await self._resolve_media(history), retry=retry,
                    pre_egress=self.pre_egress, spent_microcents=self._spent_microcents(),
                )
            except EgressRefused as exc:
                return self._fail(AgentFailure(exc.code, exc.message, reason=exc.reason, retryable=False))
            except ProviderError as exc:
                return self._fail(AgentFailure(str(exc.code), exc.message, retryable=exc.retryable,
                                               retry_after=exc.retry_after, partial_text=exc.partial_text))
            self._record_usage(turn)
            if not turn.calls and not turn.message.text:
                # Nothing to show and nothing to do: said as such, and never kept in the
                # history (an assistant message without content or calls is not valid to send back).
                return self._fail(AgentFailure(
                    "provider_unavailable", f"{turn.route.provider}: the model returned an empty answer",
                    reason="empty_answer", retryable=True,
                ))
            self._append(history, turn.message)
            if not turn.calls:
                self._result.text = turn.message.text
                return self._result
            if self._result.tool_turns >= self.turn_limit:
                self._append(history, _not_run(turn.calls, TURN_LIMIT))
                return self._fail(AgentFailure(
                    TURN_LIMIT, f"the agent used all {self.turn_limit} tool turns without finishing"
                ))
            self._result.tool_turns += 1
            media = MediaTurn(model=turn.route.model, accepts=self._accepts(turn.route))
            results, fatal, correctable = await self._dispatch_all(turn.calls, media)
            self._append(history, Message("tool", tuple(results)))
            if fatal is not None:
                return self._fail(fatal)
            if media.attachments:
                # After the LAST tool result, never between two: the results stay contiguous.
                self._append(history, Message("user", (NoticePart(MEDIA_NOTICE), *media.attachments)))
            if correctable:
                corrections += 1
                if corrections > self.correction_rounds:
                    return self._fail(AgentFailure(
                        str(ErrorCode.TOOL_FAILED),
                        f"the model kept making unknown or invalid tool calls after "
                        f"{self.correction_rounds} correction rounds",
                        reason="correction_budget",
                        retryable=False,
                    ))

    def _spent_microcents(self) -> int:
        """What this loop's turns so far cost (priced turns only)."""
        return usd_to_microcents(sum(u.cost_usd or 0.0 for u in self._result.usage))

    def _accepts(self, route: Route) -> frozenset[str]:
        """The media kinds the model that wrote this response accepts; none when unknown."""
        try:
            provider = self.providers(route.provider)
        except ProviderError:
            return frozenset()
        return provider.media_input(route.model) if isinstance(provider, MediaInputAware) else frozenset()

    async def _admit_media(self, result: object) -> None:
        """Media a tool produced (an MCP image, a binary read) becomes readable in this scope."""
        media = self.registry.host.media
        if media is None:
            return
        for handle in media_handles(result):
            try:
                await media.admit(handle, media_scope_of(self.ctx))
            except Exception:  # noqa: BLE001 - an unrecorded grant only makes read_media refuse later
                continue

    async def _resolve_media(self, history: Sequence[Message]) -> dict[str, MediaBlob]:
        """The bytes of the newest media parts in ``history``, for this request only.

        Resolved again for every request (the handle is canonical, the bytes
        are not kept): a part that cannot be resolved -- out of scope, gone
        from the store, corrupt, over the request's budget -- is simply
        absent, and the provider sends a short placeholder in its place.
        """
        media = self.registry.host.media
        if media is None:
            return {}
        handles: list[str] = []
        for message in reversed(history):
            for part in reversed(message.parts):
                if isinstance(part, MediaPart) and part.handle not in handles:
                    handles.append(part.handle)
        scope = media_scope_of(self.ctx)
        out: dict[str, MediaBlob] = {}
        total = 0
        for handle in handles[:REQUEST_MEDIA_MAX_PARTS]:
            try:
                blob = await media.load(handle, scope)
            except Exception:  # noqa: BLE001 - an unreadable attachment becomes a placeholder, not a failed turn
                continue
            if total + len(blob.data) > REQUEST_MEDIA_MAX_BYTES:
                break
            total += len(blob.data)
            out[handle] = blob
        return out

    async def _dispatch_all(
        self, calls: Sequence[ToolCallEvent], media: MediaTurn | None = None
    ) -> tuple[list[ToolResultPart], AgentFailure | None, bool]:
        results: list[ToolResultPart] = []
        correctable = False
        ctx = self.ctx if media is None else replace(self.ctx, media_turn=media)
        for index, call in enumerate(calls):
            error: ToolError | None
            if call.args_error is not None:
                error = InvalidArgsError(f"{call.name}: arguments are not a JSON object: {call.args_error}")
                self._emit_bare_failure(call, error)
                content = None
            else:
                outcome = await self.registry.dispatch(
                    ToolCall(call.name, call.args, call_id=call.call_id), ctx
                )
                error = outcome.error
                content = None if outcome.model_facing is None else str(outcome.model_facing)
                if outcome.ok:
                    await self._admit_media(outcome.result)
            if error is None:
                results.append(ToolResultPart(call.call_id, call.name, content or ""))
                continue
            if self._fed_back(call.name, error):
                correctable = correctable or error.code in _CORRECTABLE
                results.append(ToolResultPart(
                    call.call_id, call.name, f"error: {error.code}: {mask_text(error.message)}", is_error=True,
                    error_code=str(error.code), error_reason=error.reason,
                ))
                continue
            # Fatal: the model is not re-asked; close the remaining calls for a valid history.
            # The reason stays in the stored result, so a reloaded session still says why.
            results.append(ToolResultPart(call.call_id, call.name,
                                          f"not run: {error.code}: {clip(mask_text(error.message), 500)}",
                                          is_error=True,
                                          error_code=str(error.code), error_reason=error.reason))
            results.extend(_not_run_parts(calls[index + 1 :], str(error.code)))
            return results, AgentFailure(
                str(error.code), error.message, reason=error.reason, retryable=error.retryable
            ), False
        return results, None, correctable

    def _fed_back(self, tool_id: str, error: ToolError) -> bool:
        if error.code in _CORRECTABLE:
            return True
        if not self.chat:
            return False
        if error.code is ErrorCode.TOOL_DENIED:
            return error.reason in RECOVERABLE_DENIALS
        if error.code is ErrorCode.TOOL_FAILED:
            tool = self.registry.get(tool_id)
            return tool is not None and tool.policy.action_class is ActionClass.READ
        return False

    def _emit_bare_failure(self, call: ToolCallEvent, error: ToolError) -> None:
        node = self.ctx.node_id
        self.emit(AgentToolCall(node_id=node, tool_id=call.name, tool_input={
            "preview": clip(mask_text(call.args_error or ""), EVENT_INPUT_PREVIEW_CHARS)}))
        err: ErrorInfo = error.info()
        self.emit(AgentToolResult(node_id=node, tool_id=call.name, success=False, output_summary="",
                                  error=err.model_copy(update={"message": mask_text(err.message)})))

    def _append(self, history: list[Message], message: Message) -> None:
        history.append(message)
        self._result.new_messages.append(message)
        if self.on_message is not None:
            self.on_message(message)

    def _record_usage(self, turn: StreamedTurn) -> None:
        if not (turn.input_tokens or turn.output_tokens):
            return
        record = UsageRecord(
            provider=turn.route.provider,
            model=turn.route.model,
            input_tokens=turn.input_tokens,
            output_tokens=turn.output_tokens,
            cost_usd=cost_usd(turn.route.model, turn.input_tokens, turn.output_tokens),
        )
        self._result.usage.append(record)
        self.emit(CostUpdated(
            node_id=self.ctx.node_id,
            model=record.model,
            input_tokens=record.input_tokens,
            output_tokens=record.output_tokens,
            cost_microcents=None if record.cost_usd is None else usd_to_microcents(record.cost_usd),
            provider=record.provider,
        ))
        if self.on_usage is not None:
            self.on_usage(record)

    def _fail(self, failure: AgentFailure) -> LoopResult:
        self._result.status = "failed"
        self._result.failure = failure
        return self._result


def _not_run_parts(calls: Sequence[ToolCallEvent], code: str) -> list[ToolResultPart]:
    return [ToolResultPart(c.call_id, c.name, f"not run: {code}", is_error=True, error_code=code) for c in calls]


def _not_run(calls: Sequence[ToolCallEvent], code: str) -> Message:
    return Message("tool", tuple(_not_run_parts(calls, code)))
