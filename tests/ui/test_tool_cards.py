"""Tool cards: the one-line summary and the expanded renderer of every built-in tool.

Where a tool can run here it runs for real: read_file, write_file,
list_directory and run_command through the chat against the scripted
provider (and the same session reopened from the store), git_status and
git_commit through the real ``relavium tool call --json`` subprocess in a
real git repository, its events fed to a transcript as the chat view feeds
them.  The tools that need the network, a desktop session, an MCP server or
a workflow (http_request, web_search, read_clipboard, notify, mcp_call,
invoke_agent, read_media) get events built in the shape their host returns
(``engine/host.py``), rendered to text the way the registry renders them.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from relavium_desktop.ui.chat.backend import KEY_POLICY
from relavium_desktop.ui.chat.transcript import Transcript
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.ui.chat_driver import type_and_enter
from tests.ui.words import assert_words_for_people

NUMBER = r"\d+(\.\d+)?"


def summaries(transcript: Transcript) -> list[str]:
    return [c.summary_text for c in transcript.cards()]


def test_chat_tools_say_what_they_did_and_a_reopened_session_says_the_same(
    chat, qtbot, llm_server: ScriptedLLMServer, project: Path
) -> None:
    window = chat.window()
    window.context.settings.setValue(KEY_POLICY, json.dumps({"allowedCommands": ["ls src"]}))
    window.context.set_mode("auto")
    (project / "src" / "pricing.py").write_text("PRICE = 100\n" * 10)
    notes = "".join(f"line {i}\n" for i in range(12))
    llm_server.script(
        Reply.call("read_file", {"path": "src/pricing.py"}),
        Reply.call("write_file", {"path": "notes.md", "content": notes}),
        Reply.call("list_directory", {"path": "src"}),
        Reply.call("run_command", {"command": "ls", "args": ["src"]}),
        Reply.call("run_command", {"command": "rm", "args": ["-rf", "src"]}),
    )
    with qtbot.waitSignal(chat.turn_finished, timeout=20_000):
        type_and_enter(qtbot, chat, "look around")
    # A refusal stops the turn; the next question is refused for another reason.
    llm_server.script(Reply.call("read_file", {"path": "../elsewhere.txt"}))
    with qtbot.waitSignal(chat.turn_finished, timeout=20_000):
        type_and_enter(qtbot, chat, "and the file next door?")
    live = summaries(chat.transcript)
    assert re.fullmatch(rf"Read src/pricing\.py · 10 lines · {NUMBER} ms", live[0]), live[0]
    assert live[1] == "Created notes.md · +12 · 86 B"
    assert live[2] == "Listed src · 2 entries"
    assert re.fullmatch(rf"Ran ls src · exit 0 · {NUMBER} (ms|s)", live[3]), live[3]
    assert live[4] == "Not allowed to run rm -rf src — the command is not on the allowed list"
    assert live[5] == "Not allowed to read ../elsewhere.txt — it is outside the project folder"
    # Every card is collapsed to that one line until opened.
    assert not any(c.expanded for c in chat.transcript.cards())
    assert_words_for_people(chat.transcript, "tool cards")  # no tool id or code on any card's line

    # Reopened from the store: the same lines, without the durations only the live call measured.
    session = chat.session_id
    chat.new_session()
    chat.open_session(session)
    stored = summaries(chat.transcript)
    assert stored[0] == "Read src/pricing.py · 10 lines"
    assert stored[1:3] == live[1:3]
    assert re.fullmatch(rf"Ran ls src · exit 0 · {NUMBER} (ms|s)", stored[3]), stored[3]
    assert stored[4:] == live[4:]


def test_expanding_a_card_shows_its_renderer(chat, qtbot, llm_server: ScriptedLLMServer, project: Path) -> None:
    window = chat.window()
    window.context.settings.setValue(KEY_POLICY, json.dumps({"allowedCommands": ["ls src"]}))
    window.context.set_mode("auto")
    llm_server.script(
        Reply.call("read_file", {"path": "src/app.py"}),
        Reply.call("write_file", {"path": "notes.md", "content": "one\ntwo\n"}),
        Reply.call("list_directory", {"path": ".", "recursive": True}),
        Reply.call("run_command", {"command": "ls", "args": ["src"]}),
        Reply.say("ok"),
    )
    with qtbot.waitSignal(chat.turn_finished, timeout=20_000):
        type_and_enter(qtbot, chat, "show me")
    read, write, listing, command = chat.transcript.cards()
    for card in (read, write, listing, command):
        qtbot.mouseClick(card.chevron, left())
        assert card.expanded
    # The file: a highlighted code block captioned with its path, with a Copy button.
    (code,) = read.result_view.findChildren(_code_block())
    assert code.code == "print('hello')\n" and code.caption.text() == "src/app.py"
    assert len(set(re.findall(r"color:\s*(#\w{6})", code.view.toHtml()))) >= 2
    # write_file: the change as a diff (a new file: every line added).
    assert write.result_view.toPlainText() == "+ one\n+ two"
    assert "diff_add" not in write.result_view.toPlainText()
    # list_directory: a tree, folders marked, children indented under them.
    assert listing.result_view.toPlainText().splitlines()[:3] == ["notes.md", "src/", "    app.py"]
    # run_command: the command line, its output, its exit code, in a terminal block.
    shown = command.result_view.toPlainText()
    assert shown.startswith("$ ls src\napp.py") and shown.endswith("exit 0")
    assert "{" not in shown  # never the JSON the model saw
    qtbot.mouseClick(read.chevron, left())
    assert not read.expanded


def _code_block() -> type:
    from relavium_desktop.ui.chat.code_block import CodeBlock

    return CodeBlock


def left():
    from relavium_desktop.ui.qt import Qt

    return Qt.MouseButton.LeftButton


# -- git through the real CLI ---------------------------------------------------------------


def _cli_events(workspace: Path, tool: str, args: dict, *extra: str) -> list[dict]:
    env = {**os.environ, "RELAVIUM_HOME": str(workspace.parent / "home")}
    done = subprocess.run(
        [sys.executable, "-m", "relavium_desktop.cli", "tool", "call", tool, "--args", json.dumps(args),
         "--workspace", str(workspace), *extra, "--json"],
        capture_output=True, text=True, timeout=60, env=env, check=False,
    )
    return json.loads(done.stdout)["events"]


def _feed(transcript: Transcript, events: list[dict]) -> None:
    for event in events:
        if event["type"] == "agent:tool_call":
            transcript.add_card(event["toolId"], event["toolInput"])
        elif event["type"] == "agent:tool_result":
            transcript.tool_result(event)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git = ["git", "-C", str(root)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "config", "user.email", "dev@example.com"], check=True)
    subprocess.run([*git, "config", "user.name", "Dev"], check=True)
    for name in ("a.txt", "b.txt", "c.txt"):
        (root / name).write_text(name + "\n")
    return root


def test_git_status_and_git_commit_summaries_from_real_runs(qtbot, repo: Path) -> None:
    transcript = Transcript()
    qtbot.addWidget(transcript)
    _feed(transcript, _cli_events(repo, "git_status", {"subcommand": "status"}))
    subprocess.run(["git", "-C", str(repo), "add", "a.txt"], check=True)
    _feed(transcript, _cli_events(repo, "git_commit", {"message": "Add a", "pathspecs": ["a.txt"]}, "--gate-approved"))
    _feed(transcript, _cli_events(repo, "git_commit", {"message": "Add b", "pathspecs": ["b.txt"]}))
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short=7", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()
    status, commit, ungated = transcript.cards()
    assert re.fullmatch(rf"Checked git status · 3 changed · {NUMBER} ms", status.summary_text), status.summary_text
    assert re.fullmatch(rf"Committed “Add a” · {head} · {NUMBER} ms", commit.summary_text), commit.summary_text
    assert ungated.summary_text == "Not allowed to commit “Add b” — it needs a person's approval at a gate"
    status.set_expanded(True)
    assert status.result_view.toPlainText().startswith("$ git status\nOn branch")


# -- tools that need the network, a desktop, an MCP server or a workflow: built events ----------


def _result(tool: str, tool_input: dict, result: object, *, ok: bool = True) -> tuple[str, dict, dict]:
    text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
    return tool, tool_input, {"toolId": tool, "success": ok, "outputSummary": text}


BUILT = [
    (_result("http_request", {"method": "GET", "url": "https://api.example.com/v1/items"},
             {"status": 200, "headers": {"content-type": "application/json"}, "body": json.dumps({"items": [1] * 400}),
              "url": "https://api.example.com/v1/items"}),
     "Fetched api.example.com/v1/items · 200 · 1.2 KB · "),
    (_result("web_search", {"query": "qasync event loop"},
             {"results": [{"title": f"Result {i}", "url": f"https://example.com/{i}", "snippet": "…"} for i in range(5)]}),
     "Searched the web for “qasync event loop” · 5 results · "),
    (_result("read_clipboard", {}, "x" * 120), "Read the clipboard · 120 chars"),
    (_result("read_clipboard", {"content": "image"},
             {"media": {"handle": "media://sha256-" + "cd" * 32, "sha256": "cd" * 32, "mimeType": "image/png",
                        "sizeBytes": 2048, "width": 37, "height": 21}, "note": "…"}),
     "Read the clipboard · image/png · 37×21 · 2.0 KB"),
    (_result("http_request", {"method": "GET", "url": "https://api.example.com/logo.png"},
             {"status": 200, "body": None, "url": "https://api.example.com/logo.png", "contentType": "image/png",
              "media": {"handle": "media://sha256-" + "ef" * 32, "mimeType": "image/png", "sizeBytes": 512,
                        "width": 16, "height": 16}}),
     "Fetched api.example.com/logo.png · 200 · image/png · 16×16 · "),
    (_result("notify", {"title": "Build finished"}, {"id": "n-1"}), "Notified “Build finished” · sent"),
    (_result("mcp_call", {"server": "files", "tool": "search", "arguments": {"q": "todo"}}, {"content": "3 hits"}),
     "Asked files for search · "),
    (_result("invoke_agent", {"nodeId": "reviewer", "input": "check it"}, {"verdict": "ok"}),
     "Asked the agent reviewer · "),
    (_result("read_media", {"handle": "media://sha256-" + "ab" * 32},
             {"mimeType": "image/png", "name": "diagram.png", "width": 800}),
     "Looked at media://sha256-abababa… · image/png · diagram.png"),
]


@pytest.mark.parametrize(("call", "expected"), BUILT, ids=[c[0][0] for c in BUILT])
def test_summaries_of_tools_that_cannot_run_here(qtbot, call, expected: str) -> None:
    transcript = Transcript()
    qtbot.addWidget(transcript)
    tool, tool_input, result = call
    card = transcript.add_card(tool, tool_input)
    transcript.tool_result(result)
    assert card.status == "done"
    text = card.summary_text
    assert text.startswith(expected) if expected.endswith(" · ") else text == expected, text
    card.set_expanded(True)
    shown = card.result_view.toPlainText()
    assert shown and '\\"' not in shown  # readable text, never the escaped JSON the model saw


def test_http_renderer_shows_status_line_and_headers_before_the_body(qtbot) -> None:
    transcript = Transcript()
    qtbot.addWidget(transcript)
    (tool, tool_input, result), _ = BUILT[0]
    card = transcript.add_card(tool, tool_input)
    transcript.tool_result(result)
    card.set_expanded(True)
    lines = card.result_view.toPlainText().splitlines()
    assert lines[:2] == ["HTTP 200  https://api.example.com/v1/items", "content-type: application/json"]
    assert lines[2].startswith('{"items": [1, 1')


@pytest.mark.parametrize(("reason", "message", "why", "sentence"), [
    ("outside_scope", "path is outside the allowed folders", "it is outside the project folder",
     "The path is outside the project folder."),
    ("commands_disabled", "run_command is disabled", "commands are off",
     "Commands are off: allow this command in Settings → Chat tools."),
    ("user_rejected", "You declined writing notes.md.", "you declined", "You declined writing notes.md."),
    ("protected_path", "refused: .ssh", "the path is protected",
     "This path is protected (keys, secrets, system files); tools never touch it."),
])
def test_refusals_say_why_in_words(qtbot, reason: str, message: str, why: str, sentence: str) -> None:
    transcript = Transcript()
    qtbot.addWidget(transcript)
    card = transcript.add_card("write_file", {"path": "notes.md", "content": "x"})
    transcript.tool_result({"toolId": "write_file", "success": False,
                            "error": {"code": "tool_denied", "reason": reason, "message": message}})
    assert card.status == "failed"
    # The line is a sentence for people: no tool id, no error or reason code.
    assert card.summary_text == f"Not allowed to write notes.md — {why}"
    for code in ("write_file", "tool_denied", reason):
        assert code not in card.summary_text
    assert card.dot.accessibleName() == "Failed or refused"
    card.set_expanded(True)
    details = card.details_text
    assert details.splitlines()[0] == sentence
    assert message in details
    assert f"tool_denied ({reason})" in details and "write_file" in details  # the codes are in the details
    assert_words_for_people(transcript, f"refused card ({reason})")


def test_a_call_whose_arguments_arrived_as_a_clipped_preview_still_names_its_file(qtbot) -> None:
    """Large arguments reach the view as the registry's clipped JSON preview, as here."""
    from relavium_desktop.engine.tools.bounding import render_for_model
    from relavium_desktop.engine.tools.masking import clip
    from relavium_desktop.engine.tools.registry import EVENT_INPUT_PREVIEW_CHARS

    content = "".join(f"row {i}\n" for i in range(5_000))
    preview = clip(render_for_model({"path": "data/rows.txt", "content": content}), EVENT_INPUT_PREVIEW_CHARS)
    transcript = Transcript()
    qtbot.addWidget(transcript)
    card = transcript.add_card("write_file", {"preview": preview})
    transcript.tool_result({"toolId": "write_file", "success": True,
                            "outputSummary": json.dumps({"path": "data/rows.txt", "bytesWritten": len(content)})})
    assert card.summary_text == "Wrote data/rows.txt · 42.9 KB"


