"""The chat's answer to a refusal the mode caused: say which mode would allow it, switch in one click.

A write refused in Read-only mode used to read "not granted" with no way
forward.  The engine's refusal names the mode; this bar repeats it in words
and offers the least permissive mode that allows the call
(``engine.agent.modes.mode_allowing`` decides which -- the view never
re-implements the policy).  Switching changes the app's mode (the header
picker follows) and "Continue" carries the refused turn on under it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from relavium_desktop.engine.display_text import show_line
from relavium_desktop.ui.chat.offer_bar import OfferBar
from relavium_desktop.ui.qt import Signal

if TYPE_CHECKING:
    from relavium_desktop.engine.agent.mode_ids import ChatMode
    from relavium_desktop.ui.context import AppContext


class ModeSwitchOffer(OfferBar):
    retry_requested = Signal()

    def __init__(self, context: AppContext) -> None:
        super().__init__("modeSwitchOffer", "banner-warning")
        self._context = context
        self._target: str | None = None
        self.switch_button = self.button("", "switchModeButton")
        self.retry_button = self.button("Continue", "modeContinueButton")
        self.switch_button.clicked.connect(self.switch)
        self.retry_button.clicked.connect(self._retry)

    def offer(self, tool_id: str, message: str, current: ChatMode, allowing: ChatMode,
              tool_input: Any = None) -> None:
        """Say in words what the mode refused and offer the mode that allows it (the engine's words: tooltip)."""
        from relavium_desktop.engine.agent.mode_ids import MODE_TITLES
        from relavium_desktop.ui.chat.tool_cards.results import Outcome
        from relavium_desktop.ui.chat.tool_cards.summaries import VERBS, target

        self._target = str(allowing)
        self.switch_button.setText(f"Switch to {MODE_TITLES[allowing]}")
        bare = VERBS.get(tool_id, ("use this tool", "", ""))[0]
        what = target(Outcome(tool_id, tool_input if isinstance(tool_input, dict) else {}))
        doing = show_line(" ".join(p for p in (bare, what) if p))
        self.show_step(f"{MODE_TITLES[current]} mode does not let the agent {doing}. "
                       f"{MODE_TITLES[allowing]} mode does: switch, then continue.", self.switch_button)
        self.label.setToolTip(show_line(message))

    def switch(self) -> None:
        from relavium_desktop.engine.agent.mode_ids import MODE_TITLES, parse_mode

        if self._target is None:
            return
        self._context.set_mode(self._target)
        self.show_step(f"Mode is now {MODE_TITLES[parse_mode(self._target)]}. Continue to let the agent try again.",
                       self.retry_button)

    def _retry(self) -> None:
        self.hide()
        self.retry_requested.emit()
