"""Signing in to remote MCP servers from the app: one controller per window, one panel per place.

:class:`McpSignIn` runs :meth:`McpAuth.login` as a task on the qasync loop --
the browser is opened the standard way (``$BROWSER``, else xdg-open) and the
loopback listener is awaited without ever blocking the window -- and it can be
cancelled.  It tells every place that shows a server's sign-in (Settings → MCP
servers, the chat's MCP status, a tool card's offer) what happened, and
``changed`` lets the chat discover again with the new tokens.  Tokens never
pass through here: results carry the account and expiry only.

:class:`SignInPanel` is the few controls a place shows for one server: its
state in words ("Signed in as ada@example.com · until Today 14:02"), "Sign in"
(the row's one primary action) or "Sign out", and while a sign-in runs
"Waiting for your browser…" with a Cancel.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relavium_desktop.ui.qt import QHBoxLayout, QLabel, QObject, QPushButton, Qt, QVBoxLayout, QWidget, Signal
from relavium_desktop.ui.theme import set_tone, set_variant
from relavium_desktop.ui.theme.tokens import SPACE_1, SPACE_2

if TYPE_CHECKING:
    from relavium_desktop.application.mcp_auth import McpAuth, ServerAuthState

WAITING = "Waiting for your browser… Finish signing in there, then come back."
# What the MCP host says when a server needs a sign-in nobody was there to do (discovery or a call).
_NEEDS_SIGN_IN = re.compile(r"MCP server '([^']+)' needs you to sign in")


def server_needing_sign_in(text: str | None) -> str | None:
    """The server an error says needs a sign-in, or None: how a failure becomes a "Sign in" offer."""
    found = _NEEDS_SIGN_IN.search(text or "")
    return found.group(1) if found else None


def state_words(state: ServerAuthState) -> str:
    """A server's sign-in in a person's words, with a local, human expiry."""
    if state.state == "signed_in" and state.expires_at is not None and state.expires_words:
        import time

        if state.expires_at > time.time():
            who = f" as {state.account}" if state.account else ""
            return f"Signed in{who} · until {state.expires_words}"
    return state.words


def state_tone(state: ServerAuthState) -> str:
    return {"signed_in": "success", "expired": "warning", "needs_sign_in": "warning"}.get(
        state.state, "muted"
    )


def signed_in(state: ServerAuthState | None) -> bool:
    return state is not None and state.state == "signed_in"


def _default_auth(home: Path) -> McpAuth:
    from relavium_desktop.application.mcp_auth import McpAuth
    from relavium_desktop.application.secrets import secret_store

    return McpAuth(home, secret_store())


def _default_opener(url: str) -> bool:
    from relavium_desktop.application.browser import open_in_browser

    return open_in_browser(url)


class McpSignIn(QObject):
    """The window's MCP sign-ins: one at a time, each a cancellable task on the qasync loop."""

    started = Signal(str)  # server
    progress = Signal(str, str)  # server, words (waiting for the browser, or the address to open by hand)
    finished = Signal(str, bool, str)  # server, signed in?, words for a person
    changed = Signal(str)  # server whose tokens were stored or removed: discover again

    def __init__(
        self,
        home: Path,
        parent: QObject | None = None,
        *,
        auth: Callable[[Path], McpAuth] = _default_auth,
        opener: Callable[[str], bool] = _default_opener,
        timeout_s: float | None = None,
    ) -> None:
        super().__init__(parent)
        self.home = home
        self._auth = auth
        self._opener = opener
        self._timeout_s = timeout_s
        self.running: str | None = None  # the server being signed in to
        self.last: dict[str, tuple[bool, str]] = {}  # server -> (signed in?, words) of its last attempt
        self._task: asyncio.Task[Any] | None = None

    # -- reading ---------------------------------------------------------------------

    async def states(self) -> list[ServerAuthState]:
        """Every configured server's sign-in (the keyring is read in a worker thread); [] when unreadable."""
        try:
            return await asyncio.to_thread(lambda: self._auth(self.home).status())
        except Exception:  # noqa: BLE001 -- a broken mcp.yaml is said by the page; no sign-in to show
            return []

    # -- sign in -------------------------------------------------------------------

    def sign_in(self, server: str) -> bool:
        """Start signing in to ``server``; False when another sign-in is still running."""
        if self.running is not None:
            return False
        from relavium_desktop.ui.tasks import spawn

        self.running = server
        self.last.pop(server, None)
        self.started.emit(server)
        self._task = spawn(self._sign_in(server))
        return True

    def cancel(self) -> None:
        """Stop waiting for the browser (the loopback listener closes; nothing is stored)."""
        if self._task is not None and not self._task.done():
            self._task.cancel()

    async def wait(self) -> None:
        """Until the running sign-in ends (tests, and a chat offer that continues afterwards)."""
        task = self._task
        if task is not None and not task.done():
            await asyncio.wait([task])

    def _open(self, server: str, url: str) -> None:
        if self._opener(url):
            self.progress.emit(server, WAITING)
        else:
            self.progress.emit(server, f"Open this address in a browser to sign in, then come back:\n{url}")

    async def _sign_in(self, server: str) -> None:
        from relavium_desktop.application.mcp_auth import McpAuthError

        ok, words = False, f"Signing in to {server} did not finish."
        try:
            auth = await asyncio.to_thread(self._auth, self.home)
            kwargs: dict[str, Any] = {} if self._timeout_s is None else {"timeout_s": self._timeout_s}
            result = await auth.login(server, lambda url: self._open(server, url), **kwargs)
            ok, words = result.signed_in, result.message
            if ok and result.expires_at is not None:
                from relavium_desktop.application.mcp_auth import local_when

                words = words.rstrip(".") + f" · until {local_when(result.expires_at)}"
        except asyncio.CancelledError:
            ok, words = False, f"Sign-in to {server} cancelled. Nothing was stored."
        except McpAuthError as exc:
            from relavium_desktop.ui.error_text import error_text

            ok, words = False, error_text(exc, limit=400)
        except Exception as exc:  # noqa: BLE001 -- a failure is said in words, never a crash
            from relavium_desktop.ui.error_text import error_text

            ok, words = False, f"Signing in to {server} failed: {error_text(exc, limit=300)}"
        finally:
            self.running = None
            self._task = None
        self.last[server] = (ok, words)
        self.finished.emit(server, ok, words)
        if ok:
            self.changed.emit(server)

    # -- sign out ---------------------------------------------------------------------

    async def sign_out(self, server: str) -> str:
        """Remove ``server``'s tokens from the keyring; the words to show."""
        from relavium_desktop.application.mcp_auth import McpAuthError

        try:
            removed = await asyncio.to_thread(lambda: self._auth(self.home).logout(server))
        except McpAuthError as exc:
            from relavium_desktop.ui.error_text import error_text

            return error_text(exc, limit=400)
        except Exception as exc:  # noqa: BLE001 -- the keyring refused: said, not raised
            from relavium_desktop.ui.error_text import error_text

            return f"Signing out of {server} failed: {error_text(exc, limit=300)}"
        self.last.pop(server, None)
        self.changed.emit(server)
        return f"Signed out of {server}." if removed else f"{server} was not signed in."


