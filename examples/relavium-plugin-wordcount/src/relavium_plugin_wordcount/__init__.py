"""Word, line and character counts -- a small, useful example of a Relavium tool plugin.

Two tools, so the example shows both sides of the capability rule:

- ``wordcount`` (id ``plugin_wordcount``) counts a text the model passes in.
  It declares no capability and its handler gets none.
- ``wordcount_file`` (id ``plugin_wordcount_file``) counts a file in the
  project.  It declares ``fs`` and reads through the host's file capability,
  so the project's path policy (roots, floors, tiers) applies to it exactly as
  to ``read_file``; it cannot spawn processes or reach the network because it
  never gets those capabilities.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from relavium_desktop.engine.tools.plugin_api import PluginCaps, PluginTool

_WORD_RE = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*", re.UNICODE)
MAX_TEXT_CHARS = 1_000_000


def count(text: str, top: int = 0) -> dict[str, Any]:
    """Counts of ``text``: words (letters/digits, inner apostrophes and hyphens kept), lines, characters."""
    words = _WORD_RE.findall(text)
    out: dict[str, Any] = {
        "words": len(words),
        "lines": len(text.splitlines()),
        "characters": len(text),
    }
    if top > 0:
        common = Counter(w.casefold() for w in words).most_common(top)
        out["topWords"] = [{"word": w, "count": n} for w, n in common]
    return out


class WordcountArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str = Field(max_length=MAX_TEXT_CHARS, description="The text to count.")
    top: int = Field(default=0, ge=0, le=50, description="Also list this many most frequent words (0: none).")


class WordcountFileArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str = Field(min_length=1, max_length=4096, description="A text file in the project.")
    top: int = Field(default=0, ge=0, le=50, description="Also list this many most frequent words (0: none).")


async def _wordcount(args: WordcountArgs, caps: PluginCaps) -> dict[str, Any]:
    return count(args.text, args.top)


async def _wordcount_file(args: WordcountFileArgs, caps: PluginCaps) -> dict[str, Any]:
    if caps.fs is None:  # never None when Relavium honours the declaration; a clear error if not
        raise RuntimeError("this host gives plugins no file access")
    got = await caps.fs.read_file(args.path)
    return {"path": got.get("path", args.path), **count(str(got.get("content", "")), args.top)}


TOOLS = [
    PluginTool(
        name="wordcount",
        description="Count the words, lines and characters of a text; optionally list the most frequent words.",
        args_model=WordcountArgs,
        handler=_wordcount,
        action="read",
        capabilities=(),
    ),
    PluginTool(
        name="wordcount_file",
        description="Count the words, lines and characters of a text file in the project.",
        args_model=WordcountFileArgs,
        handler=_wordcount_file,
        action="read",
        capabilities=("fs",),
    ),
]
