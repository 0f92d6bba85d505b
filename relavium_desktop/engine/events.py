"""The run events: one typed vocabulary for chat, workflows, the CLI and the UI.

Every event the engine can emit is a model here, so a field cannot drift
between two producers (``attempt`` in one, ``attemptNumber`` in another) and
one serialiser, :meth:`WireModel.to_wire`, writes the camelCase wire form
that the CLI prints, the store keeps and the UI reads.  The names follow the
upstream run-event schema (``sse-event-schema``); events the upstream schema
does not have (``node:skipped``, ``node:retrying``, ``agent:reasoning``,
``agent:provider_fallback``, ``agent:retrying``, ``agent:tool_progress``,
``agent:tool_log``, ``budget:exceeded``, ``chat:turn_*``) are additive local extensions,
which the schema allows.  Every error on the wire — a tool's, a node's, a
provider's, a run's — is one :class:`ErrorInfo`.

Every string of an event's wire form is masked (credentials never leave
through an event, whoever produced it).  Producers build a typed event and
hand it to an :data:`Emit`; the :class:`EventBus` stamps the envelope
(``runId`` or ``sessionId``, ``timestamp``, a gap-free ``sequenceNumber``)
and fans the wire dict out to subscribers.  The clock is injected so the engine stays pure and tests stay
deterministic.

Wire rule: an optional field (one with a default) is omitted when it is
``None`` — an absent optional is omitted, not ``null`` — while a required
field typed ``X | None`` is always written, ``null`` included (``reason`` of
an error is such a field: the CLI contract is ``{code, reason, message}``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any, ClassVar, Literal, TypeVar

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator
from pydantic.alias_generators import to_camel

from relavium_desktop.engine.jsontypes import JsonDict
from relavium_desktop.engine.tools.masking import mask_strings, mask_text, mask_value

Subscriber = Callable[[JsonDict], None]

TERMINAL_RUN_EVENTS = frozenset({"run:completed", "run:failed", "run:cancelled"})


class WireModel(BaseModel):
    """A frozen model whose wire form is camelCase JSON with absent optionals omitted."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", alias_generator=to_camel, validate_by_name=True, validate_by_alias=True,
    )

    def to_wire(self) -> JsonDict:
        out: JsonDict = {}
        for name, info in type(self).model_fields.items():
            value = getattr(self, name)
            if value is None and not info.is_required():
                continue
            out[info.serialization_alias or info.alias or name] = _wire_value(value)
        return out


def _wire_value(value: Any) -> Any:
    # Free-form payloads (outputs, tool input) pass through untouched: they are
    # already JSON values, and copying a large output per event would cost.
    if isinstance(value, WireModel):
        return value.to_wire()
    if isinstance(value, list) and value and isinstance(value[0], WireModel):
        return [_wire_value(v) for v in value]
    return value


class ErrorInfo(WireModel):
    """The one error shape of every event, the CLI and the run history.

    ``retryable`` is written by node, run and turn errors (the schema has it
    there) and left out of a tool dispatch error, whose CLI contract is
    ``{code, reason, message}``; ``retryAfter`` is a provider's hint and
    ``nodeId`` names the root-cause node of a failed run.
    """

    code: str
    reason: str | None
    message: str
    retryable: bool | None = None
    retry_after: float | None = None
    node_id: str | None = None

    @field_validator("message")
    @classmethod
    def _masked(cls, message: str) -> str:
        """Every error, whoever raised it, is masked before any surface can show or store it."""
        return mask_text(message)


class TokensUsed(WireModel):
    input: int
    output: int
    model: str | None = None


class ModelRoute(WireModel):
    provider: str
    model: str


class FilePatch(WireModel):
    uri: str
    unified_diff: str


class RunEvent(WireModel):
    """Base of every event; ``TYPE`` is the wire discriminant."""

    TYPE: ClassVar[str] = ""

    def to_wire(self) -> JsonDict:
        """The wire form, every string in it masked.

        The one choke point of the event channel: whatever a producer put in
        an event (an error echoing its input, a server's text, a run's
        inputs), every consumer -- the bus and its subscribers (stdout,
        history.db, the UI), a caller serialising an event itself -- gets it
        masked.
        """
        wire: JsonDict = mask_strings({"type": self.TYPE, **super().to_wire()})
        return wire


# Whether the engine emits an event today; the reserved upstream ones are
# defined so a consumer can parse them, but nothing produces them yet.
EMITTED: dict[str, bool] = {}
EVENT_MODELS: dict[str, type[RunEvent]] = {}


_E = TypeVar("_E", bound=type[RunEvent])


