"""The first screen costs what it shows: modules that must not be imported before the first paint.

The real app runs in a subprocess (``python -m relavium_desktop``) with the
start-up probe on; at its first paint it writes ``sys.modules`` to a file
(``ui/startup_probe.py``), and quits once the first page has painted too.  The
first frame is the window's chrome with the page's slot empty; the page (the
welcome flow on a fresh data folder, the chat for a returning user) is built on
the loop turn after it.  A name in the lists below that shows up in the dump
fails the test with the module that was imported too early.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# Heavier than any first screen needs; each arrives with the first use after the paint.
NEVER_BEFORE_FIRST_PAINT = (
    "pydantic",  # provider entries, workflow models: read after the paint
    "httpx",  # provider and MCP connections
    "mcp",  # MCP discovery starts with the chat backend, after the paint
    "ruamel",  # providers.yaml / workflow YAML
    "pygments",  # code highlighting: the first code block in a transcript
    "markdown_it",  # Markdown: the first rendered answer
    "keyring",  # provider readiness resolves keys after the paint
    "secretstorage",  # the Secret Service backend of keyring (D-Bus)
    "jeepney",  # D-Bus, under secretstorage
    "desktop_notifier",  # notifications (D-Bus): the services after the paint
    "dbus_fast",  # desktop_notifier's D-Bus
    "qtawesome",  # the icon font: navigation icons are drawn after the paint
    "asyncio",  # the qasync loop starts once the window is on screen
    "qasync",
    "sqlite3",  # history.db is checked and opened after the paint
    "relavium_desktop.store",
    "relavium_desktop.host.desktop_os",
    "relavium_desktop.host.secrets",
    "relavium_desktop.providers.config",
    "relavium_desktop.engine.agent.loop",
    "relavium_desktop.engine.workflow",
    "relavium_desktop.ui.workflows",  # pages not on screen: built on first show
    "relavium_desktop.ui.runs",
    "relavium_desktop.ui.settings",
    "relavium_desktop.ui.tray",
    "PySide6.QtNetwork",  # the single-instance socket listens on the loop turn after the paint
    "relavium_desktop.engine.tools.masking",  # log masking compiles its patterns with the first log record
    "relavium_desktop.host.mcp",  # the settings-file check parses only the files that exist
    "relavium_desktop.ui.chat.message_block",  # the transcript's blocks load with its first block
    "relavium_desktop.ui.chat.tool_cards",
    "relavium_desktop.ui.theme.icons",  # the icon font: the nav and chat-list icons are tinted after the paint
    "relavium_desktop.ui.chat",  # the first page (chat or welcome) is built after the first frame
    "relavium_desktop.ui.chat.markdown",  # (named too: answers are rendered after the chat list loads)
    "relavium_desktop.ui.welcome",
    "relavium_desktop.ui.identity",  # the window icon (QIcon's class alone is ~6 ms) is set after the paint
    "relavium_desktop.ui.mcp",  # MCP sign-in offers: Settings and the chat, after the paint
    "datetime",  # times in words ("Today 14:02"): the chat list, after the paint
)


def modules_at_first_paint(home: Path, tmp_path: Path) -> set[str]:
    """The modules loaded at the first frame; the run must also paint its first page afterwards."""
    dump = tmp_path / "modules.txt"
    env = dict(os.environ, RELAVIUM_HOME=str(home), RELAVIUM_STARTUP_PROBE="1",
               RELAVIUM_STARTUP_MODULES=str(dump), QT_QPA_PLATFORM="offscreen")
    done = subprocess.run([sys.executable, "-m", "relavium_desktop"], env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    assert "relavium-first-paint" in done.stdout, done.stdout + done.stderr
    # The page really comes: built after the frame ("first-view"), then painted.
    phases = [line.split()[1] for line in done.stdout.splitlines() if line.startswith("relavium-phase ")]
    assert phases[-2:] == ["first-view", "first-view-paint"], done.stdout
    names = set(dump.read_text(encoding="utf-8").split())
    # The dump is the real app's at its first paint, not an empty or foreign list.
    assert {"relavium_desktop.ui.shell", "PySide6.QtWidgets"} <= names
    return names


def too_early(names: set[str], forbidden: tuple[str, ...]) -> list[str]:
    return sorted(n for n in names if any(n == f or n.startswith(f + ".") for f in forbidden))


def returning_user(home: Path) -> None:
    """Providers set up, the welcome done, a stored chat: the chat page is the first screen."""
    entries = {"providers": {"local": {"kind": "openai", "base_url": "http://127.0.0.1:9/v1",
                                       "api_key": "secret:local", "allow_local": True}}}
    (home / "providers.yaml").write_text(json.dumps(entries), encoding="utf-8")
    (home / "desktop-settings.ini").write_text("[welcome]\ndone=done\n", encoding="utf-8")
    from relavium_desktop.application.stores import session_store
    from relavium_desktop.engine.llm.messages import Message

    store = session_store(home)
    store.append_message(store.create(title="Earlier chat", agent_id="chat", mode="auto").id,
                         Message.user("What does total() do?"))


def test_the_welcome_screen_imports_no_page_and_nothing_heavy(relavium_home: Path, tmp_path: Path) -> None:
    names = modules_at_first_paint(relavium_home, tmp_path)
    assert too_early(names, NEVER_BEFORE_FIRST_PAINT) == []


def test_the_chat_screen_imports_nothing_heavy(relavium_home: Path, tmp_path: Path) -> None:
    returning_user(relavium_home)
    names = modules_at_first_paint(relavium_home, tmp_path)
    assert too_early(names, NEVER_BEFORE_FIRST_PAINT) == []


@pytest.mark.parametrize("name", ["pydantic", "pydantic.main", "relavium_desktop.ui.settings.view"])
def test_a_forbidden_module_or_submodule_is_reported(name: str) -> None:
    assert too_early({"PySide6", name}, NEVER_BEFORE_FIRST_PAINT) == [name]
