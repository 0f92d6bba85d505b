"""Shared pieces of the built-in tool modules."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class ToolArgs(BaseModel):
    """Strict args: an unknown key is a correctable invalid_args, not ignored."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


GLOB_CHARS = frozenset("*?")


def is_glob(path: str) -> bool:
    return any(c in GLOB_CHARS for c in path)
