"""The QuickJS expression sandbox: determinism, isolation, limits, error classes."""

from __future__ import annotations

from typing import Any

import pytest

from relavium_desktop.engine.workflow.errors import SandboxError
from relavium_desktop.engine.workflow.sandbox import QuickJsSandbox

SCOPE: dict[str, Any] = {"inputs": {"n": 3}, "ctx": {"k": "v"}, "run": {"id": "r1", "outputs": {"a": {"x": [1, 2]}}}}


async def ev(source: str, kind: str = "transform", sandbox: QuickJsSandbox | None = None) -> Any:
    return await (sandbox or QuickJsSandbox()).evaluate(kind, source, SCOPE)  # type: ignore[arg-type]


async def fails(source: str, kind: str = "transform", **kw: Any) -> SandboxError:
    with pytest.raises(SandboxError) as info:
        await ev(source, kind, QuickJsSandbox(**kw) if kw else None)
    return info.value


async def test_reads_the_scope_and_returns_json() -> None:
    assert await ev('{ files: run.outputs["a"].x.map(i => i * 2), k: ctx.k }') == {"files": [2, 4], "k": "v"}
    assert await ev("inputs.n >= 10", "condition") is False


@pytest.mark.parametrize("probe", ["typeof Date", "typeof Math.random", "typeof Promise", "typeof Proxy",
                                   "typeof __date_clock", "typeof setTimeout", "typeof require",
                                   "typeof fetch", "typeof Atomics", "typeof print"])
async def test_no_clock_randomness_async_or_io_is_reachable(probe: str) -> None:
    assert await ev(probe) == "undefined"


async def test_escape_attempts_stay_inside() -> None:
    # Re-acquiring Function through a constructor chain reaches no Date either.
    err = await fails('(function(){}).constructor("return Date")()')
    assert (err.reason, err.retryable) == ("runtime", False)
    # Math is frozen: random cannot be put back.
    assert await ev("(() => { try { Math.random = () => 4; } catch (e) {} return typeof Math.random })()") \
        == "undefined"
    err = await fails("Math.random()")
    assert err.reason == "runtime"


async def test_scope_is_frozen_and_not_shared_between_evaluations() -> None:
    sandbox = QuickJsSandbox()
    assert await sandbox.evaluate("transform", "(inputs.n = 99, inputs.n)", SCOPE) == 3
    assert await sandbox.evaluate("transform", "(globalThis.leak = 1, 1)", SCOPE) == 1
    assert await sandbox.evaluate("transform", "typeof leak", SCOPE) == "undefined"
    assert SCOPE["inputs"]["n"] == 3


async def test_infinite_loop_is_a_retryable_timeout() -> None:
    err = await fails("while(true){}", time_limit_s=0.2)
    assert (err.code, err.reason, err.retryable) == ("sandbox_error", "timeout", True)


async def test_a_thrown_interrupted_error_is_not_a_timeout() -> None:
    err = await fails('(() => { throw new Error("InternalError: interrupted") })()')
    assert (err.reason, err.retryable) == ("runtime", False)


async def test_syntax_runtime_memory_stack_and_result_errors_are_fatal() -> None:
    cases = {"1 +": "syntax", "null.boom": "runtime", "new Array(1e9).fill(1).length": "memory",
             "(function f(){ return f() })()": "stack", "undefined": "non_serializable",
             "10n": "non_serializable", "x => x": "non_serializable"}
    for source, reason in cases.items():
        err = await fails(source)
        assert (err.reason, err.retryable) == (reason, False), source
    err = await fails("({a: 1})", "condition")
    assert err.reason == "result_type"


async def test_messages_never_echo_the_expression_or_values() -> None:
    err = await fails('null.secret_field_name_xyz')
    assert "secret_field_name_xyz" not in err.message
    assert err.message == "transform expression failed at run time (TypeError)"
