"""A ``budget:*`` event in a person's words, for the CLI's text mode and the app's run story alike.

The events carry integer micro-cents and field names; a person reads "spent
$0.000045 of $0.00005".  One wording for both surfaces, so the terminal and
the History tab say the same thing about the same pause.  No codes or ids in
the words: the node is named by its id as every other run line names it; a
surface adds what its person can do next (the CLI: the command to answer).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from relavium_desktop.engine.agent.pricing import USD_TO_MICROCENTS

BUDGET_EVENTS = frozenset({"budget:warning", "budget:paused", "budget:exceeded"})


def money(microcents: int) -> str:
    """Micro-cents as dollars with two significant digits kept: 4,500 is "$0.000045", 1,200,000 "$0.012"."""
    value = microcents / USD_TO_MICROCENTS
    if value <= 0:
        return "$0.00"
    if value >= 1:
        return f"${value:,.2f}"
    decimals = min(8, max(2, 1 - math.floor(math.log10(value))))
    text = f"{value:.{decimals}f}".rstrip("0")
    whole, _, frac = text.partition(".")
    return f"${whole}.{frac.ljust(2, '0')}"


def _int(event: Mapping[str, Any], key: str) -> int:
    value = event.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def budget_words(event: Mapping[str, Any]) -> str | None:
    """What a ``budget:*`` event says, after "budget: "; None for any other event."""
    kind = event.get("type")
    if kind not in BUDGET_EVENTS:
        return None
    spent = f"spent {money(_int(event, 'spentMicrocents'))} of {money(_int(event, 'limitMicrocents'))}"
    node = event.get("nodeId")
    whose = f"the next request of {node}" if node else "the next request"
    if kind == "budget:warning":
        pct = event.get("thresholdPct")
        share = f" ({pct:g}% of the limit)" if isinstance(pct, int | float) else ""
        return f"{spent}{share} — going on, as the workflow only asks for a warning"
    if kind == "budget:paused":
        return f"{spent} — {whose} could pass the limit, so the run is paused for approval"
    estimate = _int(event, "estimatedMicrocents")
    upto = f" (up to {money(estimate)})" if estimate else ""
    return f"{spent} — {whose}{upto} could pass the limit, so it was not sent and the run stops"
