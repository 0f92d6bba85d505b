"""The closed error taxonomy every surface (events, CLI, UI) speaks.

Errors are typed so callers branch on a discriminant instead of parsing
messages, and each carries a JSON form so the CLI and the event stream emit
exactly the same shape.  Messages must stay secret-free: they name a tool id,
a field or a rule, never an argument value, a resolved path or a host stack.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from relavium_desktop.engine.events import ErrorInfo
from relavium_desktop.engine.tools.masking import mask_text


class ErrorCode(StrEnum):
    UNKNOWN_TOOL = "unknown_tool"
    INVALID_ARGS = "invalid_args"
    TOOL_DENIED = "tool_denied"
    TOOL_UNAVAILABLE = "tool_unavailable"
    TOOL_FAILED = "tool_failed"
    CANCELLED = "cancelled"


class DenyReason(StrEnum):
    NOT_GRANTED = "not_granted"
    PROVIDER_EXECUTED = "provider_executed"
    COMMAND_NOT_ALLOWED = "command_not_allowed"
    COMMANDS_DISABLED = "commands_disabled"
    DOMAIN_NOT_ALLOWED = "domain_not_allowed"
    EGRESS_DISABLED = "egress_disabled"
    HTTPS_REQUIRED = "https_required"
    SSRF_BLOCKED = "ssrf_blocked"
    OUTSIDE_SCOPE = "outside_scope"
    PROTECTED_PATH = "protected_path"
    UNC_PATH = "unc_path"
    GATE_REQUIRED = "gate_required"
    USER_REJECTED = "user_rejected"
    NO_APPROVAL_HOOK = "no_approval_hook"
    MEDIA_SCOPE_DENIED = "media_scope_denied"
    ENV_NOT_ALLOWED = "env_not_allowed"


class InvalidReason(StrEnum):
    TOO_LARGE = "too_large"
    SCHEMA = "schema"


# Denials the model may act on (pick another path / handle) rather than fatal ones.
RECOVERABLE_DENIALS: frozenset[str] = frozenset(
    {DenyReason.OUTSIDE_SCOPE, DenyReason.MEDIA_SCOPE_DENIED}
)


class ToolError(Exception):
    """Base of every tool-dispatch failure; ``code`` is the closed taxonomy code."""

    code: ErrorCode = ErrorCode.TOOL_FAILED

    def __init__(self, message: str, *, reason: str | None = None) -> None:
        # Masked at birth: the message may quote what went wrong (a server's
        # error text, an id the caller typed), and it travels to the model,
        # the events, the CLI and the history from here.
        message = mask_text(message)
        super().__init__(message)
        self.message = message
        self.reason = reason

    @property
    def retryable(self) -> bool:
        return self.code is ErrorCode.TOOL_FAILED

    def info(self) -> ErrorInfo:
        return ErrorInfo(code=str(self.code), reason=self.reason, message=self.message)

    def to_json(self) -> dict[str, Any]:
        return self.info().to_wire()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!s}, reason={self.reason!r}, message={self.message!r})"


class UnknownToolError(ToolError):
    code = ErrorCode.UNKNOWN_TOOL


class InvalidArgsError(ToolError):
    code = ErrorCode.INVALID_ARGS

    def __init__(self, message: str, *, reason: str = InvalidReason.SCHEMA) -> None:
        super().__init__(message, reason=reason)


class ToolDeniedError(ToolError):
    code = ErrorCode.TOOL_DENIED

    def __init__(self, message: str, *, reason: DenyReason | str) -> None:
        super().__init__(message, reason=str(reason))


class ToolUnavailableError(ToolError):
    code = ErrorCode.TOOL_UNAVAILABLE


class ToolFailedError(ToolError):
    """The host call raised a non-policy error (I/O, timeout, exit trouble)."""

    code = ErrorCode.TOOL_FAILED


class ToolCancelledError(ToolError):
    code = ErrorCode.CANCELLED

    def __init__(self, message: str = "cancelled by the user or the run") -> None:
        super().__init__(message)
