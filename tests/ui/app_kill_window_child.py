"""Child process for the window kill -9 test: the real main window sends one chat message.

The real ``MainWindow`` on the offscreen platform and a qasync loop, as
``relavium-desktop`` runs it (a returning user, no project folder): the
question is typed into the composer and Enter is pressed.  It prints
``session ID`` once the session exists, then the assistant message's text
as the transcript shows it, each time it grows -- what a person saw.

Usage: python -m tests.ui.app_kill_window_child ROUTE QUESTION   (RELAVIUM_HOME set)
"""

from __future__ import annotations

import asyncio
import sys


def main(route: str, question: str) -> int:
    import qasync
    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from relavium_desktop.application.app import Application
    from relavium_desktop.ui import app_settings as keys
    from relavium_desktop.ui.shell import MainWindow

    app = QApplication([])
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    application = Application.from_environment()  # this child is a window process: its one read
    settings = keys.ui_settings(application.paths.home)
    settings.setValue(keys.KEY_WELCOME_DONE, "done")
    settings.sync()
    window = MainWindow(app=application)
    window.show()
    view = window.chat_view
    printed = {"session": False, "shown": ""}

    def send() -> None:
        if view.ensure_loaded() is None:
            QTimer.singleShot(50, send)
            return
        view.set_route(route)
        view.composer.setFocus()
        QTest.keyClicks(view.composer, question)
        QTest.keyClick(view.composer, Qt.Key.Key_Return)

    def watch() -> None:
        if view.session_id and not printed["session"]:
            sys.stdout.write(f"session {view.session_id}\n")
            sys.stdout.flush()
            printed["session"] = True
        answers = [m for m in view.transcript.messages() if m.role == "assistant"]
        shown = answers[-1].shown_text() if answers else ""
        if printed["session"] and shown != printed["shown"]:
            grown = shown[len(printed["shown"]):] if shown.startswith(printed["shown"]) else "\n" + shown
            sys.stdout.write(grown)
            sys.stdout.flush()
            printed["shown"] = shown

    ticker = QTimer()
    ticker.timeout.connect(watch)
    ticker.start(20)
    view.turn_finished.connect(lambda status: QTimer.singleShot(200, app.quit))
    QTimer.singleShot(0, send)
    with loop:
        loop.run_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
