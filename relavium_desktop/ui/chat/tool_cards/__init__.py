"""Tool-call cards: a one-line summary per call, expandable to a renderer per tool."""

from relavium_desktop.ui.chat.tool_cards.card import ToolCard

__all__ = ["ToolCard"]
