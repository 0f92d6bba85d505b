"""Relavium Desktop: a local-first workbench for AI agents."""

__version__ = "0.1.0"
