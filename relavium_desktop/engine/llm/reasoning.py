"""The one reasoning-effort vocabulary and its per-provider controls.

An agent says how hard its model should think (``reasoning_effort: off | low
| medium | high | max``, upstream's tier); each provider has its own control
and this module is the one place that maps the tier onto it, so the three
wire clients cannot drift:

- OpenAI: the ``reasoning_effort`` field (``off`` is its lowest tier,
  ``minimal``; ``max`` its highest, ``high``), with the output cap sent as
  ``max_completion_tokens``, the only name its reasoning models accept;
- Anthropic: extended thinking, ``thinking: {type: enabled, budget_tokens}``;
  the budget stays below the request's ``max_tokens`` and at or above
  Anthropic's 1,024-token floor (a cap too small for that sends no thinking);
- Gemini: ``generationConfig.thinkingConfig.thinkingBudget`` (``off`` is 0,
  except on a Pro model, which cannot stop thinking: its lowest, 128).
"""

from __future__ import annotations

from typing import Literal

ReasoningEffort = Literal["off", "low", "medium", "high", "max"]
REASONING_EFFORTS: tuple[str, ...] = ("off", "low", "medium", "high", "max")

_OPENAI = {"off": "minimal", "low": "low", "medium": "medium", "high": "high", "max": "high"}
# Thinking-token budgets per tier (Anthropic's floor is 1,024; Gemini 2.5's ceiling is 24,576).
_BUDGET = {"low": 1_024, "medium": 4_096, "high": 16_384, "max": 24_576}
ANTHROPIC_MIN_BUDGET = 1_024


def openai_effort(effort: str) -> str:
    """OpenAI's ``reasoning_effort`` value for the tier."""
    return _OPENAI[effort]


def thinking_budget(effort: str) -> int:
    """The token budget of the tier (``off`` is 0)."""
    return _BUDGET.get(effort, 0)


GEMINI_PRO_MIN_BUDGET = 128


def gemini_thinking_budget(effort: str, model: str) -> int:
    """Gemini's ``thinkingBudget`` for the tier on ``model``."""
    budget = thinking_budget(effort)
    if budget == 0 and "-pro" in model.lower():
        return GEMINI_PRO_MIN_BUDGET  # a Pro model refuses 0: thinking cannot be turned off there
    return budget


def anthropic_thinking(effort: str, max_tokens: int | None, default_max: int) -> tuple[dict[str, object] | None, int]:
    """(``thinking`` block or None, the request's ``max_tokens``).

    Without a ``max_tokens`` of the author's the answer keeps its usual room
    on top of the budget; an explicit cap is a cost guard and is kept, the
    budget shrinking to fit below it.
    """
    budget = thinking_budget(effort)
    if budget == 0:
        return None, max_tokens or default_max
    if max_tokens is None:
        return {"type": "enabled", "budget_tokens": budget}, default_max + budget
    budget = min(budget, max_tokens - 1)
    if budget < ANTHROPIC_MIN_BUDGET:
        return None, max_tokens
    return {"type": "enabled", "budget_tokens": budget}, max_tokens
