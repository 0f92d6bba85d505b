"""One running app per data dir: later launches forward their request and exit.

The first instance listens on a local socket inside the (owner-only) data
dir; a second ``relavium-desktop`` -- typically bound to a system-wide
keyboard shortcut as ``relavium-desktop --process-clipboard`` -- connects,
sends one JSON line naming a command, and exits.  Only the fixed commands
below are accepted; anything else on the socket is ignored, so the socket
is not a way to drive the app.  ``open-file`` carries one absolute path (a
double-clicked workflow); it is emitted as ``open-file:<path>`` and only
selects that file in the Workflows page -- it never runs anything.

QtNetwork (and hashlib, for long paths) loads on first use, not on import:
the app starts listening once its window is on screen (``ui/shell.py``), so
the first paint does not wait for it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relavium_desktop.ui.qt import QObject, Signal

if TYPE_CHECKING:
    from relavium_desktop.ui.qt import QLocalSocket

COMMANDS = frozenset({"show", "process-clipboard"})
OPEN_FILE = "open-file"
_MAX_PATH_CHARS = 4096
# sockaddr_un.sun_path is 108 bytes on Linux; longer data dirs use a hashed name.
_MAX_SOCKET_PATH = 100
_MAX_MESSAGE_BYTES = 4096


def server_name(home: Path) -> str:
    """The instance socket of the data folder ``home``: one running window per data folder."""
    path = home / "instance.sock"
    if os.name != "nt" and len(os.fsencode(path)) <= _MAX_SOCKET_PATH:
        return str(path)
    import hashlib
    import tempfile

    digest = hashlib.sha256(os.fsencode(home.resolve())).hexdigest()[:16]
    if os.name == "nt":
        return f"relavium-{digest}"
    return str(Path(tempfile.gettempdir()) / f"relavium-{os.getuid()}-{digest}.sock")


def forward_to_running(name: str, command: str, timeout_ms: int = 1000, *, path: str | None = None) -> bool:
    """Send ``command`` (with ``path`` for ``open-file``) to a running instance; False when none is listening.

    Outside Windows the server is a Unix socket at ``name``: Python's own
    socket sends the line (no QtNetwork to load when a stale socket file is
    all there is); on Windows it is a named pipe, reached through QLocalSocket.
    """
    message: dict[str, str] = {"command": command}
    if path is not None:
        message["path"] = path
    line = (json.dumps(message) + "\n").encode()
    if os.name != "nt":
        import socket

        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as unix:
            unix.settimeout(timeout_ms / 1000)
            try:
                unix.connect(name)
                unix.sendall(line)
            except OSError:  # no such file, a stale socket nobody listens on, a timeout
                return False
        return True
    from relavium_desktop.ui.qt import QLocalSocket

    sock = QLocalSocket()
    sock.connectToServer(name)
    if not sock.waitForConnected(timeout_ms):
        return False
    sock.write(line)
    ok = sock.waitForBytesWritten(timeout_ms)
    sock.disconnectFromServer()
    if sock.state() != QLocalSocket.LocalSocketState.UnconnectedState:
        sock.waitForDisconnected(timeout_ms)
    return ok


class InstanceServer(QObject):
    """Listens for forwarded launches and emits each accepted command."""

    command_received = Signal(str)

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        from relavium_desktop.ui.qt import QLocalServer

        super().__init__(parent)
        self.name = name
        self._server = QLocalServer(self)
        self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self._server.newConnection.connect(self._accept)
        self._buffers: dict[QLocalSocket, bytes] = {}

    def listen(self) -> bool:
        if self._server.listen(self.name):
            return True
        # A stale socket left by a crashed instance (nobody answered the forward).
        self._server.removeServer(self.name)
        return self._server.listen(self.name)

    def close(self) -> None:
        self._server.close()

    def _accept(self) -> None:
        while self._server.hasPendingConnections():
            sock = self._server.nextPendingConnection()
            self._buffers[sock] = b""
            sock.readyRead.connect(lambda s=sock: self._read(s))
            sock.disconnected.connect(lambda s=sock: self._drop(s))

    def _drop(self, sock: QLocalSocket) -> None:
        self._read(sock)
        self._buffers.pop(sock, None)
        sock.deleteLater()

    def _read(self, sock: QLocalSocket) -> None:
        if sock not in self._buffers:
            return
        data = self._buffers[sock] + bytes(sock.readAll().data())
        while b"\n" in data:
            line, data = data.split(b"\n", 1)
            self._handle(line)
        if len(data) > _MAX_MESSAGE_BYTES:
            sock.abort()
            data = b""
        self._buffers[sock] = data

    def _handle(self, line: bytes) -> None:
        try:
            message: Any = json.loads(line)
        except ValueError:
            return
        command = message.get("command") if isinstance(message, dict) else None
        if command in COMMANDS:
            self.command_received.emit(command)
        elif command == OPEN_FILE:
            path = message.get("path")
            if isinstance(path, str) and os.path.isabs(path) and "\0" not in path and len(path) <= _MAX_PATH_CHARS:
                self.command_received.emit(f"{OPEN_FILE}:{path}")
