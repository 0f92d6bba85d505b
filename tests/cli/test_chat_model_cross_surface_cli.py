"""The model chosen in the window is the model ``relavium chat`` uses, and ``--model`` overrides it.

The choice is made the way a user makes it -- the window's real model
picker (pytest-qt, offscreen) -- and a real ``relavium chat`` process in the
same data folder then talks to the scripted server, which records the model
each request named.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import relavium_cmd
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.ui import conftest as ui_fixtures

# The window's fixtures (its qasync loop, the window factory), shared with tests/ui.
qloop = ui_fixtures.qloop
folder_picker = ui_fixtures.folder_picker
make_window = ui_fixtures.make_window


def chat(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*relavium_cmd(), "chat", "--workspace", str(cwd), *args],
        input="hello\n/exit\n", env=env, cwd=cwd, capture_output=True, text=True, timeout=60, check=False,
    )


def test_the_model_picked_in_the_window_is_used_by_relavium_chat(
    make_window, qtbot, env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    window = make_window()
    view = window.chat_view
    with qtbot.waitSignal(view.models.updated, timeout=20_000):
        view.ensure_loaded()
    view.model_combo.set_route("scripted-openai/picked-in-the-window")
    window.close()

    llm_server.script(Reply.say("Hello from the picked model."))
    proc = chat(env, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "Hello from the picked model." in proc.stdout
    assert [r.body["model"] for r in llm_server.requests] == ["picked-in-the-window"]

    # --model wins over the window's choice, for this chat only.
    llm_server.script(Reply.say("Hello from the flag's model."))
    proc = chat(env, tmp_path, "--model", "scripted-openai/named-on-the-command-line")
    assert proc.returncode == 0, proc.stderr
    assert llm_server.requests[-1].body["model"] == "named-on-the-command-line"

    # ... and the window's choice stays the default for the next chat.
    llm_server.script(Reply.say("Back to the default."))
    proc = chat(env, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert llm_server.requests[-1].body["model"] == "picked-in-the-window"