def _register(emitted: bool = True) -> Callable[[_E], _E]:
    def add(cls: _E) -> _E:
        if not cls.TYPE or cls.TYPE in EVENT_MODELS:
            raise ValueError(f"event type {cls.TYPE!r} is empty or defined twice")
        EVENT_MODELS[cls.TYPE] = cls
        EMITTED[cls.TYPE] = emitted
        return cls

    return add


# -- runs ----------------------------------------------------------------------


@_register()
class RunStarted(RunEvent):
    """A workflow run (``workflowId``…) or a headless agent run (``agentId``…) began."""

    TYPE: ClassVar[str] = "run:started"
    workflow_id: str | None = None
    workflow_name: str | None = None
    inputs: Any = None

    @field_validator("inputs")
    @classmethod
    def _masked_inputs(cls, inputs: Any) -> Any:
        """Masked as the input node's own output is: an input named like a secret shows ``***`` too."""
        return mask_value(inputs)

    execution_mode: Literal["local", "cloud", "managed"] | None = None
    agent_id: str | None = None
    provider: str | None = None
    model: str | None = None


class AgentUsage(WireModel):
    input_tokens: int
    output_tokens: int


@_register()
class RunCompleted(RunEvent):
    """Workflow runs carry ``outputs`` and totals; agent runs ``output``, ``toolTurns``, ``usage``."""

    TYPE: ClassVar[str] = "run:completed"
    outputs: Any = None
    output: str | None = None
    tool_turns: int | None = None
    usage: AgentUsage | None = None
    total_tokens_used: TokensUsed | None = None
    total_cost_microcents: int | None = None
    duration_ms: int | None = None


@_register()
class RunFailed(RunEvent):
    TYPE: ClassVar[str] = "run:failed"
    error: ErrorInfo
    partial_outputs: Any = None
    retryable: bool | None = None
    tool_turns: int | None = None
    usage: AgentUsage | None = None
    total_tokens_used: TokensUsed | None = None
    total_cost_microcents: int | None = None
    duration_ms: int | None = None


@_register()
class RunCancelled(RunEvent):
    TYPE: ClassVar[str] = "run:cancelled"
    error: ErrorInfo | None = None
    total_tokens_used: TokensUsed | None = None
    total_cost_microcents: int | None = None
    duration_ms: int | None = None


@_register()
class RunPaused(RunEvent):
    TYPE: ClassVar[str] = "run:paused"
    pending_gate_count: int
    gate_ids: list[str]


@_register()
class RunTimeout(RunEvent):
    TYPE: ClassVar[str] = "run:timeout"
    elapsed_ms: int
    timeout_ms: int


# -- nodes ---------------------------------------------------------------------


class _NodeEvent(RunEvent):
    """Fields every node lifecycle event carries (abstract: no ``TYPE`` of its own)."""

    node_id: str
    node_type: str


@_register()
class NodeStarted(_NodeEvent):
    TYPE: ClassVar[str] = "node:started"
    attempt_number: int | None = None


@_register()
class NodeCompleted(_NodeEvent):
    TYPE: ClassVar[str] = "node:completed"
    output: Any
    tokens_used: TokensUsed
    duration_ms: int
    attempt_number: int | None = None


@_register()
class NodeFailed(_NodeEvent):
    TYPE: ClassVar[str] = "node:failed"
    error: ErrorInfo
    attempt_number: int | None = None


@_register()
class NodeSkipped(_NodeEvent):
    TYPE: ClassVar[str] = "node:skipped"
    reason: Literal["branch_not_taken", "upstream_unreachable", "run_failed"]


@_register()
class NodeRetrying(RunEvent):
    """``attemptNumber`` is the 1-based attempt about to start (2 for the first retry)."""

    TYPE: ClassVar[str] = "node:retrying"
    node_id: str
    node_type: str | None = None
    attempt_number: int
    delay_ms: int
    error: ErrorInfo


# -- agents --------------------------------------------------------------------


class _AgentStream(RunEvent):
    """A streamed piece of a model's answer or its reasoning (abstract)."""

    node_id: str
    token: str
    model: str | None = None


@_register()
class AgentToken(_AgentStream):
    TYPE: ClassVar[str] = "agent:token"


@_register()
class AgentReasoning(_AgentStream):
    TYPE: ClassVar[str] = "agent:reasoning"


@_register()
class AgentToolCall(RunEvent):
    """``toolInput`` is masked and bounded (a ``{preview}`` when large) before it gets here."""

    TYPE: ClassVar[str] = "agent:tool_call"
    node_id: str
    tool_id: str
    tool_input: Any


@_register()
class AgentToolResult(RunEvent):
    TYPE: ClassVar[str] = "agent:tool_result"
    node_id: str
    tool_id: str
    success: bool
    output_summary: str
    spill: dict[str, Any] | None = None
    error: ErrorInfo | None = None


