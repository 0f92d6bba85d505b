"""The conformance suite's "client command": drives the REAL ``relavium`` CLI against the suite's server.

The suite runs ``python adapter.py SERVER_URL`` with ``MCP_CONFORMANCE_SCENARIO``
(and, for some scenarios, ``MCP_CONFORMANCE_CONTEXT``) set.  The adapter:

1. makes a throwaway ``RELAVIUM_HOME`` whose ``mcp.yaml`` has one server,
   ``conf``, at that URL with ``allowLocal: true`` (the suite serves plain
   http on localhost), plus the ``oauth:`` block a scenario's context asks
   for (a pre-registered client, whose secret goes into the keyring with
   ``relavium secret set``; the suite's client ID metadata document URL);
2. runs ``relavium tools list --json`` and then ``relavium tool call`` on the
   server's first tool (arguments made from its schema), each with stdin on a
   pseudo-terminal, so the CLI behaves as it does for a person: a sign-in
   opens ``$BROWSER`` (:mod:`tests.conformance.browser`, which follows the
   authorization server's redirect back to the CLI's loopback listener) and
   an elicitation form is asked field by field, answered here with Enter
   (accept every default).

Its exit status is the last command's.
"""

from __future__ import annotations

import json
import os
import pty
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

HERE = Path(__file__).resolve().parent
CIMD_URL = "https://conformance-test.local/client-metadata.json"


def relavium() -> list[str]:
    script = Path(sys.executable).with_name("relavium")
    return [str(script)] if script.exists() else [sys.executable, "-m", "relavium_desktop.cli"]


def run_at_terminal(
    args: list[str], env: dict[str, str], answers: str = "", timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run with stdin on a pty (so the CLI sees a terminal), ``answers`` typed into it; output captured."""
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(
            args, stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True
        )
        if answers:
            os.write(master, answers.encode())
        out, err = proc.communicate(timeout=timeout)
        return subprocess.CompletedProcess(args, proc.returncode, out, err)
    finally:
        os.close(slave)
        os.close(master)


def sample_args(schema: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    props = schema.get("properties") or {}
    for name in schema.get("required") or []:
        kind = (props.get(name) or {}).get("type")
        out[name] = {"number": 2, "integer": 2, "boolean": True, "array": [], "object": {}}.get(kind, "x")
    return out


def main() -> int:
    url = sys.argv[-1]
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    # Sign-ins and secrets live in the one keyring: scenarios running side by side get names of
    # their own (from the suite's port), or one would replace the other's tokens mid-scenario.
    name = f"conf{urlsplit(url).port}"
    home = Path(tempfile.mkdtemp(prefix=f"relavium-conformance-{os.getpid()}-"))
    env = {
        **os.environ,
        "RELAVIUM_HOME": str(home),
        "PYTHONUNBUFFERED": "1",
        "BROWSER": f"{sys.executable} {HERE / 'browser.py'} %s",
    }
    for proxy in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        env.pop(proxy, None)
    entry = [f"    url: {url}", "    transport: http", "    allowLocal: true", "    timeoutMs: 60000"]
    oauth: list[str] = []
    if context.get("client_id"):
        oauth.append(f"      clientId: {context['client_id']}")
        if scenario.startswith("auth/client-credentials"):  # a machine account, not a person
            oauth.append("      grant: client_credentials")
        for field, key, secret_name in (
            ("client_secret", "clientSecret", f"{name}-client"),
            ("private_key_pem", "clientKey", f"{name}-key"),
        ):
            if context.get(field):
                stored = subprocess.run(
                    [*relavium(), "secret", "set", secret_name],
                    input=context[field],
                    text=True,
                    env=env,
                    check=False,
                    capture_output=True,
                )
                if stored.returncode != 0:  # say why: the suite shows only the adapter's stderr
                    print(f"adapter: relavium secret set failed ({stored.returncode}):", file=sys.stderr)
                    sys.stderr.write(stored.stdout + stored.stderr)
                    return 1
                oauth.append(f"      {key}: secret:{secret_name}")
        if context.get("signing_algorithm"):
            oauth.append(f"      signingAlgorithm: {context['signing_algorithm']}")
    if scenario == "auth/basic-cimd":
        oauth.append(f"      clientMetadataUrl: {CIMD_URL}")
    if oauth:
        entry += ["    oauth:", *oauth]
    (home / "mcp.yaml").write_text(f"servers:\n  {name}:\n" + "\n".join(entry) + "\n", encoding="utf-8")

    listed = run_at_terminal([*relavium(), "tools", "list", "--json", "--mcp-timeout", "60"], env)
    sys.stderr.write(listed.stderr)
    try:
        tools = [t for t in json.loads(listed.stdout) if t.get("server") == name and not t.get("skipped")]
    except ValueError:
        tools = []
    if not tools:  # a server with no tools (initialize): the listing itself was the test
        print(f"adapter: no tools listed for {scenario} (exit {listed.returncode})", file=sys.stderr)
        return listed.returncode
    tool = tools[0]
    called = run_at_terminal(
        [
            *relavium(),
            "tool",
            "call",
            tool["id"],
            "--args",
            json.dumps(sample_args(tool.get("parameters") or {})),
            "--json",
        ],
        env,
        answers="\n" * 20,
    )
    sys.stdout.write(called.stdout)
    sys.stderr.write(called.stderr)
    return called.returncode


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        for made in Path(tempfile.gettempdir()).glob(f"relavium-conformance-{os.getpid()}-*"):
            shutil.rmtree(made, ignore_errors=True)
