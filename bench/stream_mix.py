"""A realistic streamed answer for the streaming benches: prose, lists, a table, a long code fence.

``mix_tokens`` cuts it into model-sized tokens (a word with its leading
space, or a run of punctuation/newlines), about four characters each, so a
bench at 1,000 tokens/s streams roughly what a fast model sends.
"""

from __future__ import annotations

import re

_PROSE = (
    "The pricing module applies a **discount** to annual plans when the customer has paid on time "
    "for twelve months; the rule lives in `src/pricing.py` and is checked by the [billing guide]"
    "(https://example.com/billing). It reads the plan, the *start date* and the invoice history, "
    "then decides.\n"
)
_LIST = (
    "- the plan must be **annual**, not monthly\n"
    "- every invoice of the last year is `paid`\n"
    "- the account is not *suspended*\n"
    "1. read the history\n"
    "2. apply the rule\n"
    "3. write the audit line\n"
)
_TABLE_HEAD = "| plan | monthly | annual | discount |\n|------|--------:|-------:|---------:|\n"
_TABLE_ROW = "| plan {n} | {m} | {a} | {d}% |\n"
_CODE_LINE = (
    "    total_{n} = sum(invoice.amount for invoice in history if invoice.paid and invoice.year == {n})\n"
)


def mix_text(sections: int = 4) -> str:
    """A long answer: SECTIONS repetitions of a heading, prose, a list, a 12-row table and a 60-line fence."""
    parts: list[str] = []
    for s in range(sections):
        parts.append(f"## Part {s + 1}\n\n")
        parts.append(_PROSE * 3 + "\n")
        parts.append(_LIST + "\n")
        rows = "".join(_TABLE_ROW.format(n=n, m=10 + n, a=100 + 10 * n, d=n % 20) for n in range(12))
        parts.append(_TABLE_HEAD + rows + "\n")
        code = "".join(_CODE_LINE.format(n=n) for n in range(60))
        parts.append(f"```python\ndef annual_totals(history):\n{code}    return total_0\n```\n\n")
        parts.append(_PROSE + "\n")
    return "".join(parts)


_TOKEN = re.compile(r"[ ]?[A-Za-z0-9_]+|\s+|[^\sA-Za-z0-9_]{1,3}")


def mix_tokens(count: int) -> list[str]:
    """``count`` tokens of the mix (the mix repeats when it is shorter)."""
    out: list[str] = []
    while len(out) < count:
        out.extend(_TOKEN.findall(mix_text()))
    return out[:count]
