"""UI test plumbing: a running qasync loop, a window factory, Qt warnings fail tests.

The app's coroutines (keyring calls in threads, the approval hook) run on a
qasync loop created "already running", so tests stay synchronous and drive
everything with qtbot waits: each ``qtbot.waitUntil`` / ``waitSignal`` spins
Qt's event loop, which also steps the asyncio tasks.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.fixtures.llm_server import ScriptedLLMServer
from tests.ui.chat_driver import KEY, ROUTE

HERE = Path(__file__).resolve().parent
# Closed qasync loops are kept alive: their timer QObject must be destroyed on
# the GUI thread, and a garbage collection triggered in a worker thread would
# otherwise destroy it there ("Timers cannot be stopped from another thread").
_CLOSED_LOOPS: list[object] = []
# The offscreen platform warns about window-manager hints it cannot honour;
# that is the test platform talking, not the app.
IGNORED_QT_MESSAGES = (
    r"This plugin does not support propagateSizeHints\(\)",
    r"This plugin does not support raise\(\)",
    r"This plugin does not support grabbing the keyboard",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if Path(str(item.fspath)).resolve().parent == HERE:
            item.add_marker(pytest.mark.qt_log_level_fail("WARNING"))
            item.add_marker(pytest.mark.qt_log_ignore(*IGNORED_QT_MESSAGES))


@pytest.fixture
def qloop(qapp) -> Iterator[asyncio.AbstractEventLoop]:
    import qasync

    loop = qasync.QEventLoop(qapp, already_running=True)
    asyncio.set_event_loop(loop)
    try:
        yield loop
    finally:
        pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
        for task in pending:
            task.cancel()
        # Let the cancellations run (each needs a loop iteration) before closing.
        for _ in range(200):
            if all(t.done() for t in pending):
                break
            qapp.processEvents()
        asyncio.events._set_running_loop(None)
        # Mark it stopped without loop.stop(): that calls app.exit(), which would
        # leave Qt's quit flag set for every later test in this process.
        loop._QEventLoop__is_running = False  # type: ignore[attr-defined]
        loop.close()  # joins the worker threads of asyncio.to_thread
        _CLOSED_LOOPS.append(loop)
        asyncio.set_event_loop(None)


class FolderPickerDouble:
    """Stands in for the native folder dialog, which a test cannot click."""

    def __init__(self) -> None:
        self.answers: list[str | None] = []
        self.calls = 0

    def __call__(self, parent: object, start: str) -> str | None:
        self.calls += 1
        return self.answers.pop(0) if self.answers else None


@pytest.fixture
def folder_picker() -> FolderPickerDouble:
    return FolderPickerDouble()


@pytest.fixture
def make_window(qtbot, qloop, folder_picker, relavium_home: Path) -> Iterator[Callable[..., object]]:
    from relavium_desktop.ui.shell import MainWindow

    windows: list[MainWindow] = []

    def make(*, welcome: bool = False, **kw: object) -> MainWindow:
        """A window; ``welcome=False`` is a returning user (the first-run flow was finished before).

        Its Application is ``kw["app"]`` when given, else one over the test's data folder, handed in as
        the window's entry point does.
        """
        from relavium_desktop.application.app import Application
        from relavium_desktop.application.paths import AppPaths
        from relavium_desktop.ui import app_settings as keys

        app = kw.setdefault("app", Application(AppPaths(relavium_home)))
        assert isinstance(app, Application)
        if not welcome:
            settings = keys.ui_settings(app.paths.home)
            settings.setValue(keys.KEY_WELCOME_DONE, "done")
            settings.sync()
        kw.setdefault("folder_picker", folder_picker)
        window = MainWindow(**kw)  # type: ignore[arg-type]
        qtbot.addWidget(window)
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.close()
        window.context.close()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hello')\n")
    return root



@pytest.fixture
def providers(relavium_home: Path, llm_server: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """providers.yaml with one OpenAI-dialect entry at this test's scripted server (local opted in)."""
    monkeypatch.setenv("RELAVIUM_TEST_KEY", KEY)
    entries = {"providers": {"scripted-openai": {
        "kind": "openai", "base_url": llm_server.base_url + "/v1", "api_key": "env:RELAVIUM_TEST_KEY",
        "allow_local": True,
    }}}
    (relavium_home / "providers.yaml").write_text(json.dumps(entries))


@pytest.fixture
def chat(make_window, folder_picker, project: Path, providers: None, qtbot):
    """The chat view of a shown window, on ``project``, routed to the scripted server."""
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    folder_picker.answers.append(str(project))
    window.project_button.click()
    assert window.context.project == os.path.realpath(project)
    view = window.chat_view
    qtbot.waitUntil(lambda: view.backend is not None)  # loaded after the first paint
    view.set_route(ROUTE)
    return view