@_register()
class AgentToolProgress(RunEvent):
    """A server's progress report for one running tool call (an MCP tool's ``notifications/progress``).

    Local extension: the upstream schema has no progress event, and a long
    MCP call would otherwise show nothing between its call and its result.
    ``message`` is masked and clipped by the producer.
    """

    TYPE: ClassVar[str] = "agent:tool_progress"
    node_id: str
    tool_id: str
    progress: float
    total: float | None = None
    message: str | None = None


@_register()
class AgentToolLog(RunEvent):
    """One log line a server sent while a tool call ran (MCP ``notifications/message``), masked and clipped."""

    TYPE: ClassVar[str] = "agent:tool_log"
    node_id: str
    tool_id: str
    level: str
    message: str


@_register()
class AgentProviderFallback(RunEvent):
    TYPE: ClassVar[str] = "agent:provider_fallback"
    node_id: str
    # ``from`` is a Python keyword: the field is ``from_`` and only the wire says ``from``.
    from_: ModelRoute = Field(validation_alias=AliasChoices("from", "from_"), serialization_alias="from")
    to: ModelRoute
    error: ErrorInfo | None


@_register()
class AgentRetrying(RunEvent):
    """A model request failed in a passing way and is sent again after ``delayMs``.

    ``message`` is the sentence a surface shows while it waits ("rate
    limited, retrying in 5 s"); ``retryAfter`` is what the server asked and
    ``capped`` says the wait was cut to the policy's cap.  ``attemptNumber``
    is the 1-based attempt about to start, as in ``node:retrying``.
    """

    TYPE: ClassVar[str] = "agent:retrying"
    node_id: str
    attempt_number: int
    max_attempts: int
    delay_ms: int
    message: str
    provider: str
    model: str
    error: ErrorInfo
    retry_after: float | None = None
    capped: bool | None = None


@_register(emitted=False)
class AgentFilePatchProposed(RunEvent):
    TYPE: ClassVar[str] = "agent:file_patch_proposed"
    node_id: str
    patches: list[FilePatch] = Field(min_length=1)
    attempt_number: int | None = None


@_register()
class CostUpdated(RunEvent):
    """Integer micro-cents, the schema's one money unit.

    ``costMicrocents`` is ``null`` when the model has no known price (a chat
    turn on an unpriced model); ``cumulativeCostMicrocents`` and
    ``attemptNumber`` come from a workflow run, which owns the running total.
    """

    TYPE: ClassVar[str] = "cost:updated"
    node_id: str
    model: str
    input_tokens: int
    output_tokens: int
    cost_microcents: int | None
    cumulative_cost_microcents: int | None = None
    attempt_number: int | None = None
    provider: str | None = None


# -- human gates ----------------------------------------------------------------


@_register()
class HumanGatePaused(RunEvent):
    TYPE: ClassVar[str] = "human_gate:paused"
    node_id: str
    gate_id: str
    gate_type: Literal["approval", "input", "review"]
    message: str
    assignee: str | None = None
    timeout_ms: int | None = None
    expires_at: str | None = None


@_register()
class HumanGateResumed(RunEvent):
    TYPE: ClassVar[str] = "human_gate:resumed"
    node_id: str
    gate_id: str
    decision: Literal["approved", "rejected", "input_provided"]
    decided_by: str
    payload: Any = None
    comment: str | None = None


# -- budgets: a workflow's pre-egress cost cap (engine/workflow/budget.py) ----------


@_register()
class BudgetWarning(RunEvent):
    """``on_exceed: warn``: once per run, before the first request the cap would not cover."""

    TYPE: ClassVar[str] = "budget:warning"
    spent_microcents: int
    limit_microcents: int
    threshold_pct: float


@_register()
class BudgetPaused(RunEvent):
    """``on_exceed: pause_for_approval``: the node waits behind a gate answered like a human gate."""

    TYPE: ClassVar[str] = "budget:paused"
    node_id: str
    spent_microcents: int
    limit_microcents: int
    gate_id: str


@_register()
class BudgetExceeded(RunEvent):
    """``on_exceed: fail`` (a local additive event): the figures, before the node and the run fail."""

    TYPE: ClassVar[str] = "budget:exceeded"
    node_id: str
    spent_microcents: int
    limit_microcents: int
    estimated_microcents: int


# -- sessions (upstream's agent-first namespace) -----------------------------------
#
# Defined so a consumer can parse upstream session streams; our chat still
# emits its own chat:turn_* events below (its turns, not a session
# lifecycle), so none of these is emitted yet.


class SessionContext(WireModel):
    working_dir: str
    fs_scope_tier: Literal["sandboxed", "project", "full"]


