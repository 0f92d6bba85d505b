"""Kept so older imports work: the workflow engine is wired in :mod:`relavium_desktop.services`."""

from __future__ import annotations

from relavium_desktop.services import agent_runner, build_workflow_engine

__all__ = ["agent_runner", "build_workflow_engine"]
