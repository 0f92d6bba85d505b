"""Escape tests through the real ``relavium tool call run_command``: what each sandbox mode lets out.

An allowlisted interpreter runs a script that tries every escape the issue
lists -- write ``~/.bashrc``, ``~/.ssh/authorized_keys``, a sibling project
and ``/tmp`` outside its private folder; read ``~/.aws/credentials``; connect
to a TCP server the test runs on loopback; signal its parent; connect to an
abstract UNIX socket the test listens on -- and reports each outcome.  The
home is a temporary one (``$HOME`` of the CLI) holding real files; the
sandbox denies its credential folders by name and grants nothing of it.
"""

from __future__ import annotations

import json
import socket
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from relavium_desktop.host.process.sandbox import ABI_CAP_VAR
from tests.helpers import run_cli

ESCAPE_SCRIPT = r'''
import json, os, signal, socket, sys
targets = json.load(open("targets.json"))
out = {}
def attempt(name, action):
    try:
        action()
        out[name] = "ok"
    except OSError as exc:
        out[name] = f"blocked: {exc.strerror}"
def write(path):
    with open(path, "a") as f:
        f.write("# escaped\n")
def read(path):
    open(path).read()
def tcp():
    with socket.create_connection(("127.0.0.1", targets["port"]), timeout=5) as s:
        s.sendall(b"x")
def abstract():
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect("\0" + targets["abstract"])
attempt("bashrc", lambda: write(targets["bashrc"]))
attempt("authorized_keys", lambda: write(targets["authorized_keys"]))
attempt("sibling", lambda: write(targets["sibling"]))
attempt("tmp", lambda: write(targets["tmp"]))
attempt("aws", lambda: read(targets["aws"]))
attempt("tcp", tcp)
attempt("signal", lambda: os.kill(os.getppid(), signal.SIGCONT))
attempt("abstract", abstract)
attempt("workspace", lambda: write("inside.txt"))
attempt("private_tmp", lambda: write(os.path.join(os.environ["TMPDIR"], "t")))
print(json.dumps(out))
'''
ESCAPES = ("bashrc", "authorized_keys", "sibling", "tmp", "aws", "tcp", "signal", "abstract")


@pytest.fixture
def listeners() -> Iterator[tuple[int, str]]:
    """A loopback TCP server and an abstract UNIX socket, both outside any sandbox."""
    tcp = socket.create_server(("127.0.0.1", 0))
    name = f"relavium-escape-{uuid.uuid4().hex}"
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    unix.bind("\0" + name)
    unix.listen()
    stop = threading.Event()

    def serve(sock: socket.socket) -> None:
        sock.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
                conn.close()
            except OSError:
                continue

    threads = [threading.Thread(target=serve, args=(s,), daemon=True) for s in (tcp, unix)]
    for t in threads:
        t.start()
    try:
        yield tcp.getsockname()[1], name
    finally:
        stop.set()
        for t in threads:
            t.join(2)
        tcp.close()
        unix.close()


@pytest.fixture
def world(tmp_path: Path, listeners: tuple[int, str]) -> Iterator[dict[str, Path]]:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".aws").mkdir()
    (home / ".bashrc").write_text("# bashrc\n")
    (home / ".ssh" / "authorized_keys").write_text("ssh-ed25519 AAAA test\n")
    (home / ".aws" / "credentials").write_text("[default]\naws_secret_access_key = not-a-real-key\n")
    project = tmp_path / "project"
    sibling = tmp_path / "sibling"
    project.mkdir()
    sibling.mkdir()
    outside_tmp = Path("/tmp") / f"relavium-escape-{uuid.uuid4().hex}"
    port, abstract = listeners
    (project / "escape.py").write_text(ESCAPE_SCRIPT)
    (project / "targets.json").write_text(json.dumps({
        "bashrc": str(home / ".bashrc"),
        "authorized_keys": str(home / ".ssh" / "authorized_keys"),
        "sibling": str(sibling / "planted.txt"),
        "tmp": str(outside_tmp),
        "aws": str(home / ".aws" / "credentials"),
        "port": port,
        "abstract": abstract,
    }))
    try:
        yield {"home": home, "project": project, "sibling": sibling, "tmp": outside_tmp}
    finally:
        outside_tmp.unlink(missing_ok=True)


