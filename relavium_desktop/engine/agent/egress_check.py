"""A check that runs before every LLM request leaves: the pre-egress seam of a cost cap.

The agent loop calls a :data:`PreEgress` hook with the route, the exact
request about to be sent and what this loop has spent so far, before each
request -- the first of a turn, every retry and every fallback entry.  The
hook may raise :class:`EgressRefused` to stop the request; the loop then
fails with the refusal's code, having sent nothing.  A workflow's ``budget``
(engine/workflow/budget.py) is the hook's one user today.

The estimate is the worst case of the next request: its input (roughly four
characters a token, over the system prompt, the history and the tool
schemas) plus its whole ``max_tokens`` of output, priced at the model's known
rate.  It errs high, so a cap stops a little early rather than overshoot.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from relavium_desktop.engine.agent.pricing import cost_usd, usd_to_microcents
from relavium_desktop.engine.llm.messages import TextPart, ToolCallPart, ToolResultPart

if TYPE_CHECKING:
    from relavium_desktop.engine.agent.routing import Route
    from relavium_desktop.engine.llm.provider import ChatRequest

# Output tokens assumed for a request that sets no max_tokens (upstream's
# [defaults].max_tokens_estimate): a per-call default, not the model's
# absolute maximum, which would trip a small cap on the first turn.
DEFAULT_MAX_TOKENS_ESTIMATE = 1024
_CHARS_PER_TOKEN = 4


class EgressRefused(Exception):
    """A pre-egress check refused the next request; nothing was sent."""

    def __init__(self, code: str, message: str, *, reason: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason


# (route, request, micro-cents this loop already spent) -> None, or raise EgressRefused.
PreEgress = Callable[["Route", "ChatRequest", int], None]


def input_tokens_estimate(request: ChatRequest) -> int:
    """Roughly how many input tokens ``request`` carries (four characters a token, rounded up)."""
    chars = len(request.system or "")
    for message in request.messages:
        for part in message.parts:
            if isinstance(part, TextPart):
                chars += len(part.text)
            elif isinstance(part, ToolCallPart):
                chars += len(part.name) + len(json.dumps(part.args, ensure_ascii=False))
            elif isinstance(part, ToolResultPart):
                chars += len(part.content)
    for tool in request.tools:
        chars += len(tool.name) + len(tool.description) + len(json.dumps(tool.parameters, ensure_ascii=False))
    return math.ceil(chars / _CHARS_PER_TOKEN)


def worst_case_microcents(request: ChatRequest) -> int | None:
    """The most ``request`` may cost (its input plus all of ``max_tokens``); None when its model has no price."""
    output = request.max_tokens or DEFAULT_MAX_TOKENS_ESTIMATE
    usd = cost_usd(request.model, input_tokens_estimate(request), output)
    return None if usd is None else usd_to_microcents(usd)