def test_the_line_reads_as_a_sentence_while_running_and_after(qtbot) -> None:
    """A running call says what it is doing; a finished one says what it did, with a dot a screen reader names."""
    transcript = Transcript()
    qtbot.addWidget(transcript)
    card = transcript.add_card("write_file", {"path": "notes.md", "content": "a\nb\nc\n"})
    assert card.summary_text == "Writing notes.md…" and card.dot.accessibleName() == "Running"
    transcript.tool_result({"toolId": "write_file", "success": True,
                            "outputSummary": json.dumps({"path": "notes.md", "bytesWritten": 6})})
    assert card.summary_text == "Wrote notes.md · +3 · 6 B"
    assert card.verb.text() == "Wrote" and card.added.text() == "+3" and card.dot.accessibleName() == "Done"
    failing = transcript.add_card("run_command", {"command": "pytest", "args": ["-q"]})
    transcript.tool_result({"toolId": "run_command", "success": True, "durationMs": 2300,
                            "outputSummary": json.dumps({"exitCode": 1, "stdout": "", "stderr": "", "durationMs": 2300})})
    assert failing.summary_text.startswith("Ran pytest -q · exit 1")
    assert failing.dot.accessibleName() == "Finished with a problem"
    stopped = transcript.add_card("read_file", {"path": "big.log"})
    transcript.cancel_open_cards()
    assert stopped.summary_text == "Stopped before it could read big.log"
