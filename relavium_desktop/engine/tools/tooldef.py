"""The shapes a registered tool and one dispatch are made of.

A ``ToolDef`` carries an executable validator (its pydantic args model), the
names of config-only fields (pinned by the workflow author, never visible to
a model), its policy class (which guardrails and approvals apply) and a pure
``dispatch`` that performs its effect only through the injected host.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict

from relavium_desktop.engine.events import Emit
from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.jsontypes import JsonDict
from relavium_desktop.engine.tools.command_policy import validate_command_entries
from relavium_desktop.engine.tools.domain_policy import validate_domain_entry
from relavium_desktop.engine.tools.env_policy import validate_allowed_env

if TYPE_CHECKING:
    from relavium_desktop.engine.tools.media_turn import MediaTurn

ToolSource = Literal["builtin", "mcp", "plugin", "http"]
EgressKind = Literal["http", "search", "mcp"]
FsScopeTier = Literal["sandboxed", "project", "full"]
# How the OS confines a process an agent starts (run_command, the git tools, a stdio MCP
# server): ``strict`` writes only to the workspace and its own temporary folder and has no
# network; ``network`` adds TCP; ``off`` runs it with all of the user's rights, so it is only
# ever an explicit choice, and every surface says so when it applies.
SandboxMode = Literal["strict", "network", "off"]
# Strictest first: combining two blocks keeps the earliest mode either names.
SANDBOX_MODES: tuple[SandboxMode, ...] = ("strict", "network", "off")


def parse_sandbox_mode(value: Any, *, field: str = "sandbox") -> SandboxMode:
    """``value`` as a sandbox mode, or a ValueError naming the field and the three choices."""
    for mode in SANDBOX_MODES:
        if value == mode:
            return mode
    raise ValueError(
        f"{field} must be one of strict, network or off (off runs the process unconfined, "
        "with all of your rights: choose it only on purpose)"
    )


def strictest_sandbox(*modes: SandboxMode) -> SandboxMode:
    """The strictest of ``modes`` (``strict`` when none): where two policies meet, neither can loosen the other."""
    return min(modes, key=SANDBOX_MODES.index, default="strict")


class ActionClass(StrEnum):
    """Governed action classes an approval regime asks about."""

    READ = "read"
    FS_WRITE = "fs_write"
    PROCESS = "process"
    EGRESS = "egress"
    OS = "os"


@dataclass(frozen=True, slots=True)
class PolicyClass:
    fs_scoped: bool = False
    fs_write: bool = False
    spawns_process: bool = False
    egress: EgressKind | None = None
    os: bool = False
    requires_gate_approval: bool = False

    @property
    def action_class(self) -> ActionClass:
        if self.fs_write:
            return ActionClass.FS_WRITE
        if self.spawns_process:
            return ActionClass.PROCESS
        if self.egress is not None:
            return ActionClass.EGRESS
        if self.os:
            return ActionClass.OS
        return ActionClass.READ

    @property
    def governed(self) -> bool:
        return self.action_class is not ActionClass.READ

    def to_json(self) -> JsonDict:
        return {
            "fsScoped": self.fs_scoped,
            "fsWrite": self.fs_write,
            "spawnsProcess": self.spawns_process,
            "egress": self.egress,
            "os": self.os,
            "requiresGateApproval": self.requires_gate_approval,
            "actionClass": str(self.action_class),
        }


@dataclass(frozen=True, slots=True)
class PolicyTarget:
    """What the generic guardrails check: an argv, a URL or a path."""

    argv: tuple[str, ...] | None = None
    url: str | None = None
    path: str | None = None

    def preview(self) -> str:
        if self.argv is not None:
            return " ".join(self.argv)
        return self.url or self.path or ""


@dataclass(frozen=True, slots=True)
class ToolPolicy:
    """The workflow's ``spec.tools`` block; ``None`` lists mean disabled."""

    allowed_commands: tuple[str, ...] | None = None
    allowed_command_globs: tuple[str, ...] | None = None
    allowed_domains: tuple[str, ...] | None = None
    # Harmless environment variable names a declared ``env`` may use beyond the inert set
    # (env_policy); names in a hijack family are refused here and at every call.
    allowed_env: tuple[str, ...] | None = None
    # The OS sandbox run_command and the git tools run in; strict unless the block says otherwise.
    sandbox: SandboxMode = "strict"

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> ToolPolicy:
        data = data or {}

        def seq(key: str) -> tuple[str, ...] | None:
            value = data.get(key)
            if value is None:
                return None
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ValueError(f"policy field {key!r} must be a list of strings")
            return tuple(value)

        unknown = set(data) - {
            "allowedCommands",
            "allowedCommandGlobs",
            "allowedDomains",
            "allowedEnv",
            "sandbox",
        }
        if unknown:
            raise ValueError(f"unknown policy field(s): {', '.join(sorted(unknown))}")
        sandbox = (
            parse_sandbox_mode(data["sandbox"], field="policy field 'sandbox'")
            if "sandbox" in data
            else "strict"
        )
        policy = cls(
            seq("allowedCommands"),
            seq("allowedCommandGlobs"),
            seq("allowedDomains"),
            seq("allowedEnv"),
            sandbox,
        )
        policy.validate()
        return policy

    def validate(self) -> None:
        """ValueError naming the first entry the engine refuses (the one rule for every surface)."""
        validate_command_entries(self.allowed_commands or ())
        validate_command_entries(self.allowed_command_globs or (), field="allowedCommandGlobs")
        for entry in self.allowed_domains or ():
            validate_domain_entry(entry)
        validate_allowed_env(self.allowed_env or ())
        parse_sandbox_mode(self.sandbox, field="policy field 'sandbox'")

    def combined(self, other: ToolPolicy) -> ToolPolicy:
        """This policy with ``other``'s sandbox folded in: the strictest of the two wins.

        The allowlists stay this policy's own (they are narrowed elsewhere, per node);
        only the sandbox is a floor that a second block may raise but never lower.
        """
        return replace(self, sandbox=strictest_sandbox(self.sandbox, other.sandbox))


