"""Write PNG screenshots of the desktop app with demo data (for the README).

    .venv/bin/python packaging/screenshots.py [OUTDIR]

Runs under Xvfb: without a DISPLAY it starts a private Xvfb (-displayfd) and
re-runs itself on it.  Demo data lives in a throwaway RELAVIUM_HOME and a
demo project folder; no keyring is touched (the keyring backend is set to
"fail", so the Providers tab is not captured) and nothing leaves the machine.

The chat shot is a real turn, not a mock-up: the app's own chat view sends
the message to a small scripted OpenAI-dialect server on 127.0.0.1 (below;
configured through providers.yaml as a user would, with ``allow_local``),
and the tool calls it answers with run on the real host in the demo
project.  The Workflows shot is a real run of the no-LLM example
``folder-todos``.  Writes main-window.png, workflows.png,
permission-dialog.png and settings-permissions.png into
packaging/screenshots/ (or OUTDIR).  permission-dialog-spoof.png is the same dialog for a path whose
name hides a right-to-left override (``report<U+202E>gpj.sh``): it shows the marker, not "reporths.jpg".  The MCP servers shot tests the repo's own
SDK fixture server (tests/fixtures/mcp_server.py) over stdio, and a local
address nothing listens on for the failing one; the chat-mcp shot is a real
chat turn calling a discovered MCP tool, caught while it reports progress; the
chat-image shot pastes a drawn "screenshot" into the composer through the real
clipboard and sends it, then leaves a PDF waiting in the attachments strip.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
EXAMPLES = REPO / "resources" / "examples"
WINDOW_SIZE = (1440, 900)
SMALL_SIZE = (1024, 700)  # every main view is also shot here, as "NAME-1024.png"
THEMES = ("light", "dark")
SHOTS = ("identity.png", "welcome.png", "welcome-models.png", "main-window.png", "tool-card.png", "model-picker.png",
         "workflows.png", "history.png", "history-waterfall.png", "permission-dialog.png", "permission-dialog-spoof.png",
         "settings-permissions.png", "settings-providers.png", "settings-appearance.png", "settings-mcp.png",
         "chat-mcp.png", "chat-image.png", "quick-panel.png",
         "workflows-gate.png",
         *(f"{name}-1024.png" for name in ("main-window", "workflows", "workflows-gate", "history", "settings-permissions",
                                           "settings-providers", "settings-appearance", "settings-mcp",
                                           "chat-mcp", "welcome")))
# What the scripted server lists at GET /v1/models, as a local Ollama would.
LOCAL_MODELS = ("llama3.2:3b", "qwen2.5-coder:7b", "deepseek-r1:8b-llama-distill-q4_K_M", "gpt-4o-mini")
DEMO_KEY_ENV = "RELAVIUM_DEMO_KEY"  # a placeholder key: the scripted server ignores it
ROUTE = "openai/gpt-4o-mini"

PROMPT = "Raise the team plan price to $39. What else has to change?"
ANSWER = """\
The team plan is priced in one place, `src/pricing.py`:

| Plan | Now | After |
|---|---|---|
| starter | $9 | $9 |
| team | **$29** | **$39** |

To raise it:

1. Change `'team': 29` to `'team': 39` in `PLANS`:

```python
PLANS = {
    'starter': 9,
    'team': 39,
}
```

2. Update `tests/test_pricing.py`, which still expects `price('team') == 29`.
3. The pricing page copy in `README.md` mentions *$29/month*; change it too.