@_register(emitted=False)
class SessionStarted(RunEvent):
    TYPE: ClassVar[str] = "session:started"
    agent_ref: str
    model: str
    context: SessionContext


@_register(emitted=False)
class SessionTurnStarted(RunEvent):
    TYPE: ClassVar[str] = "session:turn_started"


@_register(emitted=False)
class SessionTurnCompleted(RunEvent):
    TYPE: ClassVar[str] = "session:turn_completed"
    stop_reason: str
    tokens_used: TokensUsed
    error: ErrorInfo | None = None


@_register(emitted=False)
class SessionCancelled(RunEvent):
    TYPE: ClassVar[str] = "session:cancelled"


@_register(emitted=False)
class SessionExported(RunEvent):
    TYPE: ClassVar[str] = "session:exported"
    workflow_path: str = Field(min_length=1)


@_register(emitted=False)
class SessionCompacting(RunEvent):
    TYPE: ClassVar[str] = "session:compacting"
    reason: Literal["manual", "auto-threshold"]


@_register(emitted=False)
class SessionCompacted(RunEvent):
    TYPE: ClassVar[str] = "session:compacted"
    reason: Literal["manual", "auto-threshold"]
    summary: str = Field(min_length=1)
    kept_message_count: int = Field(ge=0)
    tokens_before: int = Field(ge=0)
    tokens_after: int = Field(ge=0)
    tokens_used: TokensUsed


@_register(emitted=False)
class SessionTrimmed(RunEvent):
    TYPE: ClassVar[str] = "session:trimmed"
    reason: Literal["manual", "auto-fallback"]
    kept_message_count: int = Field(ge=0)
    dropped_message_count: int = Field(ge=0)


# -- chat turns ------------------------------------------------------------------


@_register()
class ChatTurnCompleted(RunEvent):
    TYPE: ClassVar[str] = "chat:turn_completed"
    tool_turns: int


@_register()
class ChatTurnFailed(RunEvent):
    TYPE: ClassVar[str] = "chat:turn_failed"
    error: ErrorInfo


@_register()
class ChatTurnCancelled(RunEvent):
    TYPE: ClassVar[str] = "chat:turn_cancelled"


Emit = Callable[[RunEvent], object]


def event_from_wire(payload: Mapping[str, Any]) -> RunEvent:
    """The typed event of a wire dict (envelope fields ignored); raises on drift.

    Extra fields are refused, so a stored or received event that drifted from
    the schema fails loudly instead of reaching a consumer half-understood.
    """
    kind = payload.get("type")
    model = EVENT_MODELS.get(kind) if isinstance(kind, str) else None
    if model is None:
        raise ValueError(f"unknown run event type {kind!r}")
    body = {k: v for k, v in payload.items() if k not in _ENVELOPE}
    return model.model_validate(body)


_ENVELOPE = frozenset({"type", "runId", "sessionId", "timestamp", "sequenceNumber"})


@lru_cache(maxsize=8)
def _second_prefix(whole: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole))


def iso_timestamp(epoch_seconds: float) -> str:
    """RFC 3339 UTC with milliseconds, e.g. ``2026-11-29T18:54:08.123Z``."""
    whole = int(epoch_seconds)
    millis = round((epoch_seconds - whole) * 1000)
    if millis == 1000:
        whole, millis = whole + 1, 0
    return f"{_second_prefix(whole)}.{millis:03d}Z"


class EventBus:
    def __init__(
        self,
        *,
        clock: Callable[[], float],
        run_id: str | None = None,
        session_id: str | None = None,
        start_sequence: int = 0,
    ) -> None:
        if (run_id is None) == (session_id is None):
            raise ValueError("an event stream belongs to exactly one run or one session")
        self._clock = clock
        self._scope: JsonDict = {"runId": run_id} if run_id else {"sessionId": session_id}
        # A resumed run continues its gap-free sequence where the checkpoint left it.
        self._seq = start_sequence
        self._subscribers: list[Subscriber] = []
        self.history: list[JsonDict] = []

    def subscribe(self, fn: Subscriber) -> None:
        self._subscribers.append(fn)

    def emit(self, event: RunEvent) -> JsonDict:
        """Stamp and publish one typed event; subscribers get its wire dict."""
        if not isinstance(event, RunEvent):
            raise TypeError(f"run events are typed models (engine/events.py), not {type(event).__name__}")
        wire = event.to_wire()  # masked: see RunEvent.to_wire
        stamped: JsonDict = {
            "type": wire.pop("type"),
            **self._scope,
            "timestamp": iso_timestamp(self._clock()),
            "sequenceNumber": self._seq,
        }
        stamped.update(wire)
        self._seq += 1
        self.history.append(stamped)
        for fn in list(self._subscribers):
            fn(stamped)
        return stamped
