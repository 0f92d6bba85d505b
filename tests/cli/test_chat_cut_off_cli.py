"""``relavium chat`` says when an answer was cut off, now and when the session is resumed (real CLI)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from relavium_desktop.store.db import history_db_path, open_db
from relavium_desktop.store.sessions import SqliteSessionStore
from tests.chat_kills import session_of
from tests.cli.llm_cli import write_agent
from tests.conftest import relavium_cmd
from tests.fixtures.llm_server import Reply, ScriptedLLMServer


def _chat(env: dict[str, str], stdin: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*relavium_cmd(), "chat", *args], input=stdin, env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=120, check=False)


def test_a_cut_off_answer_is_said_kept_and_not_followed_by_two_questions(
    env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path, relavium_home: Path
) -> None:
    agent = write_agent(tmp_path / "helper.agent.yaml", tools=[])
    llm_server.script(Reply.disconnect("The answer begins"), Reply.error(401), Reply.error(401))
    done = _chat(env, "explain it\n", "--agent", str(agent), "--workspace", str(tmp_path), cwd=tmp_path)
    assert "[cut off] the answer above was cut off; what arrived is kept." in done.stdout, done.stdout
    sid = session_of(done.stdout)
    store = SqliteSessionStore(open_db(history_db_path(relavium_home)))
    kept = store.messages(sid)
    assert [m.role for m in kept] == ["user", "assistant"] and store.cut_off_indexes(sid) == {1}
    assert kept[1].text and "The answer begins".startswith(kept[1].text)
    store._conn.close()

    with llm_server._lock:  # whichever scripted refusals no retry used
        llm_server._replies.clear()
    llm_server.script(Reply.say("Here it is in full."))
    again = _chat(env, "explain it\n", "--agent", str(agent), "--session", sid, "--workspace", str(tmp_path),
                  cwd=tmp_path)
    assert "[cut off] the last answer in this session was cut off" in again.stdout
    assert "Here it is in full." in again.stdout
    sent = [m["role"] for m in llm_server.requests[-1].body["messages"]]
    assert sent == ["system", "user", "assistant", "user"]  # never two user turns in a row
