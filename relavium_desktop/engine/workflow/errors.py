"""Errors of loading and running a workflow.

A load error always names ``file:line:column`` so an author can jump to the
offending key; a node error carries the closed run-event error code so the
CLI, the UI and the history all branch on the same discriminant.
"""

from __future__ import annotations

from dataclasses import dataclass

from relavium_desktop.engine.events import ErrorInfo
from relavium_desktop.engine.jsontypes import JsonDict


@dataclass(frozen=True, slots=True)
class Issue:
    message: str
    line: int | None = None  # 1-based
    column: int | None = None  # 1-based

    def render(self, filename: str) -> str:
        if self.line is None:
            return f"{filename}: {self.message}"
        return f"{filename}:{self.line}:{self.column or 1}: {self.message}"


class WorkflowError(Exception):
    """An invalid workflow file (CLI exit 2): never starts a run."""

    def __init__(self, filename: str, issues: list[Issue]) -> None:
        self.filename = filename
        self.issues = issues
        super().__init__("\n".join(i.render(filename) for i in issues))


class InputError(Exception):
    """Run inputs (or eager context) that fail their declaration (CLI exit 2)."""


class NodeError(Exception):
    """One node's failure, in the closed run-event ErrorCode vocabulary."""

    def __init__(
        self, code: str, message: str, *, retryable: bool = False, reason: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retryable = retryable
        self.reason = reason
        # A provider's Retry-After: the node's own retry never waits less.
        self.retry_after = retry_after
        self.attempt = 1  # the attempt that failed, set by the scheduler

    def info(self) -> ErrorInfo:
        return ErrorInfo(code=self.code, reason=self.reason, message=self.message, retryable=self.retryable,
                         retry_after=self.retry_after)

    def to_json(self) -> JsonDict:
        return self.info().to_wire()


class SandboxError(NodeError):
    """An expression failed in the sandbox; only a genuine timeout is retryable."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__("sandbox_error", message, retryable=reason == "timeout", reason=reason)


class TemplateError(NodeError):
    """A ``{{ }}`` template that cannot be resolved (unknown reference, bad filter)."""

    def __init__(self, message: str, *, reason: str = "unresolved_reference") -> None:
        super().__init__("validation", message, reason=reason)
