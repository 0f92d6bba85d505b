"""Tool specs a provider advertises, built from the registry's LLM-visible view.

Built from ``ToolRegistry.describe()`` rows so the schema a model sees is the
one the validator enforces, and config-only fields never reach a provider.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from relavium_desktop.engine.jsontypes import JsonDict


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    description: str
    parameters: JsonDict


def tool_specs(described: Iterable[Mapping[str, Any]], ids: Iterable[str] | None = None) -> list[ToolSpec]:
    """Specs for the granted ``ids`` (all when None), in registry order."""
    wanted = None if ids is None else set(ids)
    return [
        ToolSpec(name=row["id"], description=row["description"], parameters=dict(row["parameters"]))
        for row in described
        if wanted is None or row["id"] in wanted
    ]
