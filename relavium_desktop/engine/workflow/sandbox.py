"""The expression sandbox: ``condition`` / ``transform`` / ``merge_fn`` in QuickJS.

Expressions are JavaScript (as upstream) evaluated in a real embedded JS
engine, never Python ``eval``.  Each evaluation gets a fresh QuickJS context
(nothing leaks between evaluations; an out-of-memory context is discarded),
with a heap and stack limit and a wall-clock interrupt.  Before the
expression runs, every source of non-determinism or I/O the engine ships is
removed: ``Date`` (and the binding's clock hook), ``Math.random`` (``Math`` is
frozen), ``Promise``, ``Proxy``, ``Atomics``/``SharedArrayBuffer``.  No host
function is ever injected; the scope crosses in as JSON text and is parsed
and deep-frozen inside the VM, so nothing host-side is reachable.

Classification follows the upstream contract: a timeout (the engine's
``interrupted`` marker *and* the host deadline passed) is retryable; syntax,
runtime, memory, stack and result-shape errors are fatal.  Messages name the
node kind and the error class only, never the expression or a scope value.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any, Literal, Protocol

import quickjs

from relavium_desktop.engine.workflow.errors import SandboxError

ExpressionKind = Literal["condition", "transform", "merge_fn", "edge"]

TIME_LIMIT_S = 1.0
MEMORY_LIMIT = 16 * 1024 * 1024
STACK_LIMIT = 256 * 1024

_PRELUDE = """
"use strict";
(function () {
  const g = globalThis;
  for (const name of ["Date", "__date_clock", "Promise", "Proxy", "Atomics", "SharedArrayBuffer",
                      "WeakRef", "FinalizationRegistry", "Intl", "print", "console"]) {
    try { delete g[name]; } catch (e) {}
  }
  delete Math.random;
  Object.freeze(Math);
  const deepFreeze = (v) => {
    if (v !== null && typeof v === "object" && !Object.isFrozen(v)) {
      Object.freeze(v);
      for (const k of Object.keys(v)) deepFreeze(v[k]);
    }
    return v;
  };
  const scope = JSON.parse(g.__scope_json);
  delete g.__scope_json;
  for (const k of Object.keys(scope)) {
    Object.defineProperty(g, k, { value: deepFreeze(scope[k]), writable: false, configurable: false,
                                  enumerable: false });
  }
})();
"""

_SERIALIZE = """
(function (v) {
  const t = typeof v;
  if (t === "undefined") return "U";
  if (t === "function" || t === "symbol") return "F";
  if (t === "bigint") return "B";
  try { return "J" + JSON.stringify(v); } catch (e) { return "C"; }
})(globalThis.__result)
"""


class ExpressionSandbox(Protocol):
    """What the engine needs from a sandbox; swap implementations behind it."""

    async def evaluate(self, kind: ExpressionKind, source: str, scope: dict[str, Any]) -> Any: ...


def _classify(exc: Exception, deadline_passed: bool, kind: str, limit_s: float) -> SandboxError:
    text = str(exc)
    first = text.split("\n", 1)[0]
    name = first.split(":", 1)[0].strip() or "Error"
    if name == "InternalError" and "interrupted" in first and deadline_passed:
        return SandboxError("timeout", f"{kind} expression exceeded the {limit_s:g} s time limit")
    if name == "InternalError" and "out of memory" in first:
        return SandboxError("memory", f"{kind} expression exceeded the {MEMORY_LIMIT >> 20} MB memory limit")
    if name == "InternalError" and "stack overflow" in first:
        return SandboxError("stack", f"{kind} expression overflowed the stack limit")
    if name == "SyntaxError":
        return SandboxError("syntax", f"{kind} expression is not valid JavaScript (SyntaxError)")
    safe = name if name.isidentifier() and len(name) < 40 else "Error"
    return SandboxError("runtime", f"{kind} expression failed at run time ({safe})")


class QuickJsSandbox:
    """The default sandbox: one fresh QuickJS context per evaluation, in a worker thread."""

    def __init__(
        self,
        *,
        time_limit_s: float = TIME_LIMIT_S,
        memory_limit: int = MEMORY_LIMIT,
        stack_limit: int = STACK_LIMIT,
        in_thread: bool = True,
    ) -> None:
        self.time_limit_s = time_limit_s
        self.memory_limit = memory_limit
        self.stack_limit = stack_limit
        self.in_thread = in_thread

    async def evaluate(self, kind: ExpressionKind, source: str, scope: dict[str, Any]) -> Any:
        try:
            scope_json = json.dumps(scope, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError):
            raise SandboxError("scope", f"{kind} expression scope is not JSON-serializable") from None
        if self.in_thread:
            return await asyncio.to_thread(self._evaluate_sync, kind, source, scope_json)
        return self._evaluate_sync(kind, source, scope_json)

    def _evaluate_sync(self, kind: str, source: str, scope_json: str) -> Any:
        ctx = quickjs.Context()
        ctx.set_memory_limit(self.memory_limit)
        ctx.set_max_stack_size(self.stack_limit)
        ctx.set("__scope_json", scope_json)
        ctx.eval(_PRELUDE)
        ctx.set_time_limit(self.time_limit_s)
        started = time.perf_counter()
        try:
            try:
                # As an expression first (so `{ a: 1 }` is an object, as upstream);
                # a new line before ")" keeps a trailing // comment from eating it.
                ctx.eval(f"globalThis.__result = (\n{source}\n);")
            except quickjs.JSException as exc:
                if not str(exc).startswith("SyntaxError"):
                    raise
                # Not an expression: run it as a script and take its completion value.
                ctx.set("__source", source)
                ctx.eval("globalThis.__result = (0, eval)(globalThis.__source);")
            tagged = ctx.eval(_SERIALIZE)
        except quickjs.JSException as exc:
            elapsed = time.perf_counter() - started
            raise _classify(exc, elapsed >= self.time_limit_s * 0.95, kind, self.time_limit_s) from None
        return _decode(kind, tagged)


def _decode(kind: str, tagged: Any) -> Any:
    if not isinstance(tagged, str) or not tagged:
        raise SandboxError("non_serializable", f"{kind} expression result could not be read")
    tag, body = tagged[0], tagged[1:]
    if tag == "U":
        if kind == "edge":
            return None
        raise SandboxError("non_serializable", f"{kind} expression returned undefined")
    if tag in "FBC":
        raise SandboxError("non_serializable", f"{kind} expression returned a non-JSON value")
    value = json.loads(body)
    if kind == "condition" and (value is None or isinstance(value, list | dict)):
        raise SandboxError("result_type", "condition expression must return a boolean, string or number")
    return value
