"""The spoofing inputs every surface is tested with, and the check that nothing raw got through.

Each input is a target a model could put in a tool call; each surface must
show none of its control, bidi or invisible characters raw, and show each
one's marker (``⟦U+202E RLO⟧``), so what a person reads is what is asked.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

_PREFIX = "folder/" * 41  # 287 characters of path before the name


@dataclass(frozen=True)
class Spoof:
    raw: str
    markers: tuple[str, ...] = ()  # every one must be visible
    visible: tuple[str, ...] = ()  # other text that must be visible (the end of a long path, a warning)


SPOOFS: dict[str, Spoof] = {
    "ansi-erase-cr": Spoof("safe\x1b[2K\rWrite notes.md.txt", ("⟦\\x1b⟧", "⟦\\r⟧"), ("notes.md.txt",)),
    "rtl-override": Spoof("report\u202egpj.sh", ("⟦U+202E RLO⟧",), ("gpj.sh",)),
    "isolates": Spoof("notes\u2067\u2066txt.sh\u2069\u2069.md", ("⟦U+2067 RLI⟧", "⟦U+2066 LRI⟧", "⟦U+2069 PDI⟧")),
    "zero-width": Spoof("pay\u200dpal\u200b.md", ("⟦U+200D ZWJ⟧", "⟦U+200B ZWSP⟧")),
    "bom": Spoof("\ufeffnotes.md", ("⟦U+FEFF BOM⟧",)),
    "tags": Spoof("notes\U000e0069\U000e0067.md", ("⟦U+E0069 TAG⟧", "⟦U+E0067 TAG⟧")),
    "long-sh": Spoof(_PREFIX + "x" * (300 - len(_PREFIX) - 10) + "install.sh", (), ("install.sh",)),
    "cyrillic-o": Spoof("n\u043etes.md", (), ("mixes Latin and Cyrillic",)),
}
assert len(SPOOFS["long-sh"].raw) == 300


def raw_characters(text: str) -> list[str]:
    """Characters a terminal or a text layout would act on instead of showing (newlines and tabs allowed)."""
    return [
        f"U+{ord(c):04X}" for c in text
        if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp") and c not in "\n\t"
    ]
