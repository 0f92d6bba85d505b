"""ToolRegistry.dispatch: the spec's fixed pipeline, in order.

Security order matters: the effective arguments are assembled *before* any
guardrail runs, so a tool node whose values all arrive through
``input_mapping`` is checked on those values, and config-only values pinned
by the author always win over anything a model said.  The host is touched
exactly once, in the middle.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from relavium_desktop.engine.errors import (
    DenyReason,
    InvalidArgsError,
    ToolCancelledError,
    ToolDeniedError,
    ToolError,
    ToolFailedError,
    ToolUnavailableError,
    UnknownToolError,
)
from relavium_desktop.engine.events import AgentToolCall, AgentToolResult, RunEvent
from relavium_desktop.engine.host import SpillInfo, ToolHost
from relavium_desktop.engine.jsontypes import JsonDict
from relavium_desktop.engine.tools import mapping
from relavium_desktop.engine.tools.bounding import (
    DEFAULT_LIMITS,
    Measured,
    needs_bounding,
    preview,
    render_for_model,
)
from relavium_desktop.engine.tools.bounds import check_bounds
from relavium_desktop.engine.tools.call_origin import CallOrigin, calling
from relavium_desktop.engine.tools.command_policy import check_command
from relavium_desktop.engine.tools.fs_floors import is_protected_write
from relavium_desktop.engine.tools.json_schema import check_json_schema
from relavium_desktop.engine.tools.masking import clip, mask_text, mask_value
from relavium_desktop.engine.tools.schema import llm_visible_schema
from relavium_desktop.engine.tools.tooldef import (
    ApprovalRequest,
    PolicyTarget,
    ToolCall,
    ToolDef,
    ToolDispatchContext,
)

# Display bounds for event payloads (separate from the model-facing bound).
EVENT_INPUT_PREVIEW_CHARS = 2_000
EVENT_OUTPUT_SUMMARY_CHARS = 1_000


class UntrustedText(str):
    """A model-facing tool result: data from the outside world, never instructions.

    The agent loop may place it only in a tool/user position; the type makes
    that checkable where it is placed.
    """

    __slots__ = ()


@dataclass(slots=True)
class DispatchOutcome:
    tool: str
    ok: bool
    result: Any = None
    model_facing: UntrustedText | None = None
    truncated: bool = False
    spill: SpillInfo | None = None
    error: ToolError | None = None
    mapped: JsonDict = field(default_factory=dict)
    events: list[RunEvent] = field(default_factory=list)

    def to_json(self) -> JsonDict:
        if self.ok:
            return {
                "ok": True,
                "tool": self.tool,
                "result": self.result,
                "model_facing": str(self.model_facing),
                "truncated": self.truncated,
                "spill": self.spill.to_json() if self.spill else None,
                "events": [e.to_wire() for e in self.events],
            }
        assert self.error is not None
        return {"ok": False, "tool": self.tool, "error": self.error.to_json(),
                "events": [e.to_wire() for e in self.events]}


def _schema_message(tool_id: str, exc: ValidationError) -> str:
    parts = []
    for err in exc.errors(include_url=False, include_input=False)[:5]:
        loc = ".".join(str(p) for p in err.get("loc", ())) or "(arguments)"
        parts.append(f"{loc}: {err.get('msg', 'invalid')}")
    more = exc.error_count() - len(parts)
    suffix = f" (+{more} more)" if more > 0 else ""
    return f"{tool_id}: invalid arguments: " + "; ".join(parts) + suffix


class ToolRegistry:
    def __init__(self, tools: Iterable[ToolDef], host: ToolHost) -> None:
        self._tools: dict[str, ToolDef] = {}
        for tool in tools:
            self.register(tool)
        self.host = host

    def register(self, tool: ToolDef) -> None:
        if tool.id in self._tools:
            raise ValueError(f"tool id {tool.id!r} is already registered")
        self._tools[tool.id] = tool

    def ids(self) -> list[str]:
        return sorted(self._tools)

    def get(self, tool_id: str) -> ToolDef | None:
        return self._tools.get(tool_id)

    def describe(self) -> list[JsonDict]:
        return [
            {
                "id": t.id,
                "source": t.source,
                "description": t.description,
                "parameters": llm_visible_schema(t),
                "policy": t.policy.to_json(),
            }
            for t in (self._tools[i] for i in self.ids())
        ]

    # -- the pipeline -------------------------------------------------------

    async def dispatch(self, call: ToolCall, ctx: ToolDispatchContext) -> DispatchOutcome:
        outcome = DispatchOutcome(tool=call.name, ok=False)
        emitted_call = False

        def emit(event: RunEvent) -> None:
            outcome.events.append(event)
            if ctx.emit is not None:
                ctx.emit(event)

        try:
            # 1. A provider-executed call never reaches a local host, known id or not.
            if call.provider_executed:
                raise ToolDeniedError(
                    f"{call.name}: the provider already executed this call; it is not run locally",
                    reason=DenyReason.PROVIDER_EXECUTED,
                )
            # 2. Exact-id resolution, never fuzzy.
            tool = self._tools.get(call.name)
            if tool is None:
                raise UnknownToolError(
                    f"no tool named {call.name!r}; available tools: {', '.join(self.ids())}"
                )
            # 3. Registered is not granted.
            if tool.id not in ctx.granted_tool_ids:
                raise ToolDeniedError(
                    f"{tool.id} is not granted to this node", reason=DenyReason.NOT_GRANTED
                )
            # 4. Effective args: model args, then input_mapping, then config (wins).
            effective = self._assemble(tool, call.args, ctx)
            emit(self._tool_call_event(tool, effective, ctx))
            emitted_call = True
            # 5. Validate the complete effective set: byte bounds, then schema.
            check_bounds(tool.id, effective, tool.byte_bounds, tool.vector_bounds)
            args: Any
            if tool.input_schema is not None:
                check_json_schema(tool.id, effective, tool.input_schema)
                args = dict(effective)
            else:
                try:
                    args = tool.args_model.model_validate(effective)
                except ValidationError as exc:
                    raise InvalidArgsError(_schema_message(tool.id, exc)) from None
            # 6. Guardrails on the effective args.
            target = tool.policy_target(args) if tool.policy_target else None
            self._guard(tool, args, target, ctx)
            # 7. Approval for governed actions.
            await self._approve(tool, target, effective, ctx)
            # 8. The one host call.
            try:
                with calling(CallOrigin(ctx.run_id, ctx.node_id, tool.id, call.call_id)):
                    result = await tool.dispatch(args, self.host, ctx)
            except ToolError:
                raise
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                raise ToolFailedError(f"{tool.id} failed: {_describe_exception(exc)}") from exc
            # 9. output_mapping on the full result.
            outcome.mapped = mapping.apply_output_mapping(result, ctx.config_for(tool.id).output_mapping)
            # 10. Bound the model-facing copy, 11. mark it untrusted.
            outcome.result = result
            await self._bound(outcome, tool, result, ctx)
            outcome.ok = True
            emit(self._tool_result_event(tool.id, ctx, outcome))
            return outcome
        except asyncio.CancelledError:
            outcome.error = ToolCancelledError()
            if not emitted_call:
                emit(self._bare_call_event(call, ctx))
            emit(self._tool_result_event(call.name, ctx, outcome))
            raise
        except ToolError as exc:
            outcome.error = exc
            if not emitted_call:
                emit(self._bare_call_event(call, ctx))
            emit(self._tool_result_event(call.name, ctx, outcome))
            return outcome

    def _assemble(self, tool: ToolDef, model_args: Mapping[str, Any], ctx: ToolDispatchContext) -> JsonDict:
        if not isinstance(model_args, Mapping):
            raise InvalidArgsError(f"{tool.id}: arguments must be a JSON object")
        effective: JsonDict = {
            k: v for k, v in model_args.items() if k not in tool.config_only
        }
        config = ctx.config_for(tool.id)
        effective.update(mapping.resolve_input_mapping(config.input_mapping))
        for key, value in config.parameters.items():
            effective[key] = value
        return effective

    def _guard(
        self, tool: ToolDef, args: Any, target: PolicyTarget | None, ctx: ToolDispatchContext
    ) -> None:
        policy = tool.policy
        if policy.requires_gate_approval and not ctx.gate_approved:
            if ctx.gate_refusal:
                message = (f"{tool.id} needs a person's approval at a human gate on every path to node "
                           f"{ctx.node_id!r}: {ctx.gate_refusal}")
            else:
                message = (f"{tool.id} needs a human-gate approval before it may run; review and commit "
                           "manually or approve it through a gate")
            raise ToolDeniedError(message, reason=DenyReason.GATE_REQUIRED)
        if policy.spawns_process and target is not None and target.argv is not None:
            check_command(target.argv, ctx.policy)
        if tool.guard is not None:
            tool.guard(args, ctx)

    async def _approve(
        self, tool: ToolDef, target: PolicyTarget | None, effective: JsonDict, ctx: ToolDispatchContext
    ) -> None:
        regime = ctx.approval
        if regime is None or not tool.policy.governed:
            return
        action = tool.policy.action_class
        if action in regime.deny:
            message = (
                regime.deny_message(tool.id, action)
                if regime.deny_message is not None
                else f"{tool.id}: {action} actions are not allowed in this mode"
            )
            raise ToolDeniedError(mask_text(message), reason=DenyReason.USER_REJECTED)
        written = target.path if tool.policy.fs_write and target and target.path else None
        request = ApprovalRequest(
            tool_id=tool.id,
            action_class=action,
            target=mask_text(target.preview()) if target else "",
            masked_args=mask_value(effective),
            node_id=ctx.node_id,
            protected_path=bool(written and is_protected_write(written)),
            path=mask_text(written) if written else None,
        )
        if action in regime.auto_approve and not request.protected_path:
            return
        if regime.hook is None:
            raise ToolDeniedError(
                f"{tool.id} needs approval but no approval prompt is available",
                reason=DenyReason.NO_APPROVAL_HOOK,
            )
        decision = await regime.hook(request)
        if not decision.approved:
            why = f": {mask_text(decision.reason)}" if decision.reason else ""
            raise ToolDeniedError(
                f"{tool.id} was refused by the user{why}", reason=DenyReason.USER_REJECTED
            )

    async def _bound(
        self, outcome: DispatchOutcome, tool: ToolDef, result: Any, ctx: ToolDispatchContext
    ) -> None:
        limits = ctx.limits or DEFAULT_LIMITS
        measured = Measured.of(render_for_model(result))
        if not needs_bounding(measured, limits):
            outcome.model_facing = UntrustedText(measured.text)
            return
        spill: SpillInfo | None = None
        if self.host.output_store is not None:
            spill = await self.host.output_store.spill(ctx.run_id, tool.id, measured.text)
        outcome.truncated = True
        outcome.spill = spill
        outcome.model_facing = UntrustedText(preview(measured, limits, spill))

    # -- events -------------------------------------------------------------

    @staticmethod
    def _tool_call_event(tool: ToolDef, effective: JsonDict, ctx: ToolDispatchContext) -> AgentToolCall:
        masked = mask_value(effective)
        tool_input: Any = masked
        if not _fits_chars(masked, EVENT_INPUT_PREVIEW_CHARS):
            tool_input = {"preview": clip(render_for_model(masked), EVENT_INPUT_PREVIEW_CHARS)}
        return AgentToolCall(node_id=ctx.node_id, tool_id=tool.id, tool_input=tool_input)

    @staticmethod
    def _bare_call_event(call: ToolCall, ctx: ToolDispatchContext) -> AgentToolCall:
        rendered = mask_text(render_for_model(dict(call.args) if isinstance(call.args, Mapping) else call.args))
        return AgentToolCall(node_id=ctx.node_id, tool_id=call.name,
                             tool_input={"preview": clip(rendered, EVENT_INPUT_PREVIEW_CHARS)})

    @staticmethod
    def _tool_result_event(tool_id: str, ctx: ToolDispatchContext, outcome: DispatchOutcome) -> AgentToolResult:
        if outcome.ok:
            summary = mask_text(str(outcome.model_facing or ""))
            return AgentToolResult(
                node_id=ctx.node_id, tool_id=tool_id, success=True,
                output_summary=clip(summary, EVENT_OUTPUT_SUMMARY_CHARS),
                spill=outcome.spill.to_json() if outcome.spill else None,
            )
        assert outcome.error is not None
        err = outcome.error.info()
        return AgentToolResult(
            node_id=ctx.node_id, tool_id=tool_id, success=False, output_summary="",
            error=err.model_copy(update={"message": mask_text(err.message)}),
        )


def _fits_chars(value: Any, budget: int) -> bool:
    """Cheap upper-bound check that ``value``'s JSON stays within ``budget`` characters."""
    stack = [value]
    used = 0
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            used += len(item) * 2 + 2  # worst case: every character escaped
        elif item is None or type(item) in (int, float, bool):
            used += 24
        elif isinstance(item, dict | Mapping):
            for k, v in item.items():
                used += len(str(k)) + 4
                stack.append(v)
        elif isinstance(item, list | tuple):
            used += 2
            stack.extend(item)
        else:
            used += 24
        if used > budget:
            return False
    return True


def _describe_exception(exc: BaseException) -> str:
    """A short, secret-free description of a host failure."""
    if isinstance(exc, OSError):
        # strerror only: the filename an OSError carries is a resolved path.
        return exc.strerror or type(exc).__name__
    text = mask_text(str(exc)) or type(exc).__name__
    return clip(text, 300)


def require(capability: Any, tool_id: str, what: str) -> Any:
    """Fail closed with tool_unavailable when the host lacks a capability."""
    if capability is None:
        raise ToolUnavailableError(f"{tool_id} is not available here: this host has no {what} capability")
    return capability
