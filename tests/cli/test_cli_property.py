"""Issue 11, acceptance 2: ``relavium tool call`` survives any JSON arguments.

For every built-in tool, hypothesis draws an arguments object -- the tool's
real parameter names with values of any type, stray keys, lone surrogates,
strings up to ~100 KB, nesting up to ~6 levels, huge integers, huge and
non-finite floats -- and runs ``relavium tool call ID --args @file
--workspace <fresh tmp> --json``.  Every run must print exactly one JSON
document (valid UTF-8), exit 0, 1 or 2, never write a traceback to stderr and
never report an internal error.

Most examples run the CLI in-process through ``relavium_desktop.cli.main``
(stdout/stderr captured as bytes), which also lets the test prove that no
example resolves a name or opens a network connection; a smaller set runs
the real console script as a subprocess.  Nothing can reach the network or
run a program: no ``--policy`` is given, so ``allowedDomains`` and
``allowedCommands`` are absent (http_request and run_command are refused
before any lookup), web_search's provider URL is pinned by ``--config`` to a
loopback literal the SSRF rule refuses without DNS, and git_commit needs a
gate.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from relavium_desktop.cli import main
from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS
from relavium_desktop.engine.tools.registry import ToolRegistry
from tests.conftest import relavium_cmd

# The same description ``relavium tools list --json`` prints (checked below).
SCHEMAS: dict[str, dict[str, Any]] = {
    t["id"]: t["parameters"] for t in ToolRegistry(BUILTIN_TOOLS, ToolHost()).describe()
}
TOOL_IDS = sorted(SCHEMAS)
# Per tool: 24 in-process + 3 subprocess examples -> 13 tools give 312 + 39 runs.
IN_PROCESS_EXAMPLES = 24
SUBPROCESS_EXAMPLES = 3
# web_search's provider URL is config-only: pin it where the SSRF rule refuses it without DNS.
EXTRA_ARGV: dict[str, list[str]] = {"web_search": ["--config", '{"baseUrl": "https://127.0.0.1:9/"}']}

# -- the arguments -----------------------------------------------------------------------

surrogates = st.integers(0xD800, 0xDFFF).map(chr)  # characters() never yields category Cs
chars = st.one_of(st.characters(), surrogates)
short_text = st.text(chars, max_size=24)
plausible = st.sampled_from([
    "", ".", "..", "a.txt", "sub/new.txt", "../outside.txt", "/etc/passwd", "~/.ssh/id_rsa", "*", "**/*",
    "git", "status", "ls", "true", "GET", "POST", "https://127.0.0.1/", "https://example.invalid/x",
    "http://localhost/", "file:///etc/passwd", "media://sha256-" + "0" * 64, "secret:NAME", "\ud800",
    "a\udcffb", "\x00", "é\u202e", "x" * 300,
])
big_text = st.builds(lambda piece, n: (piece or "x") * (n // max(1, len(piece))), short_text,
                     st.integers(1_000, 100_000))
strings = st.one_of(short_text, short_text, plausible, plausible, big_text)
integers = st.one_of(st.integers(-10, 10), st.integers(), st.integers(-(10**400), 10**400),
                     st.sampled_from([2**63, -(2**63) - 1, 10**1000]))
floats = st.one_of(st.floats(), st.sampled_from([1e308, -1e308, 5e-324, float("inf"), float("nan")]))
scalars = st.one_of(st.none(), st.booleans(), integers, floats, strings)


def _nested(depth: int) -> st.SearchStrategy[Any]:
    if depth == 0:
        return scalars
    inner = _nested(depth - 1)
    return st.one_of(scalars, st.lists(inner, max_size=3), st.dictionaries(short_text, inner, max_size=3))


values = st.one_of(scalars, scalars, _nested(2), _nested(6))


def typed(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values of the type a parameter's JSON Schema names (so that calls get past validation too)."""
    if "anyOf" in schema:
        return st.one_of([typed(s) for s in schema["anyOf"]])
    kind = schema.get("type")
    if "enum" in schema:
        return st.one_of(st.sampled_from(schema["enum"]), strings)
    if kind == "string":
        return strings
    if kind == "integer":
        lo, hi = schema.get("minimum"), schema.get("maximum")
        return st.one_of(st.integers(lo, hi), integers) if lo is not None or hi is not None else integers
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        return st.lists(typed(schema.get("items", {})), max_size=5)
    if kind == "object":
        extra = schema.get("additionalProperties")
        return st.dictionaries(short_text, typed(extra) if isinstance(extra, dict) else values, max_size=4)
    return values


@st.composite
def arguments(draw: st.DrawFn, tool_id: str) -> dict[str, Any]:
    """The tool's real parameter names, mostly with values of their type, sometimes of any type."""
    schema = SCHEMAS[tool_id]
    required = set(schema.get("required", []))
    args: dict[str, Any] = {}
    for name, prop in sorted(schema.get("properties", {}).items()):
        if draw(st.integers(0, 9)) < (8 if name in required else 5):  # present?
            args[name] = draw(typed(prop) if draw(st.integers(0, 9)) < 8 else values)  # mostly the right type
    if draw(st.integers(0, 5)) == 5:  # a stray key or two (hypothesis favours small draws)
        args.update(draw(st.dictionaries(short_text, values, max_size=2)))
    return args


# -- running one call --------------------------------------------------------------------


def _args_file(folder: Path, args: dict[str, Any]) -> Path:
    path = folder / "args.json"
    # ensure_ascii: lone surrogates travel as \udXXX escapes; inf/nan as Infinity/NaN,
    # which json.loads (and so the CLI) accepts.
    path.write_text(json.dumps(args), encoding="ascii")
    return path