Say **go** and I'll make the three edits.
"""
# What the scripted model answers, in order: a tool call, then the answer.
SCRIPT: list[dict[str, Any]] = [
    {"text": "Let me look at how the plans are priced.", "call": ("read_file", {"path": "src/pricing.py"})},
    {"text": ANSWER, "usage": (1840, 212)},
    # The second turn ("go"): one edit, allowed once in the permission sheet, then the answer.
    {"text": "", "call": ("write_file", {"path": "README.md",
                                         "content": "# ACME website\n\nTeam plan: $39/month.\n"})},
    {"text": "Done: `README.md` now says **$39/month**. `src/pricing.py` and its test are next — "
             "shall I change them too?", "usage": (2310, 41)},
]
OLDER_SESSIONS = (
    ("Why are totals rounded down?", "Because `int()` truncates; use `round()`."),
    ("Summarise the TODOs in src/", "Two TODOs, both in `src/checkout.py`."),
)


@dataclass(frozen=True)
class Shots:
    """Where one theme's pictures go: light keeps the plain names the README links, dark adds -dark."""

    folder: Path
    theme: str

    def path(self, name: str) -> Path:
        return self.folder / (name if self.theme == "light" else name.replace(".png", f"-{self.theme}.png"))


async def _grab(window: Any, out: Shots, name: str) -> None:
    """The window at the design's size, then at the small laptop size, then back."""
    window.grab().save(str(out.path(name)))
    window.resize(*SMALL_SIZE)
    await _settle()
    window.grab().save(str(out.path(name.replace(".png", "-1024.png"))))
    window.resize(*WINDOW_SIZE)
    await _settle()


def _under_xvfb() -> int:
    read_fd, write_fd = os.pipe()
    xvfb = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_fd), "-nolisten", "tcp", "-screen", "0", "1600x1000x24"],
        pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    with os.fdopen(read_fd) as pipe:
        display = pipe.readline().strip()
    try:
        env = dict(os.environ, DISPLAY=f":{display}", QT_QPA_PLATFORM="xcb")
        return subprocess.call([sys.executable, __file__, *sys.argv[1:]], env=env)
    finally:
        xvfb.terminate()
        xvfb.wait(timeout=10)


# -- a scripted OpenAI-dialect model on 127.0.0.1 ----------------------------------------


