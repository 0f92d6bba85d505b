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


def test_the_agent_picked_in_the_window_is_the_one_relavium_chat_starts(
    make_window, qtbot, env: dict[str, str], llm_server: ScriptedLLMServer, relavium_home: Path, tmp_path: Path
) -> None:
    agents = relavium_home / "agents"
    agents.mkdir(exist_ok=True)
    (agents / "pirate.agent.yaml").write_text(
        "id: pirate\nname: Pirate\nprovider: scripted-openai\nmodel: pirate-model\n"
        "system_prompt: Answer like a pirate.\ntools: []\n"
    )
    window = make_window()
    view = window.chat_view
    with qtbot.waitSignal(view.models.updated, timeout=20_000):
        view.ensure_loaded()
    ids = [view.agent_combo.itemData(i) for i in range(view.agent_combo.count())]
    view.agent_combo.setCurrentIndex(ids.index("pirate"))
    window.close()

    llm_server.script(Reply.say("Arr."))
    proc = chat(env, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "agent pirate (the app's default" in proc.stdout
    sent = llm_server.requests[-1].body
    assert sent["model"] == "pirate-model"
    assert "Answer like a pirate." in str(sent["messages"][0])

    # --agent names another one for this chat; the window's choice stays the default.
    other = tmp_path / "plain.agent.yaml"
    other.write_text("id: plain\nname: Plain\nprovider: scripted-openai\nmodel: plain-model\n"
                     "system_prompt: Be plain.\ntools: []\n")
    llm_server.script(Reply.say("Plain."))
    proc = chat(env, tmp_path, "--agent", str(other))
    assert proc.returncode == 0, proc.stderr
    assert llm_server.requests[-1].body["model"] == "plain-model"