def window_sign_in(context: Any) -> McpSignIn:
    """The window's one :class:`McpSignIn` (a child of its context), made on first use."""
    found = context.findChild(McpSignIn)
    if isinstance(found, McpSignIn):
        return found
    return McpSignIn(context.app.paths.home, context)


class SignInPanel(QWidget):
    """One server's sign-in where a person sees it: state in words, Sign in / Sign out, progress and Cancel."""

    def __init__(self, controller: McpSignIn, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mcpSignIn")
        self.controller = controller
        self.server: str | None = None
        self.state: ServerAuthState | None = None
        self.state_label = QLabel()
        self.state_label.setObjectName("mcpSignInState")
        self.state_label.setWordWrap(True)
        self.state_label.setTextFormat(Qt.TextFormat.PlainText)
        self.note = QLabel()  # progress, the result of the last attempt, or the address to open by hand
        self.note.setObjectName("mcpSignInNote")
        self.note.setWordWrap(True)
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.note.hide()
        self.sign_in_button = QPushButton("Sign in")
        self.sign_in_button.setObjectName("mcpSignInButton")
        set_variant(self.sign_in_button, "primary")
        self.sign_out_button = QPushButton("Sign out")
        self.sign_out_button.setObjectName("mcpSignOutButton")
        set_variant(self.sign_out_button, "secondary")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("mcpSignInCancel")
        set_variant(self.cancel_button, "ghost")
        for button in (self.sign_in_button, self.sign_out_button, self.cancel_button):
            button.setAutoDefault(False)
        self.sign_in_button.clicked.connect(self._sign_in)
        self.sign_out_button.clicked.connect(self._sign_out)
        self.cancel_button.clicked.connect(controller.cancel)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(SPACE_2)
        row.addWidget(self.state_label, 1)
        row.addWidget(self.cancel_button)
        row.addWidget(self.sign_out_button)
        row.addWidget(self.sign_in_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(SPACE_1)
        layout.addLayout(row)
        layout.addWidget(self.note)
        controller.started.connect(lambda server: self._update() if server == self.server else None)
        controller.progress.connect(self._progress)
        controller.finished.connect(self._finished)

    def show_state(self, server: str, state: ServerAuthState | None) -> None:
        """Show ``server``'s sign-in; ``state`` None while it is being read."""
        if server != self.server:
            self.note.hide()
            last = self.controller.last.get(server)
            if last is not None and not last[0]:  # a failed attempt stays said until the next one
                self._say(last[1], "danger")
        self.server, self.state = server, state
        self._update()

    def _update(self) -> None:
        state, busy = self.state, self.controller.running is not None
        mine = busy and self.controller.running == self.server
        if mine:
            self.state_label.setText(f"Signing in to {self.server}…")
            set_tone(self.state_label, "muted")
            if self.note.isHidden() or not self.note.text():
                self._say(WAITING, "muted")
        elif state is None:
            self.state_label.setText("Checking the sign-in…")
            set_tone(self.state_label, "muted")
        else:
            self.state_label.setText(state_words(state))
            set_tone(self.state_label, state_tone(state))
        can = state is not None and state.can_sign_in
        self.sign_in_button.setText(
            "Sign in again" if state is not None and state.state == "expired" else "Sign in"
        )
        self.sign_in_button.setVisible(can and not signed_in(state) and not mine)
        self.sign_in_button.setEnabled(not busy)
        self.sign_in_button.setAccessibleName(f"Sign in to {self.server}")
        self.sign_out_button.setVisible(signed_in(state) and not mine)
        self.sign_out_button.setAccessibleName(f"Sign out of {self.server}")
        self.cancel_button.setVisible(mine)
        self.cancel_button.setAccessibleName(f"Cancel signing in to {self.server}")

    def _say(self, words: str, tone: str) -> None:
        self.note.setText(words)
        set_tone(self.note, tone)
        self.note.show()

    def _sign_in(self) -> None:
        if self.server is not None and self.controller.sign_in(self.server):
            self._say(WAITING, "muted")
            self._update()

    def _sign_out(self) -> None:
        if self.server is None:
            return
        from relavium_desktop.ui.tasks import spawn

        server = self.server
        self.sign_out_button.setEnabled(False)

        async def run() -> None:
            words = await self.controller.sign_out(server)
            self.sign_out_button.setEnabled(True)
            if self.server == server:
                self._say(words, "muted")

        spawn(run())

    def _progress(self, server: str, words: str) -> None:
        if server == self.server:
            self._say(words, "muted")
            self._update()

    def _finished(self, server: str, ok: bool, words: str) -> None:
        if server == self.server and ok:
            self.note.hide()  # the state line says who is signed in, and until when
        elif server == self.server:
            self._say(words, "danger")
        self._update()