class ScriptedModel:
    """Answers ``POST …/chat/completions`` with the next scripted reply as an SSE stream.

    Just enough of the OpenAI streaming wire format for the app's real
    provider client: text deltas, one tool call, finish reason, usage.
    """

    def __init__(self, replies: list[dict[str, Any]]) -> None:
        self.replies = deque(replies)
        model = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                body = json.dumps({"object": "list", "data": [
                    {"id": m, "object": "model", "created": 0, "owned_by": "demo"} for m in LOCAL_MODELS]}).encode()
                self.send_response(200 if self.path.endswith("/models") else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                reply = model.replies.popleft() if model.replies else {"text": "(end of the demo script)"}
                body = b"".join(model.chunks(reply))
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @staticmethod
    def chunks(reply: dict[str, Any]) -> list[bytes]:
        def sse(data: Any) -> bytes:
            return f"data: {data if isinstance(data, str) else json.dumps(data)}\n\n".encode()

        def chunk(delta: dict[str, Any], finish: str | None = None, usage: Any = None) -> bytes:
            body: dict[str, Any] = {"id": "chatcmpl-demo", "object": "chat.completion.chunk", "created": 0,
                                    "model": "gpt-4o-mini",
                                    "choices": [] if usage else [{"index": 0, "delta": delta,
                                                                  "finish_reason": finish}]}
            if usage:
                body["usage"] = usage
            return sse(body)

        text = str(reply.get("text", ""))
        out = [chunk({"role": "assistant", "content": ""})]
        out += [chunk({"content": text[i:i + 40]}) for i in range(0, len(text), 40)]
        if "call" in reply:
            name, args = reply["call"]
            out.append(chunk({"tool_calls": [{"index": 0, "id": f"call_{name}", "type": "function",
                                              "function": {"name": name, "arguments": json.dumps(args)}}]}))
        out.append(chunk({}, "tool_calls" if "call" in reply else "stop"))
        inp, outp = reply.get("usage", (620, 38))
        out.append(chunk({}, usage={"prompt_tokens": inp, "completion_tokens": outp, "total_tokens": inp + outp}))
        out.append(sse("[DONE]"))
        return out

    def __enter__(self) -> ScriptedModel:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


# -- demo data ------------------------------------------------------------------------


def _demo_project(root: Path) -> Path:
    project = root / "acme-website"
    files = {
        "src/pricing.py": "PLANS = {\n    'starter': 9,\n    'team': 29,\n}\n\n\n"
                          "def price(plan: str) -> int:\n    return PLANS[plan]\n",
        "src/checkout.py": "from src.pricing import price\n\n\n"
                           "def total(plan: str, seats: int) -> int:\n"
                           "    # TODO: volume discount above 50 seats\n"
                           "    return price(plan) * seats\n\n\n"
                           "def receipt(plan: str, seats: int) -> str:\n"
                           "    # TODO: localise the currency symbol\n"
                           "    return f'{seats} x {plan}: ${total(plan, seats)}'\n",
        "src/__init__.py": "",
        "tests/test_pricing.py": "from src.pricing import price\n\n\n"
                                 "def test_team_price() -> None:\n    assert price('team') == 29\n",
        "README.md": "# ACME website\n\nTeam plan: $29/month.\n",
    }
    for rel, text in files.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(text)
    (project / "workflows").mkdir()
    for name in ("folder-todos", "release-gate", "review-file", "test-and-notify"):
        shutil.copy(EXAMPLES / f"{name}.relavium.yaml", project / "workflows" / f"{name}.relavium.yaml")
    shutil.copytree(EXAMPLES / "agents", project / "workflows" / "agents")  # review-file's reviewer
    return project


def _providers(home: Path, base_url: str) -> None:
    """providers.yaml as a user keeps it: a key-less local server, a gateway keyed by env reference, a cloud."""
    home.mkdir(parents=True, exist_ok=True)
    os.environ[DEMO_KEY_ENV] = "sk-demo-not-a-real-key-0000000000"
    (home / "providers.yaml").write_text(json.dumps({"providers": {
        "openai": {"kind": "openai", "base_url": base_url, "api_key": f"env:{DEMO_KEY_ENV}", "allow_local": True},
        "ollama": {"kind": "openai", "base_url": base_url, "api_key": None, "allow_local": True},
        "anthropic": {"kind": "anthropic", "base_url": "https://api.anthropic.com",
                      "api_key": "secret:ANTHROPIC_API_KEY"},
    }}))


# -- shots ----------------------------------------------------------------------------


async def _until(check: Callable[[], object], what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError(f"screenshots: timed out waiting for {what}")
        await asyncio.sleep(0.05)


async def _settle() -> None:
    await asyncio.sleep(0.4)


async def _chat(window: Any, out: Shots) -> None:
    from relavium_desktop.engine.llm.messages import Message, TextPart

    view = window.chat_view
    backend = view.ensure_loaded()
    for question, answer in OLDER_SESSIONS:  # earlier sessions, stored as a finished chat stores them
        info = backend.store.create(title=question, agent_id="chat", mode="confirm")
        backend.store.append_message(info.id, Message.user(question))
        backend.store.append_message(info.id, Message("assistant", (TextPart(answer),)))
        await asyncio.sleep(0.01)  # distinct updated_at, so the list order is stable
    view.refresh_sessions()
    view.set_route(ROUTE)
    outcomes: list[str] = []
    view.turn_finished.connect(outcomes.append)
    view.send(PROMPT)
    await _until(lambda: outcomes, "the chat turn")
    if outcomes != ["completed"]:
        raise RuntimeError(f"screenshots: the demo chat turn ended {outcomes[0]}")
    # "go": the agent edits README.md; the user allows it once in the permission sheet.
    assert window.context.approvals is not None
    from relavium_desktop.ui.qt import QTimer

    window.context.approvals.dialog_opened.connect(lambda dialog: QTimer.singleShot(300, dialog.allow))
    view.send("go")
    await _until(lambda: len(outcomes) == 2, "the second chat turn")
    window.context.approvals.dialog_opened.disconnect()
    if outcomes[1] != "completed":
        raise RuntimeError(f"screenshots: the demo edit turn ended {outcomes[1]}")
    sessions = view.backend.store.list_sessions()
    view.rename_session(sessions[0].id, "Raise the team plan price")
    view.sessions.select(sessions[0].id)
    await _settle()
    await _grab(window, out, "main-window.png")
    view.transcript.cards()[0].set_expanded(True)  # the read_file card opened: the file, highlighted
    await _settle()
    window.grab().save(str(out.path("tool-card.png")))


async def _workflows(window: Any, out: Shots) -> str:
    from relavium_desktop.ui.shell import NAV_WORKFLOWS

    window.nav.setCurrentRow(NAV_WORKFLOWS)
    view = window.workflows_view
    await _until(lambda: len(view.entries) == 4, "the workflow list")
    view.open_workflow("workflows/folder-todos.relavium.yaml")
    view.inputs.set_value("glob", "src/**/*.py")
    results: list[Any] = []
    view.run_finished.connect(results.append)
    view.run_current()
    await _until(lambda: results, "the folder-todos run", timeout=60)
    if results[0].status != "completed":
        raise RuntimeError(f"screenshots: the folder-todos run ended {results[0].status}")
    view.timeline.select("collect")
    await _settle()
    await _grab(window, out, "workflows.png")
    await _workflow_gate(view, window, out)
    return str(results[0].run_id)


async def _workflow_gate(view: Any, window: Any, out: Shots) -> None:
    """The release-gate example paused at its human gate, answered in the page's right-hand panel."""
    view.open_workflow("workflows/release-gate.relavium.yaml")
    view.inputs.set_value("version", "1.2.0")
    results: list[Any] = []
    view.run_finished.connect(results.append)
    view.run_current()
    await _until(lambda: results, "the release-gate run", timeout=60)
    if results[0].status != "paused":
        raise RuntimeError(f"screenshots: the release-gate run ended {results[0].status}, not at its gate")
    if view.gates.pending is not None:
        view.gates.pending.close()  # answered in the panel, as the design shows, not in the pop-up
    await _until(view.gate_panel.isVisible, "the gate panel")
    await _settle()
    await _grab(window, out, "workflows-gate.png")


async def _history(window: Any, out: Shots, run_id: str) -> None:
    """Runs / History on the run just made: local times, the timeline, then the waterfall."""
    view = window.show_runs()
    await _until(lambda: any(r["id"] == run_id for r in view.runs), "the run in History")
    if not await view.show_run(run_id):
        raise RuntimeError("screenshots: History could not open the demo run")
    await _settle()
    await _grab(window, out, "history.png")
    view.detail_tabs.setCurrentIndex(1)
    await _settle()
    window.grab().save(str(out.path("history-waterfall.png")))


async def _permission(window: Any, project: Path, out: Shots) -> None:
    from relavium_desktop.engine.tools.tooldef import ActionClass, ApprovalRequest

    request = ApprovalRequest(
        tool_id="write_file", action_class=ActionClass.FS_WRITE, target="src/pricing.py",
        masked_args={
            "path": "src/pricing.py",
            "content": "PLANS = {\n    'starter': 9,\n    'team': 39,\n}\n\n\n"
                       "def price(plan: str) -> int:\n    return PLANS[plan]\n",
        },
        node_id="chat",
    )
    assert window.context.approvals is not None
    opened: list[Any] = []
    window.context.approvals.dialog_opened.connect(opened.append)
    pending = asyncio.ensure_future(window.context.approvals.confirm(request))
    await _until(lambda: opened, "the permission dialog")
    await _settle()
    opened[0].grab().save(str(out.path("permission-dialog.png")))
    opened[0].reject()
    await pending


async def _permission_spoof(window: Any, out: Shots) -> None:
    """The dialog for a name with a right-to-left override: the marker shows, the shell script is named."""
    from relavium_desktop.engine.tools.tooldef import ActionClass, ApprovalRequest

    path = "scripts/report\u202egpj.sh"
    request = ApprovalRequest(
        tool_id="write_file", action_class=ActionClass.FS_WRITE, target=path,
        masked_args={"path": path, "content": "#!/bin/sh\necho 'quarterly report'\n"}, node_id="chat",
    )
    assert window.context.approvals is not None
    opened: list[Any] = []
    window.context.approvals.dialog_opened.connect(opened.append)
    pending = asyncio.ensure_future(window.context.approvals.confirm(request))
    await _until(lambda: opened, "the permission dialog for a spoofed name")
    await _settle()
    opened[0].grab().save(str(out.path("permission-dialog-spoof.png")))
    opened[0].reject()
    await pending


def _grant_demo_permissions(window: Any, project: Path) -> None:
    """"Always allow in this project" answers a user gave earlier (Settings → Permissions lists them)."""
    from relavium_desktop.engine.tools.tooldef import ActionClass, ApprovalRequest

    assert window.context.grants is not None
    window.context.grants.add(str(project), ApprovalRequest(
        "write_file", ActionClass.FS_WRITE, "TODO-report.md", {"path": "TODO-report.md", "content": ""}, "write"))
    window.context.grants.add(str(project), ApprovalRequest(
        "write_file", ActionClass.FS_WRITE, "docs/guide.md", {"path": "docs/guide.md", "content": ""}, "chat"))
    window.context.grants.add(str(project), ApprovalRequest(
        "run_command", ActionClass.PROCESS, "npm test", {"command": "npm", "args": ["test"]}, "chat"))


async def _welcome(out: Shots, port: int) -> None:
    """The first start on a fresh data folder: the welcome flow finds the local model server."""
    from relavium_desktop.application.local_servers import LocalServerKind
    from relavium_desktop.ui.shell import MainWindow

    window = MainWindow(local_servers=[LocalServerKind("Ollama", "ollama", port)])
    window.resize(*WINDOW_SIZE)
    window.show()
    welcome = window.welcome_view
    if welcome is None:
        raise RuntimeError("screenshots: a fresh data folder did not open the welcome flow")
    welcome.look_for_local()
    await _until(lambda: welcome.local_list.count() == 1, "the local model server")
    await _settle()
    await _grab(window, out, "welcome.png")
    welcome.pick_local(0)
    await _until(lambda: welcome.model_list.count() == len(LOCAL_MODELS), "the local model list")
    welcome.model_list.setCurrentRow(1)
    await _settle()
    window.grab().save(str(out.path("welcome-models.png")))
    welcome.skip_all.click()
    window.close()


async def _model_picker(window: Any, out: Shots) -> None:
    """The picker open: models grouped under each provider with its readiness.

    The open list is a popup window of its own, so it is painted onto the
    window's picture where it sits (a screen grab would also catch whatever
    else the display shows).
    """
    from relavium_desktop.ui.qt import QPainter, QPoint

    view = window.chat_view
    await _until(lambda: not view.models.busy and view.models.fetched, "the model lists")
    view.model_combo.showPopup()
    await _settle()
    popup = view.model_combo.view().window()
    shot = window.grab()
    painter = QPainter(shot)
    painter.drawPixmap(window.mapFromGlobal(popup.mapToGlobal(QPoint(0, 0))), popup.grab())
    painter.end()
    shot.save(str(out.path("model-picker.png")))
    view.model_combo.hidePopup()


async def _settings_mcp(window: Any, out: Shots, home: Path, project: Path) -> None:
    """Settings → MCP servers: a tested server with its allowlist, a failing one, an untested one, a consent."""
    fixture = REPO / "tests" / "fixtures" / "mcp_server.py"
    (home / "mcp.yaml").write_text(
        "# The demo's MCP servers (the app keeps this comment)\nservers:\n"
        f"  demo-tools:\n    transport: stdio\n    command: {sys.executable}\n    args: [{fixture}, stdio]\n"
        "    toolsAllowlist: [add, echo, sleep, pid]\n"
        "  docs:\n    transport: http\n    url: http://127.0.0.1:9/mcp\n    allowLocal: true\n"
        "  search:\n    transport: http\n    url: https://localhost:9/mcp\n    credentialRef: secret:search-token\n"
        "    allowLocal: true\n")
    store = window.context.app.consents()  # the window's own consent store (shared: the window closes it)
    store.grant(str(project), "repo-tools", "a" * 64, command="npx", args=("-y", "@acme/repo-tools@1.4.2"),
                env_names=("LOG_LEVEL",), cwd=str(project))
    page = window.show_settings("mcp").mcp
    page.check_file()
    page.refresh_consents()
    for name in ("docs", "demo-tools"):
        page.select(name)
        page.test_server(name)
    await _until(lambda: not page.testing, "the MCP server tests", timeout=40)
    page.select("demo-tools")
    await _settle()
    await _grab(window, out, "settings-mcp.png")


async def _chat_mcp(window: Any, out: Shots, home: Path, model: ScriptedModel, tmp: Path) -> None:
    """The chat with MCP servers: the status line (tools found, one server down) and a tool card's progress.

    The tool is the test suite's chat fixture server (tests/fixtures/mcp_chat_server.py) over stdio; its
    ``countdown`` holds after the first step until a gate file exists, so the card is shot mid-call.
    """
    from relavium_desktop.ui.shell import NAV_CHAT

    fixture = REPO / "tests" / "fixtures" / "mcp_chat_server.py"
    gate = tmp / "mcp-gate"
    (home / "mcp.yaml").write_text(
        "servers:\n"
        f"  files:\n    transport: stdio\n    command: {sys.executable}\n    args: [{fixture}, serve, {gate}]\n"
        "  docs:\n    transport: http\n    url: http://127.0.0.1:9/mcp\n    allowLocal: true\n")
    window.nav.setCurrentRow(NAV_CHAT)
    view = window.chat_view
    view.mcp.refresh()
    await _until(lambda: not view.mcp.running and "mcp_files_countdown" in view.mcp.tool_ids(),
                 "the chat's MCP discovery", timeout=40)
    mode = window.context.mode
    window.context.set_mode("auto")
    model.replies.extend([
        {"text": "I'll re-index the docs with the project's indexer.", "call": ("mcp_files_countdown", {"steps": 4})},
        {"text": "Re-indexed: 4 steps done."},
    ])
    view.new_session()
    outcomes: list[str] = []
    view.turn_finished.connect(outcomes.append)
    view.send("Re-index the docs folder")
    await _until(lambda: view.transcript.cards() and view.transcript.cards()[-1].progress_bar is not None,
                 "the MCP tool's progress")
    await _settle()
    await _grab(window, out, "chat-mcp.png")
    gate.write_text("go")
    await _until(lambda: outcomes, "the MCP chat turn", timeout=40)
    window.context.set_mode(mode)


def _error_screenshot() -> Any:
    """A small picture of an error dialog, drawn here: what a user pastes to ask "what is this?"."""
    from relavium_desktop.ui.qt import QColor, QFont, QImage, QPainter, QRect, Qt

    image = QImage(520, 200, QImage.Format.Format_RGB32)
    image.fill(QColor("#f4f4f5"))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.fillRect(QRect(0, 0, 520, 36), QColor("#b42318"))
    font = QFont()
    font.setPointSize(12)
    font.setBold(True)
    painter.setFont(font)
    painter.setPen(QColor("#ffffff"))
    painter.drawText(QRect(14, 0, 500, 36), int(Qt.AlignmentFlag.AlignVCenter), "Checkout failed")
    font.setBold(False)
    font.setPointSize(11)
    painter.setFont(font)
    painter.setPen(QColor("#18181b"))
    painter.drawText(QRect(14, 52, 500, 80), int(Qt.TextFlag.TextWordWrap),
                     "TypeError: unsupported operand type(s) for *: 'NoneType' and 'int'\n"
                     "  File \"src/checkout.py\", line 14, in total")
    painter.fillRect(QRect(400, 150, 100, 32), QColor("#e4e4e7"))
    painter.drawText(QRect(400, 150, 100, 32), int(Qt.AlignmentFlag.AlignCenter), "Close")
    painter.end()
    return image


async def _chat_image(window: Any, out: Shots, model: ScriptedModel, tmp: Path) -> None:
    """A pasted screenshot sent with a question (its thumbnail in the transcript), and a PDF waiting to go."""
    from relavium_desktop.ui.qt import QGuiApplication
    from relavium_desktop.ui.shell import NAV_CHAT

    window.nav.setCurrentRow(NAV_CHAT)
    view = window.chat_view
    view.new_session()
    QGuiApplication.clipboard().setImage(_error_screenshot())
    view.composer.setFocus()
    view.composer.paste()
    await _until(lambda: view.attachments.items and view.attachments.items[0].ready, "the pasted image")
    model.replies.append({"text": (
        "The checkout crashed in `total()` at `src/checkout.py:14`: one item has no price (`None`), "
        "and `None * quantity` raises the `TypeError`.\n\nSkip items without a price, or give them a "
        "default of `0` before multiplying. Want me to make that change?")})
    outcomes: list[str] = []
    view.turn_finished.connect(outcomes.append)
    view.send("What is this error?")
    await _until(lambda: outcomes, "the image chat turn", timeout=40)
    await _until(lambda: all(t.loaded for m in view.transcript.messages() if m.attachments is not None
                             for t in m.attachments.thumbnails), "the transcript thumbnail")
    invoice = tmp / "invoice-march.pdf"
    invoice.write_bytes(b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")
    view.attachments.add_files([str(invoice)])
    await _until(lambda: len(view.attachments.items) == 1 and view.attachments.items[0].ready, "the PDF")
    view.composer.setPlainText("And does this invoice charge the same total?")
    await _settle()
    window.grab().save(str(out.path("chat-image.png")))
    view.attachments.clear()
    view.composer.clear()


def _identity(window: Any, out: Shots) -> None:
    """The app icon and the tray's three states as a desktop shows them.

    Xvfb has no window manager and no panel, so the title bar and the tray
    are drawn here from the very icons the app hands to them (the window
    icon, ``Tray``'s state icons), at the sizes a panel uses.
    """
    from relavium_desktop.ui.identity import app_icon, tray_icon
    from relavium_desktop.ui.qt import QFont, QPainter, QPixmap, QRect, Qt

    shot = QPixmap(720, 220)
    shot.fill(window.context.theme.qcolor("window"))
    painter = QPainter(shot)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.drawPixmap(24, 24, app_icon().pixmap(128, 128))
    title = QFont(window.font())
    title.setPointSizeF(title.pointSizeF() * 1.8)
    title.setBold(True)
    painter.setFont(title)
    painter.setPen(window.context.theme.qcolor("text"))
    painter.drawText(QRect(176, 40, 520, 48), int(Qt.AlignmentFlag.AlignVCenter), "Relavium Desktop")
    painter.setFont(window.font())
    painter.setPen(window.context.theme.qcolor("muted"))
    painter.drawText(QRect(176, 88, 520, 24), int(Qt.AlignmentFlag.AlignVCenter),
                     "The window, task switcher and notifications use this icon.")
    painter.fillRect(QRect(176, 136, 520, 56), window.context.theme.qcolor("surface_alt"))
    for index, state in enumerate(("idle", "working", "attention")):
        x = 192 + index * 168
        painter.drawPixmap(x, 153, tray_icon(state).pixmap(22, 22))
        painter.setPen(window.context.theme.qcolor("text"))
        painter.drawText(QRect(x + 30, 150, 130, 28), int(Qt.AlignmentFlag.AlignVCenter), f"tray: {state}")
    painter.end()
    shot.save(str(out.path("identity.png")))


async def _shoot(out: Shots, project: Path, model: ScriptedModel, home: Path) -> None:
    from relavium_desktop.ui.qt import QApplication
    from relavium_desktop.ui.shell import MainWindow

    app = QApplication.instance()
    await _welcome(out, model.port)
    _providers(home, model.base_url)
    window = MainWindow()
    window.context.set_project(str(project))
    window.resize(*WINDOW_SIZE)
    window.show()
    window.context.ensure_services()
    await _settle()
    _grant_demo_permissions(window, project)
    _identity(window, out)

    await _chat(window, out)
    await _model_picker(window, out)
    run_id = await _workflows(window, out)
    await _history(window, out, run_id)
    await _permission(window, project, out)
    await _permission_spoof(window, out)

    window.show_settings("permissions")
    await _settle()
    await _grab(window, out, "settings-permissions.png")
    window.show_settings("providers")
    await _until(lambda: all(r.status.text() != "…" for r in window.settings_view.providers.rows.values()),
                 "the provider key states")
    await _settle()
    await _grab(window, out, "settings-providers.png")
    window.show_settings("appearance")
    await _settle()
    await _grab(window, out, "settings-appearance.png")
    await _settings_mcp(window, out, home, project)
    await _chat_mcp(window, out, home, model, project.parent)
    await _chat_image(window, out, model, project.parent)
    await _quick_panel(window, out, model)
    window.close()
    if app is not None:
        app.processEvents()


COPIED_NOTES = """Weekly sync, 2 Dec
- Ana will review the pricing change before Friday
- Marco to write the release note for 1.2.0
- Decide on the trial length next week"""
QUICK_ANSWER = """**Action items**

- [ ] Ana: review the pricing change (due Friday)
- [ ] Marco: write the release note for `1.2.0`
- [ ] Everyone: decide on the trial length next week
"""


async def _quick_panel(window: Any, out: Shots, model: ScriptedModel) -> None:
    """Process what I copied: meeting notes on the real clipboard, the first action run by the scripted model."""
    from relavium_desktop.ui.qt import QApplication

    QApplication.clipboard().setText(COPIED_NOTES)
    model.replies.clear()
    model.replies.append({"text": QUICK_ANSWER})
    window.process_clipboard()
    await _until(lambda: window.quick_panel is not None and window.quick_panel.isVisible(), "the quick panel")
    panel = window.quick_panel
    panel.action_list.item(0).click()
    await _until(panel.copy_button.isEnabled, "the quick panel's result", timeout=30)
    await _settle()
    panel.grab().save(str(out.path("quick-panel.png")))
    panel.close()


def _args() -> tuple[Path, str | None]:
    """``[OUT] [--theme light|dark]``: without a theme, each theme is shot in a process of its own."""
    args = sys.argv[1:]
    theme = None
    if "--theme" in args:
        at = args.index("--theme")
        theme = args[at + 1]
        del args[at:at + 2]
        if theme not in THEMES:
            raise SystemExit(f"screenshots: --theme is one of {', '.join(THEMES)}")
    return (Path(args[0]) if args else HERE / "screenshots"), theme


def main() -> int:
    if not os.environ.get("DISPLAY"):
        return _under_xvfb()
    folder, theme = _args()
    folder.mkdir(parents=True, exist_ok=True)
    if theme is None:
        # One QApplication, data folder and scripted model per theme: the same demo, shot twice.
        for each in THEMES:
            code = subprocess.call([sys.executable, __file__, str(folder), "--theme", each])
            if code:
                return code
        return 0
    out = Shots(folder, theme)
    sys.path.insert(0, str(REPO))
    with tempfile.TemporaryDirectory(prefix="relavium-demo-") as tmp, ScriptedModel(SCRIPT) as model:
        home = Path(tmp) / "home"
        os.environ["RELAVIUM_HOME"] = str(home)
        os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
        project = _demo_project(Path(tmp))
        import qasync

        from relavium_desktop.ui import app_settings as keys
        from relavium_desktop.ui.qt import QApplication

        settings = keys.ui_settings(home)  # the theme a user picked in Settings → Appearance
        settings.setValue(keys.KEY_THEME, theme)
        # No desktop notifications from the demo: they would land on the user's real desktop.
        settings.setValue(keys.KEY_NOTIFY_RUNS, False)
        settings.setValue(keys.KEY_NOTIFY_APPROVALS, False)
        settings.sync()
        app = QApplication.instance() or QApplication(sys.argv[:1])
        app.setApplicationDisplayName("Relavium Desktop")
        loop = qasync.QEventLoop(app)
        asyncio.set_event_loop(loop)
        with loop:
            loop.run_until_complete(_shoot(out, project, model, home))
    for name in SHOTS:
        print(out.path(name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