@dataclass(frozen=True, slots=True)
class ToolCall:
    name: str
    args: Mapping[str, Any] = field(default_factory=dict)
    call_id: str | None = None
    # Set when the provider already executed the call server-side (e.g. a
    # hosted web search); such calls must never reach a local host.
    provider_executed: bool = False


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """The secret-free question put to the user (or the host's standing grants)."""

    tool_id: str
    action_class: ActionClass
    target: str
    masked_args: JsonDict
    node_id: str
    protected_path: bool = False
    # A file write's target path as the tool was given it (masked like ``target``),
    # so a surface can tell a write inside the project from one elsewhere
    # (the engine cannot resolve paths; the host's predicate can).  None
    # for every other action.
    path: str | None = None


@dataclass(frozen=True, slots=True)
class ApprovalDecision:
    approved: bool
    scope: Literal["once", "session", "project"] = "once"
    reason: str | None = None


ApprovalHook = Callable[[ApprovalRequest], Awaitable[ApprovalDecision]]


@dataclass(frozen=True, slots=True)
class ApprovalRegime:
    """Active when a human (chat) must confirm governed actions.

    ``auto_approve`` lists action classes the mode lets through without
    asking; everything else governed goes to ``hook``.  No hook while active
    fails closed (``no_approval_hook``).  ``deny_message(tool_id, action)``
    words a ``deny`` refusal (which mode refused, what would allow it); the
    reason stays ``user_rejected`` either way.
    """

    hook: ApprovalHook | None = None
    auto_approve: frozenset[ActionClass] = frozenset()
    deny: frozenset[ActionClass] = frozenset()
    deny_message: Callable[[str, ActionClass], str] | None = None


@dataclass(frozen=True, slots=True)
class NodeToolConfig:
    """A node's ``tool_config`` / ``agent_config`` for one tool."""

    parameters: Mapping[str, Any] = field(default_factory=dict)
    input_mapping: Mapping[str, Any] = field(default_factory=dict)
    output_mapping: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ResultLimits:
    max_bytes: int = 51_200
    max_lines: int = 2_000


EventSink = Emit
InvokeAgent = Callable[[str, Any], Awaitable[Any]]


@dataclass(frozen=True, slots=True)
class ToolDispatchContext:
    run_id: str
    node_id: str
    granted_tool_ids: frozenset[str]
    config: NodeToolConfig = field(default_factory=NodeToolConfig)
    policy: ToolPolicy = field(default_factory=ToolPolicy)
    fs_scope: FsScopeTier = "project"
    gate_approved: bool = False
    # When not approved: why no person's gate approval vouches for this call
    # (named in the gate_required refusal); None keeps the generic wording.
    gate_refusal: str | None = None
    approval: ApprovalRegime | None = None
    emit: EventSink | None = None
    invoke_agent: InvokeAgent | None = None
    media_scope: str | None = None
    limits: ResultLimits | None = None
    # Per-tool configs of an agent (its ``tool_config``) or of chat (Settings ->
    # Chat tools), keyed by tool id.  A tool node has one tool and uses ``config``.
    tool_configs: Mapping[str, NodeToolConfig] = field(default_factory=dict)
    # Set by the agent loop for one model response: what read_media attaches, and
    # what the answering model accepts.  None outside an agent loop (a tool node).
    media_turn: MediaTurn | None = None

    def config_for(self, tool_id: str) -> NodeToolConfig:
        """The config pinned for ``tool_id``: an agent's per-tool entry, else the node's own."""
        return self.tool_configs.get(tool_id, self.config)


class DispatchFn(Protocol):
    def __call__(self, args: Any, host: ToolHost, ctx: ToolDispatchContext) -> Awaitable[Any]: ...


@dataclass(frozen=True, slots=True)
class ByteBound:
    """Inclusive UTF-8 byte limit of one string field."""

    max_bytes: int
    non_empty: bool = False


@dataclass(frozen=True, slots=True)
class VectorBound:
    """Bounds of a list-of-strings field: count, per entry and total bytes."""

    max_items: int
    max_item_bytes: int
    max_total_bytes: int


@dataclass(frozen=True, slots=True, eq=False)
class ToolDef:
    id: str
    description: str
    args_model: type[BaseModel]
    dispatch: DispatchFn
    source: ToolSource = "builtin"
    config_only: frozenset[str] = frozenset()
    policy: PolicyClass = field(default_factory=PolicyClass)
    policy_target: Callable[[Any], PolicyTarget] | None = None
    # Tool-specific guardrails beyond the generic ones (e.g. declared env names).
    guard: Callable[[Any, ToolDispatchContext], None] | None = None
    byte_bounds: Mapping[str, ByteBound] = field(default_factory=dict)
    vector_bounds: Mapping[str, VectorBound] = field(default_factory=dict)
    # A tool whose arguments are described by someone else's JSON Schema (an MCP
    # server's ``inputSchema``) rather than a pydantic model: the registry
    # validates the effective arguments against it and hands ``dispatch`` the
    # plain dict.  ``args_model`` is then unused (keep it ``RawArgs``).
    input_schema: Mapping[str, Any] | None = None


class RawArgs(BaseModel):
    """Placeholder ``args_model`` of a tool validated by ``input_schema``."""

    model_config = ConfigDict(extra="allow", frozen=True)
