"""Strict pydantic models of the ``.relavium.yaml`` v1.0 language.

Every model forbids unknown keys: a typo in a committed workflow must fail at
load with its file:line:column, never be silently dropped (upstream ADR-0023).
Nodes are a union discriminated on ``type`` so an error names the fields of the
node type the author actually wrote.  Cross-node rules (references, cycles,
narrowing) live in :mod:`graph`, which sees the whole document.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationInfo,
    field_validator,
    model_validator,
)

from relavium_desktop.engine.agent.spec import FallbackEntry, RetryCode, RetryPolicy, check_tool_config_keys
from relavium_desktop.engine.agent.spec_fields import UpstreamAgentFields, mcp_servers_mapping
from relavium_desktop.engine.agent.tool_config import ToolConfigEntry
from relavium_desktop.engine.tools.http_tools import HttpToolDecl
from relavium_desktop.engine.tools.tooldef import SandboxMode

IDENT = r"^[A-Za-z0-9_-]+$"
# The failure codes a node retry can fire on (engine/agent/spec.py); any other retry_on code is refused.
RETRY_CODES: tuple[str, ...] = get_args(RetryCode)
NODE_ID = r"^[A-Za-z0-9][A-Za-z0-9_-]*$"


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Retry(Strict):
    max: int = Field(default=1, ge=1, le=20)
    backoff: Literal["linear", "exponential"] = "exponential"
    backoff_ms: int = Field(default=1000, ge=0, le=600_000)
    retry_on: list[str] | None = None

    @field_validator("retry_on")
    @classmethod
    def _codes_the_engine_retries(cls, value: list[str] | None) -> list[str] | None:
        # A code no failure ever carries would make the author believe a retry is armed that never fires.
        if value is not None:
            unknown = [code for code in value if code not in RETRY_CODES]
            if unknown:
                raise ValueError(
                    f"retry_on {', '.join(repr(c) for c in unknown)} is not a failure this engine retries; "
                    f"the retryable codes are {', '.join(RETRY_CODES)}"
                )
        return value


InputType = Literal["string", "number", "boolean", "file_path", "code_diff", "secret"]
_STRING_TYPES = {"string", "file_path", "code_diff", "secret"}


class InputValidation(Strict):
    format: Literal["email", "uri", "uuid", "date-time"] | None = None
    pattern: str | None = Field(default=None, max_length=1000)
    enum: list[Any] | None = None
    min_length: int | None = Field(default=None, ge=0)
    max_length: int | None = Field(default=None, ge=0)
    min: float | None = None
    max: float | None = None

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"pattern is not a valid regular expression ({exc.msg})") from None
        return value


class InputDecl(Strict):
    name: str = Field(pattern=IDENT)
    type: InputType = "string"
    required: bool | None = None
    default: Any = None
    description: str | None = None
    validation: InputValidation | None = None

    @model_validator(mode="after")
    def _type_scoped(self) -> InputDecl:
        v = self.validation
        if v is not None:
            set_keys = {k for k in type(v).model_fields if getattr(v, k) is not None}
            allowed = (
                {"min", "max", "enum"} if self.type == "number"
                else set() if self.type == "boolean"
                else {"format", "pattern", "enum", "min_length", "max_length"}
            )
            bad = sorted(set_keys - allowed)
            if bad:
                raise ValueError(f"validation key(s) {', '.join(bad)} do not apply to a {self.type} input")
            if v.min is not None and v.max is not None and v.min > v.max:
                raise ValueError("validation min must be <= max")
            if v.min_length is not None and v.max_length is not None and v.min_length > v.max_length:
                raise ValueError("validation min_length must be <= max_length")
        if self.type == "secret" and self.default is not None:
            raise ValueError("a secret input may not declare a default")
        return self

    @property
    def is_required(self) -> bool:
        """Required unless marked optional or defaulted: a missing value fails before the run."""
        if self.required is not None:
            return self.required and self.default is None
        return self.default is None


class ContextEntry(Strict):
    key: str = Field(pattern=IDENT)
    value: Any = None


class AgentDef(Strict, UpstreamAgentFields):
    """A workflow's agent, inline or from a ``$ref`` file: the ``*.agent.yaml`` model's workflow face.

    One model serves both forms, so an agent file written for ``relavium agent
    run`` (issue 6's strict spec) works as a ``$ref`` unchanged: ``retry`` and
    ``fallback_chain`` are the agent spec's own models (``retry.max`` counts
    every attempt, the first included; ``max: 1`` is none; ``backoff`` fixed,
    linear or exponential).  Beyond the spec, a workflow agent may omit
    ``provider`` (inferred from the model's family) or ``model`` (set on the
    node), and may carry upstream's ``base_url``, ``max_turns``, ``version``
    and ``tags``.
    """

    id: str = Field(pattern=IDENT)
    name: str | None = None
    description: str | None = None
    model: str | None = None
    provider: str | None = None
    base_url: str | None = None
    system_prompt: str | None = None

    @field_validator("base_url")
    @classmethod
    def _no_own_endpoint(cls, value: str | None) -> str | None:
        # Requests go to the named provider's base_url, never this one: refused rather than ignored.
        if value is not None:
            raise ValueError(
                "base_url on an agent is not supported: this engine sends an agent's requests to its "
                "provider's base_url from providers.yaml, where the address is checked (add the endpoint with "
                "relavium providers add NAME --base-url URL and name NAME in provider)"
            )
        return value
    temperature: float | None = Field(default=None, ge=0, le=2)
    max_tokens: int | None = Field(default=None, ge=1)
    tools: list[str] = Field(default_factory=list)
    # ``type: http`` tools this agent declares (engine/tools/http_tools.py); listed in ``tools`` to be granted.
    http_tools: list[HttpToolDecl] = Field(default_factory=list)
    retry: RetryPolicy | None = None
    fallback_chain: list[FallbackEntry] | None = None
    max_turns: int | None = Field(default=None, ge=1)
    # The agent's own reply contract (agent YAML); a node's output_schema takes precedence.
    output_schema: dict[str, Any] | None = None
    version: str | None = None
    tags: list[str] | None = None
    # mcp_servers, reasoning_effort, input_schema, memory: UpstreamAgentFields (engine/agent/spec_fields.py).

    # Per-tool pinned parameters, as in an agent file; applies through a node's narrowed tools.
    tool_config: dict[str, ToolConfigEntry] = Field(default_factory=dict)

    @field_validator("tool_config")
    @classmethod
    def _configured_tools_are_granted(
        cls, value: dict[str, ToolConfigEntry], info: ValidationInfo
    ) -> dict[str, ToolConfigEntry]:
        return check_tool_config_keys(value, info)


class AgentRef(Strict):
    ref: str = Field(alias="$ref", min_length=1)


def _agent_kind(value: Any) -> str:
    if isinstance(value, dict):
        return "ref" if "$ref" in value else "inline"
    return "ref" if isinstance(value, AgentRef) else "inline"


AgentEntry = Annotated[
    Annotated[AgentDef, Tag("inline")] | Annotated[AgentRef, Tag("ref")],
    Discriminator(_agent_kind),
]


class ToolsBlock(Strict):
    allowedCommands: list[str] | None = None
    allowedCommandGlobs: list[str] | None = None
    allowedDomains: list[str] | None = None
    allowedEnv: list[str] | None = None
    # The OS sandbox for run_command and the git tools (ToolPolicy.sandbox): strict when absent;
    # off is the author's explicit opt-in to run them unconfined.
    sandbox: SandboxMode | None = None

    @model_validator(mode="after")
    def _entries_valid(self) -> ToolsBlock:
        # The engine's one allowlist rule, so a workflow refuses what the CLI and Settings refuse.
        from relavium_desktop.engine.tools.tooldef import ToolPolicy

        ToolPolicy.from_json(self.model_dump(exclude_none=True))
        return self


class _NodeBase(Strict):
    id: str = Field(pattern=NODE_ID)
    name: str | None = None
    description: str | None = None


class InputNode(_NodeBase):
    type: Literal["input"]


class AgentNode(_NodeBase):
    type: Literal["agent"]
    agent_ref: str
    prompt_template: str | None = None
    system_prompt_append: str | None = None
    tools: list[str] | None = None
    model: str | None = None
    temperature: float | None = Field(default=None, ge=0, le=2)
    max_tokens: int | None = Field(default=None, ge=1)
    output_schema: dict[str, Any] | None = None
    output_modalities: list[Literal["text", "image", "audio", "video"]] | None = None
    timeout_ms: int | None = Field(default=None, ge=1)
    retry: Retry | None = None

    @field_validator("output_modalities")
    @classmethod
    def _text_only(cls, value: list[str] | None) -> list[str] | None:
        # Nothing asks the model for media output, so a listed image/audio/video would be silently text.
        media = [m for m in value or [] if m != "text"]
        if media:
            raise ValueError(
                f"output_modalities {', '.join(media)} is not supported: this engine's agent nodes ask the model "
                "for text only (media output from an agent node is a later phase upstream); list only text, "
                "or remove the key"
            )
        return value

    @model_validator(mode="before")
    @classmethod
    def _media_counts_later(cls, data: Any) -> Any:
        for key in ("count", "duration_seconds"):
            if isinstance(data, dict) and key in data:
                raise ValueError(
                    f"{key} is not supported yet: it asks a media-generation model for several images or a "
                    "clip's length, which upstream lists for a later phase; this engine's agent nodes return "
                    "what the model produces (remove the key)"
                )
        return data


class ToolConfig(Strict):
    tool_name: str = Field(min_length=1)
    parameters: dict[str, Any] = Field(default_factory=dict)
    input_mapping: dict[str, Any] = Field(default_factory=dict)
    output_mapping: dict[str, str] = Field(default_factory=dict)


class ToolNode(_NodeBase):
    type: Literal["tool"]
    tool_config: ToolConfig
    timeout_ms: int | None = Field(default=None, ge=1)
    retry: Retry | None = None


class TransformNode(_NodeBase):
    type: Literal["transform"]
    transform: str = Field(min_length=1)
    expression_type: Literal["js"] = "js"
    output_schema: dict[str, Any] | None = None
    retry: Retry | None = None


class Branch(Strict):
    when: bool | int | float | str
    target_node: str


class ConditionNode(_NodeBase):
    type: Literal["condition"]
    expression: str = Field(min_length=1)
    expression_type: Literal["js"] = "js"
    branches: list[Branch] = Field(min_length=1)
    default: str | None = None
    retry: Retry | None = None


class ParallelNode(_NodeBase):
    type: Literal["parallel"]
    parallel_of: list[str] = Field(min_length=1)


class MergeNode(_NodeBase):
    type: Literal["merge"]
    merge_strategy: Literal["concat", "object_merge", "first", "custom"] = "concat"
    merge_fn: str | None = None
    retry: Retry | None = None

    @model_validator(mode="after")
    def _custom_needs_fn(self) -> MergeNode:
        if self.merge_strategy == "custom" and not self.merge_fn:
            raise ValueError("merge_strategy custom needs a merge_fn expression")
        if self.merge_strategy != "custom" and self.merge_fn:
            raise ValueError(
                f"merge_fn is only used with merge_strategy custom; {self.merge_strategy} merges by its own "
                "rule, so a merge_fn beside it would be ignored (upstream accepts and ignores it; set "
                "merge_strategy: custom to use it, or remove it)"
            )
        return self


class HumanGateNode(_NodeBase):
    type: Literal["human_gate"]
    gate_type: Literal["approval", "input", "review"] = "approval"
    assignee: str | None = None
    message_template: str | None = None
    timeout_ms: int | None = Field(default=None, ge=1)
    timeout_action: Literal["reject", "approve"] = "reject"


class OutputNode(_NodeBase):
    type: Literal["output"]
    output_format: Literal["text", "json", "markdown"] = "json"
    save_to: str | None = None

    @field_validator("save_to")
    @classmethod
    def _relative(cls, value: str | None) -> str | None:
        if value is None:
            return value
        if value.startswith(("/", "\\")):
            raise ValueError("save_to must be a relative path")
        if re.match(r"^[A-Za-z]:", value):
            # C:\x, C:/x and the drive-relative C:x alike: each names a place on a Windows drive.
            raise ValueError("save_to must be a relative path, without a drive prefix such as 'C:'")
        if any(part == ".." for part in re.split(r"[\\/]", value)):
            raise ValueError("save_to may not contain a '..' segment")
        stripped = re.sub(r"\{\{\s*run\.id\s*\}\}", "", value)
        if "{{" in stripped:
            raise ValueError("save_to interpolates only {{ run.id }}")
        return value


Node = Annotated[
    InputNode | AgentNode | ToolNode | TransformNode | ConditionNode | ParallelNode
    | MergeNode | HumanGateNode | OutputNode,
    Field(discriminator="type"),
]


class Edge(Strict):
    from_: str = Field(alias="from", min_length=1)
    to: str = Field(min_length=1)
    label: str | None = None
    condition: str | None = None

    @property
    def source(self) -> str:
        return self.from_.split(":", 1)[0]

    @property
    def handle(self) -> str | None:
        parts = self.from_.split(":", 1)
        return parts[1] if len(parts) == 2 else None


class Trigger(Strict):
    """How a run starts.  Only ``manual`` is honoured: nothing here watches files, keeps a schedule,
    listens for webhooks or serves MCP calls, so any other trigger is refused rather than left idle."""

    type: Literal["manual", "webhook", "schedule", "file_change", "mcp_call"] = "manual"
    webhook: dict[str, Any] | None = None
    schedule: str | None = None
    file_change: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _manual_only(self) -> Trigger:
        unfired = [self.type] if self.type != "manual" else []
        unfired += [k for k in ("webhook", "schedule", "file_change") if getattr(self, k) is not None and k not in unfired]
        if unfired:
            raise ValueError(
                f"trigger {', '.join(unfired)} is not supported: this engine starts a workflow only when asked "
                "(relavium run, or Run in the app); nothing here watches files, keeps a schedule, listens for "
                "webhooks or serves MCP calls, so the workflow would never start by it (remove trigger, or set "
                "type: manual)"
            )
        return self


class Budget(Strict):
    """A pre-egress cost cap (engine/workflow/budget.py); both fields required, as upstream's schema.

    A declared cap is positive: omit ``budget`` for none.  No other key is
    accepted, so no guardrail is written that the engine does not enforce.
    """

    max_cost_microcents: int = Field(gt=0)
    on_exceed: Literal["fail", "pause_for_approval", "warn"]


class WorkflowBody(Strict):
    id: str = Field(pattern=NODE_ID)
    name: str | None = None
    description: str | None = None
    version: str | None = None
    tags: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] | None = None
    trigger: Trigger | None = None
    inputs: list[InputDecl] = Field(default_factory=list)
    context: list[ContextEntry] = Field(default_factory=list)
    agents: list[AgentEntry] = Field(default_factory=list)
    tools: ToolsBlock | None = None
    # ``type: http`` tools every agent and tool node of this workflow may use.
    http_tools: list[HttpToolDecl] = Field(default_factory=list)
    # The workflow's own MCP servers (upstream's name, ``mcp_servers``), ``{name: entry}`` in
    # mcp.yaml's entry shape.  Kept raw: the engine may not import the host, so the surface
    # validates it with mcp.yaml's rules before building a host; a stdio one starts only with consent.
    mcp_servers: dict[str, Any] | None = None
    budget: Budget | None = None
    timeout_ms: int | None = Field(default=None, ge=1)
    max_parallel: int | None = Field(default=None, ge=1, le=256)
    nodes: list[Node] = Field(min_length=1)
    edges: list[Edge] = Field(default_factory=list)

    @field_validator("mcp_servers", mode="before")
    @classmethod
    def _mcp_list_form(cls, value: Any) -> Any:
        return mcp_servers_mapping(value)

    @field_validator("inputs")
    @classmethod
    def _default_templates_read_earlier_inputs(cls, value: list[InputDecl]) -> list[InputDecl]:
        from relavium_desktop.engine.workflow.inputs import default_template_problem

        for i, decl in enumerate(value):
            problem = default_template_problem(decl, [d.name for d in value[:i]])
            if problem is not None:
                raise ValueError(problem)
        return value


class WorkflowFile(Strict):
    schema_version: Literal["1.0"]
    workflow: WorkflowBody


AnyNode = (
    InputNode | AgentNode | ToolNode | TransformNode | ConditionNode | ParallelNode
    | MergeNode | HumanGateNode | OutputNode
)
