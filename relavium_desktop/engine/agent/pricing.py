"""Known per-model prices, so usage becomes cost when the price is known.

USD per million tokens (input, output).  Unknown models record tokens with
no cost rather than a guessed one.
"""

from __future__ import annotations

PRICES_PER_MTOK: dict[str, tuple[float, float]] = {
    "claude-opus-4": (15.0, 75.0),
    "claude-sonnet-4": (3.0, 15.0),
    "claude-3-5-haiku": (0.8, 4.0),
    "gpt-4o-mini": (0.15, 0.6),
    "gpt-4o": (2.5, 10.0),
    "gpt-4.1-mini": (0.4, 1.6),
    "gpt-4.1": (2.0, 8.0),
    "gemini-2.5-pro": (1.25, 10.0),
    "gemini-2.5-flash": (0.3, 2.5),
}


def price_for(model: str) -> tuple[float, float] | None:
    """Exact match first, then the longest known prefix (dated model ids)."""
    if model in PRICES_PER_MTOK:
        return PRICES_PER_MTOK[model]
    best = max((k for k in PRICES_PER_MTOK if model.startswith(k)), key=len, default=None)
    return PRICES_PER_MTOK[best] if best else None


def cost_usd(model: str, input_tokens: int, output_tokens: int) -> float | None:
    price = price_for(model)
    if price is None:
        return None
    return round((input_tokens * price[0] + output_tokens * price[1]) / 1_000_000, 8)


USD_TO_MICROCENTS = 100_000_000  # 1 USD = 100 cents = 10^8 micro-cents


def usd_to_microcents(usd: float) -> int:
    """The run events' one money unit: integer micro-cents."""
    return round(usd * USD_TO_MICROCENTS)
