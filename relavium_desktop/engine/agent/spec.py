"""The ``*.agent.yaml`` model: strict, so a typo is an error, not a default.

Unknown keys are refused and values are not coerced (``temperature: "hot"``
is a wrong type, not a string to parse), because a silently ignored key in an
agent definition is a guardrail or budget the author believes is active.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from relavium_desktop.engine.agent.spec_fields import UpstreamAgentFields
from relavium_desktop.engine.agent.tool_config import ToolConfigEntry, key_problem
from relavium_desktop.engine.tools.http_tools import HttpToolDecl

# run_timeout: a workflow agent node's own timeout_ms, retryable at the node level.
# sandbox_error: a transform/condition expression that ran out of time (upstream's retry_on lists it).
RetryCode = Literal["tool_failed", "provider_unavailable", "provider_rate_limit", "run_timeout", "sandbox_error"]
RETRYABLE_CODES: tuple[RetryCode, ...] = ("tool_failed", "provider_unavailable", "provider_rate_limit")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class RetryPolicy(_Strict):
    """The node-retry budget: ``max`` is the total attempts, the first included (agent spec).

    ``max: 3`` is the first attempt and up to two re-runs; ``max: 1`` is no
    retry.  The same model serves an agent file and a workflow's agent, so
    ``relavium agent run`` and a workflow node count alike.  ``linear`` is
    accepted so upstream v1.0 workflow agents parse with this one model.
    """

    max: int = Field(default=1, le=20)
    backoff: Literal["fixed", "linear", "exponential"] = "exponential"
    backoff_ms: int = Field(default=1_000, ge=0, le=600_000)
    retry_on: list[RetryCode] = Field(default_factory=lambda: list(RETRYABLE_CODES))

    @field_validator("max")
    @classmethod
    def _counts_attempts(cls, value: int) -> int:
        if value < 1:
            raise PydanticCustomError(
                "retry_max", "retry.max counts every attempt, the first included: at least 1 (1 is no retry)"
            )
        return value

    def delay_ms(self, attempt: int) -> int:
        """Delay before retry ``attempt`` (1-based)."""
        if self.backoff == "fixed":
            return self.backoff_ms
        if self.backoff == "linear":
            return self.backoff_ms * attempt
        return int(self.backoff_ms * (2 ** (attempt - 1)))


class FallbackEntry(_Strict):
    provider: str = Field(min_length=1)
    model: str = Field(min_length=1)
    max_attempts: int = Field(default=1, ge=1, le=5)


class AgentSpec(_Strict, UpstreamAgentFields):
    id: str = Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
    name: str = Field(default="", max_length=256)
    description: str = Field(default="", max_length=4_096)
    provider: str = Field(min_length=1)
    model: str = Field(min_length=1)
    system_prompt: str = Field(default="", max_length=200_000)
    temperature: float | None = Field(default=None, ge=0, le=2)
    max_tokens: int | None = Field(default=None, ge=1, le=1_000_000)
    tools: list[str] = Field(default_factory=list)
    # ``type: http`` tools this agent declares (engine/tools/http_tools.py); listed in ``tools`` to be granted.
    http_tools: list[HttpToolDecl] = Field(default_factory=list)
    retry: RetryPolicy = Field(default_factory=RetryPolicy)
    fallback_chain: list[FallbackEntry] = Field(default_factory=list)
    output_schema: dict[str, Any] | None = None
    # Per-tool pinned parameters: {tool_id: {parameters: {...}}} (see engine/agent/tool_config.py).
    tool_config: dict[str, ToolConfigEntry] = Field(default_factory=dict)
    # mcp_servers, reasoning_effort, input_schema, memory: UpstreamAgentFields (spec_fields.py).

    @field_validator("tool_config")
    @classmethod
    def _configured_tools_are_granted(
        cls, value: dict[str, ToolConfigEntry], info: ValidationInfo
    ) -> dict[str, ToolConfigEntry]:
        return check_tool_config_keys(value, info)


def check_tool_config_keys(value: dict[str, ToolConfigEntry], info: ValidationInfo) -> dict[str, ToolConfigEntry]:
    """Refuse a ``tool_config`` entry for a tool the agent does not list (``ctx.tool`` names it)."""
    tools = info.data.get("tools")
    if tools is None:  # tools itself failed validation; that error is the one to read
        return value
    problem = key_problem(tools, value)
    if problem is not None:
        raise PydanticCustomError("tool_config_not_granted", problem[1], {"tool": problem[0]})
    return value
