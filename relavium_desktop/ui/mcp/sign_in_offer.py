"""The chat's "Sign in to SERVER" bar: a remote MCP server that needs a sign-in, answered in place.

Two moments put it up.  Discovery found a server that needs a sign-in (its
tools are not offered until then): the bar says so and offers "Sign in to
SERVER".  Or a tool call met a 401 mid-turn (the token was revoked, or its
refresh was refused): the refusal is fed back to the model as usual, and the
bar offers the sign-in, then "Continue" to carry the turn on -- like the
folder offer does for a path outside the project -- instead of a failed turn
and a bare error.

The sign-in itself is the window's :class:`~relavium_desktop.ui.mcp.sign_in.McpSignIn`
(the browser the standard way, a cancellable wait on the loopback listener),
so Settings → MCP servers shows the same state.
"""

from __future__ import annotations

from relavium_desktop.ui.chat.offer_bar import OfferBar
from relavium_desktop.ui.mcp.sign_in import WAITING, McpSignIn
from relavium_desktop.ui.qt import Signal


class SignInOffer(OfferBar):
    retry_requested = Signal()  # signed in after a refused call: carry the turn on

    def __init__(self, controller: McpSignIn) -> None:
        super().__init__("mcpSignInOffer", "banner-warning")
        self.controller = controller
        self.server: str | None = None
        self.mid_turn = False  # offered after a refused call (Continue follows), not after discovery
        self.sign_in_button = self.button("Sign in", "offerSignInButton")
        self.cancel_button = self.button("Cancel", "offerSignInCancel")
        self.retry_button = self.button("Continue", "offerSignInContinue")
        self.sign_in_button.clicked.connect(self._sign_in)
        self.cancel_button.clicked.connect(controller.cancel)
        self.retry_button.clicked.connect(self._retry)
        controller.progress.connect(self._progress)
        controller.finished.connect(self._finished)

    def offer(self, server: str, *, mid_turn: bool) -> None:
        """Offer the sign-in to ``server``; ``mid_turn``: a tool call was refused for want of one."""
        if not self.isHidden() and self.mid_turn and not mid_turn:
            return  # a refused call's offer (with its Continue) outranks the discovery notice
        self.server, self.mid_turn = server, mid_turn
        self.sign_in_button.setText(f"Sign in to {server}")
        self.sign_in_button.setAccessibleName(f"Sign in to the MCP server {server}")
        if self.controller.running == server:
            self.show_step(WAITING, self.cancel_button)
            return
        if mid_turn:
            text = (
                f"The MCP server “{server}” asked you to sign in again, so the agent's call to it did not run. "
                "Sign in, then continue to let the agent try again."
            )
        else:
            text = f"The MCP server “{server}” needs you to sign in before the agent can use its tools."
        self.show_step(text, self.sign_in_button)

    def withdraw(self, servers: set[str]) -> None:
        """Hide a discovery notice whose server no longer needs a sign-in (signed in elsewhere)."""
        waiting = self.controller.running == self.server
        if not self.isHidden() and not self.mid_turn and self.server not in servers and not waiting:
            self.hide()

    def turn_moved_on(self) -> None:
        """The person sent something new (or opened another chat): the refused call's Continue is moot.

        Continue would re-run the turn that was refused, which is no longer the
        chat's last.  A sign-in still waiting on the browser goes on, and its end
        then says the tools are offered; otherwise the bar goes.
        """
        if self.isHidden() or not self.mid_turn:
            return
        self.mid_turn = False
        if self.controller.running != self.server:
            self.hide()

    def _sign_in(self) -> None:
        if self.server is not None and self.controller.sign_in(self.server):
            self.show_step(WAITING, self.cancel_button)

    def _progress(self, server: str, words: str) -> None:
        if server == self.server and not self.isHidden():
            self.show_step(words, self.cancel_button)

    def _finished(self, server: str, ok: bool, words: str) -> None:
        if server != self.server or self.isHidden():
            return
        if not ok:
            self.show_step(words, self.sign_in_button)
        elif self.mid_turn:
            self.show_step(f"{words} Continue to let the agent try again.", self.retry_button)
        else:
            self.show_step(f"{words} Its tools are offered to the agent now.")

    def _retry(self) -> None:
        self.hide()
        self.retry_requested.emit()