def escape(cli_env: dict[str, str], world: dict[str, Path], mode: str | None) -> tuple[int, dict]:
    policy: dict[str, object] = {"allowedCommands": ["python3 escape.py"]}
    if mode is not None:
        policy["sandbox"] = mode
    env = {**cli_env, "HOME": str(world["home"])}
    return run_cli(
        "tool", "call", "run_command", "--workspace", str(world["project"]),
        "--policy", json.dumps(policy), "--args", json.dumps({"command": "python3", "args": ["escape.py"]}),
        "--json", env=env,
    )[:2]


def outcomes(out: dict) -> dict[str, str]:
    assert out.get("ok", True) and out["result"]["exitCode"] == 0, out
    result: dict[str, str] = json.loads(out["result"]["stdout"])
    return result


def test_strict_blocks_every_escape_and_keeps_the_workspace_writable(
    cli_env: dict[str, str], world: dict[str, Path]
) -> None:
    code, out = escape(cli_env, world, None)  # strict is the default
    assert code == 0, out
    seen = outcomes(out)
    assert {name: seen[name].startswith("blocked") for name in ESCAPES} == dict.fromkeys(ESCAPES, True), seen
    assert seen["workspace"] == "ok" and seen["private_tmp"] == "ok", seen
    assert seen["aws"] == "blocked: Permission denied"
    assert seen["signal"] == "blocked: Operation not permitted"
    assert seen["abstract"] == "blocked: Operation not permitted"
    assert (world["home"] / ".bashrc").read_text() == "# bashrc\n"
    assert (world["home"] / ".ssh" / "authorized_keys").read_text() == "ssh-ed25519 AAAA test\n"
    assert not (world["sibling"] / "planted.txt").exists() and not world["tmp"].exists()
    assert (world["project"] / "inside.txt").exists()


def test_network_mode_lets_the_connection_through_and_nothing_else(
    cli_env: dict[str, str], world: dict[str, Path]
) -> None:
    code, out = escape(cli_env, world, "network")
    assert code == 0, out
    seen = outcomes(out)
    assert seen["tcp"] == "ok", seen
    assert all(seen[name].startswith("blocked") for name in ESCAPES if name != "tcp"), seen


def test_off_mode_lets_everything_through_and_says_it_ran_unconfined(
    cli_env: dict[str, str], world: dict[str, Path]
) -> None:
    code, out = escape(cli_env, world, "off")
    assert code == 0, out
    seen = outcomes(out)
    assert all(seen[name] == "ok" for name in ESCAPES), seen
    assert "unconfined" in out["result"]["sandbox"]
    assert (world["home"] / ".bashrc").read_text().endswith("# escaped\n")


def test_a_stopped_command_result_names_the_rule(cli_env: dict[str, str], tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    target = tmp_path / "elsewhere.txt"
    policy = {"allowedCommands": [f"sh -c 'echo x > {target}'"]}
    code, out, _ = run_cli(
        "tool", "call", "run_command", "--workspace", str(project), "--policy", json.dumps(policy),
        "--args", json.dumps({"command": "sh", "args": ["-c", f"echo x > {target}"]}), "--json", env=cli_env,
    )
    assert code == 0, out
    assert out["result"]["exitCode"] != 0 and "Permission denied" in out["result"]["stderr"]
    assert out["result"]["sandbox"] == (
        f"sandbox (strict): {target} is outside the folders this process may use (the system folders, the "
        "workspace, granted extra roots and its private temp folder); grant the folder as an extra root, or "
        "set sandbox: off for this tool"
    )
    assert not target.exists()


def test_a_kernel_without_tcp_rules_refuses_strict_rather_than_run_unconfined(
    cli_env: dict[str, str], world: dict[str, Path]
) -> None:
    cli_env[ABI_CAP_VAR] = "3"  # as on a kernel with Landlock ABI 3: no TCP rules
    code, out = escape(cli_env, world, None)
    assert code != 0 and out["error"]["code"] == "tool_unavailable", out
    message = out["error"]["message"]
    assert "strict sandbox cannot be enforced" in message and "TCP connect/bind" in message, message
    assert not (world["project"] / "inside.txt").exists()  # the script never ran
    code, out = escape(cli_env, world, "network")  # filesystem rules still enforce network mode
    assert code == 0 and outcomes(out)["bashrc"].startswith("blocked"), out