def _argv(tool_id: str, args_path: Path, ws: Path) -> list[str]:
    return ["tool", "call", tool_id, "--args", f"@{args_path}", "--workspace", str(ws), *EXTRA_ARGV.get(tool_id, []),
            "--json"]


def _check(tool_id: str, code: int, out: bytes, err: str) -> None:
    assert "Traceback" not in err, err
    assert code in (0, 1, 2), (code, err)
    text = out.decode("utf-8")  # strict: what UTF-8 cannot carry must have been escaped
    assert text.endswith("\n") and text.count("\n") == 1, (code, text[:300], err)
    doc = json.loads(text)
    assert isinstance(doc, dict) and doc["ok"] is (code == 0), doc
    event(f"exit {code}: {'ok' if doc['ok'] else doc['error']['code'] + '/' + str(doc['error'].get('reason'))}")
    if not doc["ok"]:
        assert doc["error"]["code"] != "internal", doc["error"]
        assert doc["tool"] == tool_id


@contextlib.contextmanager
def _fresh_dirs() -> Iterator[tuple[Path, Path]]:
    with tempfile.TemporaryDirectory(prefix="relavium-prop-") as tmp:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        yield Path(tmp), ws


class _StrictUtf8Out(io.TextIOBase):
    """A UTF-8 stdout that fails on what UTF-8 cannot carry, and cannot be reconfigured to hide it."""

    encoding = "utf-8"

    def __init__(self) -> None:
        super().__init__()
        self.data = io.BytesIO()

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.data.write(text.encode("utf-8"))  # strict
        return len(text)


class _NoNetwork:
    """Records (and refuses) every name lookup and every IP connection made in-process."""

    def __init__(self) -> None:
        self.attempts: list[str] = []

    def getaddrinfo(self, host: Any, *rest: Any, **kw: Any) -> Any:
        self.attempts.append(f"getaddrinfo {host!r}")
        raise socket.gaierror(socket.EAI_NONAME, "network use in a property test")

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        real_connect = socket.socket.connect
        attempts = self.attempts

        def connect(sock: socket.socket, address: Any) -> Any:
            if sock.family in (socket.AF_INET, socket.AF_INET6):
                attempts.append(f"connect {address!r}")
                raise OSError("network use in a property test")
            return real_connect(sock, address)

        monkeypatch.setattr(socket, "getaddrinfo", self.getaddrinfo)
        monkeypatch.setattr(socket.socket, "connect", connect)


@pytest.fixture(scope="module")
def home_dir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="relavium-prop-home-") as tmp:
        yield Path(tmp)


def test_the_tools_are_the_ones_the_cli_lists(cli_env: dict[str, str]) -> None:
    proc = subprocess.run([*relavium_cmd(), "tools", "list", "--json"], env=cli_env, capture_output=True,
                          timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    listed = {t["id"]: t["parameters"] for t in json.loads(proc.stdout)}
    assert listed == SCHEMAS


@pytest.mark.parametrize("tool_id", TOOL_IDS)
@settings(max_examples=IN_PROCESS_EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture, HealthCheck.large_base_example])
@given(data=st.data())
def test_tool_call_in_process_prints_one_json_document(
    tool_id: str, data: st.DataObject, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
    home_dir: Path,
) -> None:
    args = data.draw(arguments(tool_id), label="args")
    caplog.clear()
    monkeypatch.setenv("HOME", str(home_dir))
    monkeypatch.delenv("RELAVIUM_DEBUG", raising=False)
    guard = _NoNetwork()
    with _fresh_dirs() as (tmp, ws), monkeypatch.context() as patch:
        guard.install(patch)
        out, err_bytes = _StrictUtf8Out(), io.BytesIO()
        err = io.TextIOWrapper(err_bytes, encoding="utf-8", errors="backslashreplace", write_through=True)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(_argv(tool_id, _args_file(tmp, args), ws))
            err.flush()
    assert guard.attempts == [], guard.attempts
    # What a real process would print to stderr through logging's last resort (e.g. asyncio's
    # "Exception in callback ..." with its traceback) is captured by pytest here instead.
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
    _check(tool_id, code, out.data.getvalue(), err_bytes.getvalue().decode("utf-8"))


@pytest.mark.parametrize("tool_id", TOOL_IDS)
@settings(max_examples=SUBPROCESS_EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture, HealthCheck.large_base_example])
@given(data=st.data())
def test_tool_call_as_a_real_process_prints_one_json_document(
    tool_id: str, data: st.DataObject, cli_env: dict[str, str], home_dir: Path
) -> None:
    args = data.draw(arguments(tool_id), label="args")
    env = {**cli_env, "HOME": str(home_dir)}
    env.pop("RELAVIUM_DEBUG", None)
    with _fresh_dirs() as (tmp, ws):
        proc = subprocess.run([*relavium_cmd(), *_argv(tool_id, _args_file(tmp, args), ws)], env=env,
                              capture_output=True, timeout=60, check=False)
    _check(tool_id, proc.returncode, proc.stdout, proc.stderr.decode("utf-8", "replace"))


def test_the_network_guard_catches_a_lookup(monkeypatch: pytest.MonkeyPatch) -> None:
    """The in-process guard is real: a lookup and an IP connect are both recorded."""
    guard = _NoNetwork()
    guard.install(monkeypatch)
    with pytest.raises(OSError):
        socket.getaddrinfo("example.invalid", 443)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s, pytest.raises(OSError):
        s.connect(("127.0.0.1", 9))
    assert len(guard.attempts) == 2
    assert os.environ.get("RELAVIUM_HOME")  # every test runs against its own data dir
