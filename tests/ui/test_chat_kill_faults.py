"""kill -9 of the app mid-answer: the question and the partial answer are kept, history.db stays whole.

Twice: through the real main window (``tests/ui/app_kill_window_child.py``:
``MainWindow`` offscreen on qasync, the question typed into the composer, what
the transcript shows printed as it grows), and through the app's chat backend
alone (``tests/ui/chat_kill_child.py``), ten kills each.  Real slow
wire-format server, real history.db, SIGKILL at random moments.
"""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.chat_kills import KEPT_WITHIN_S, Streamed, check_kept, kill_mid_answer, session_of, shown_answer
from tests.fixtures.llm_server import Reply
from tests.fixtures.slow_llm import SlowLLMServer, long_answer, slow_llm_server
from tests.ui.chat_driver import KEY, ROUTE

APP_KILLS = 10
SIDE_BY_SIDE = 5
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def slow_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[SlowLLMServer]:
    with slow_llm_server(monkeypatch) as server:
        yield server


@pytest.mark.parametrize("child", ["tests.ui.chat_kill_child", "tests.ui.app_kill_window_child"],
                         ids=["chat-backend", "real-window"])
def test_kill_9_of_the_app_mid_answer_keeps_the_question_and_the_partial_answer(
    cli_env: dict[str, str], relavium_home: Path, slow_server: SlowLLMServer, child: str
) -> None:
    import json

    entries = {
        "providers": {
            "scripted-openai": {
                "kind": "openai",
                "base_url": slow_server.base_url + "/v1",
                "api_key": "env:RELAVIUM_TEST_KEY",
                "allow_local": True,
            }
        }
    }
    (relavium_home / "providers.yaml").write_text(json.dumps(entries))
    env = {**cli_env, "RELAVIUM_TEST_KEY": KEY, "QT_QPA_PLATFORM": "offscreen"}
    answer = long_answer()
    slow_server.script(*(Reply.say(answer) for _ in range(APP_KILLS)))

    def one(attempt: int) -> tuple[str, Streamed, float, float]:
        question = f"a long story please, number {attempt}"
        proc = subprocess.Popen(
            [sys.executable, "-m", child, ROUTE, question],
            env=env,
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        try:
            streamed = Streamed(proc).start()
            began, killed_at = kill_mid_answer(streamed, random.Random(1029 + attempt), "word000")
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()
        return question, streamed, began, killed_at

    with ThreadPoolExecutor(SIDE_BY_SIDE) as pool:
        runs = list(pool.map(one, range(APP_KILLS)))
    kept_lengths = []
    for question, streamed, began, killed_at in runs:
        shown = shown_answer(streamed.text_at(killed_at - KEPT_WITHIN_S), "word000")
        kept = check_kept(
            relavium_home,
            session_of(streamed.text()),
            question,
            answer,
            shown_before=shown,
            streamed_for_s=killed_at - began,
        )
        kept_lengths.append(len(kept))
    assert sum(1 for n in kept_lengths if n) >= APP_KILLS // 2, kept_lengths
