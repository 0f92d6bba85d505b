"""What the OS sandbox can enforce here, worded once for every surface.

``relavium doctor``, Settings -> Chat tools and a refused command all say the
same thing: which Landlock protections this kernel offers, which are missing,
and which sandbox modes can therefore run.  A mode the kernel cannot enforce
is refused by the process host (never run unconfined); ``off`` is the user's
explicit opt-in, and the words for it say "unconfined" plainly.

The probe itself is the host's (:mod:`relavium_desktop.host.process.sandbox`);
this module only reports it, so surfaces never import the host for it.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from relavium_desktop.engine.tools.tooldef import SANDBOX_MODES, SandboxMode
from relavium_desktop.engine.workflow.models import WorkflowBody

# One line a surface prints (or shows) when a process runs unsandboxed because the policy said so.
OFF_NOTICE = (
    "sandbox: off -- commands run unconfined, with all of your rights (your files, keys and the network), "
    "because the tool policy opts out of the sandbox"
)
MODE_WORDS: dict[SandboxMode, str] = {
    "strict": "writes only to the workspace and its own temporary folder; no network; "
    "credential folders (~/.ssh, ~/.aws, ...) not even readable",
    "network": "as strict, but TCP connections are allowed",
    "off": "unconfined: runs with all of your rights (an explicit opt-in)",
}
# Where Landlock does not exist, what is (not) protected and the plan; said in doctor and Settings.
OTHER_SYSTEMS: dict[str, str] = {
    "win32": "Windows: commands and MCP servers are NOT sandboxed yet (planned: AppContainer and Job objects); "
    "strict and network refuse to run, so choose sandbox: off to run them unconfined",
    "darwin": "macOS: commands and MCP servers are NOT sandboxed yet (planned: Seatbelt profiles); "
    "strict and network refuse to run, so choose sandbox: off to run them unconfined",
}
_PROTECTIONS: tuple[tuple[str, str], ...] = (
    ("fs", "filesystem rules (Landlock)"),
    ("tcp", "TCP connect/bind rules (Landlock ABI 4)"),
    ("scoping", "abstract UNIX socket and signal scoping (Landlock ABI 6)"),
)


@dataclass(frozen=True, slots=True)
class SandboxReport:
    """The kernel's sandbox support and, per mode, what stops it (empty: it can run)."""

    abi: int
    fs: bool
    tcp: bool
    scoping: bool
    missing: tuple[str, ...]
    blocked: dict[SandboxMode, tuple[str, ...]]
    platform: str

    @property
    def platform_note(self) -> str | None:
        return OTHER_SYSTEMS.get(self.platform)

    def runnable(self, mode: SandboxMode) -> bool:
        return not self.blocked[mode]

    def to_json(self) -> dict[str, Any]:
        return {
            "platform": self.platform,
            "landlockAbi": self.abi,
            "protections": {"filesystem": self.fs, "tcp": self.tcp, "scoping": self.scoping},
            "missing": list(self.missing),
            "modes": {
                mode: {
                    "runs": self.runnable(mode),
                    "missing": list(self.blocked[mode]),
                    "allows": MODE_WORDS[mode],
                }
                for mode in SANDBOX_MODES
            },
            "note": self.platform_note,
        }

    def lines(self) -> list[str]:
        """The report in plain lines: the ABI, each protection present or missing, each mode's verdict."""
        out = [f"sandbox: Landlock ABI {self.abi}" if self.abi else "sandbox: Landlock is not available"]
        present = {"fs": self.fs, "tcp": self.tcp, "scoping": self.scoping}
        for key, words in _PROTECTIONS:
            out.append(f"  {'present' if present[key] else 'MISSING'}: {words}")
        out.extend(f"  missing: {m}" for m in self.missing if m not in {w for _k, w in _PROTECTIONS})
        for mode in SANDBOX_MODES:
            if self.runnable(mode):
                out.append(f"  {mode}: runs -- {MODE_WORDS[mode]}")
            else:
                out.append(
                    f"  {mode}: REFUSES to run (missing: {', '.join(self.blocked[mode])}); "
                    "commands in this mode fail with tool_unavailable unless the policy says sandbox: off"
                )
        if self.platform_note:
            out.append(f"  {self.platform_note}")
        return out

    def missing_summary(self) -> str | None:
        """One sentence for a settings page: what is missing and what that means; None when nothing is."""
        if not self.missing and self.runnable("strict"):
            return None
        refused = [m for m in SANDBOX_MODES if not self.runnable(m)]
        head = f"This system's sandbox is missing: {', '.join(self.missing) or 'nothing'}."
        if refused:
            head += (
                f" Commands in the {' and '.join(refused)} sandbox will refuse to run rather than run unconfined;"
                " choose Off only if you accept running them with all of your rights."
            )
        return head + (f" {self.platform_note}" if self.platform_note else "")


def off_notice(mode: SandboxMode | None) -> str | None:
    """The one warning a surface shows when a policy opts its commands out of the sandbox; None otherwise."""
    return OFF_NOTICE if mode == "off" else None


def workflow_off_notices(body: WorkflowBody) -> list[str]:
    """One warning per opt-out of the sandbox in a workflow: its tools block, each unconfined stdio server."""
    notices = [n for n in [off_notice(body.tools.sandbox if body.tools else None)] if n is not None]
    for name, entry in sorted((body.mcp_servers or {}).items()):
        if isinstance(entry, dict) and entry.get("sandbox") == "off":
            notices.append(
                f"sandbox: off -- MCP server {name!r} of this workflow runs unconfined, with all of your "
                "rights, because its entry opts out of the sandbox"
            )
    return notices


@dataclass(frozen=True, slots=True)
class ServerSandbox:
    """One stdio server of the user's mcp.yaml and the sandbox its process runs in."""

    name: str
    mode: SandboxMode
    explicit: bool  # said in the entry; False: the default for the user's own servers (network)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "mode": self.mode, "explicit": self.explicit}

    def line(self) -> str:
        said = "set in mcp.yaml" if self.explicit else "the default for your mcp.yaml servers"
        if self.mode == "off":
            return f"  mcp server {self.name}: off -- runs UNCONFINED, with all of your rights ({said})"
        return f"  mcp server {self.name}: {self.mode} ({said})"


def mcp_server_sandboxes(home: Path) -> tuple[list[ServerSandbox], str | None]:
    """The sandbox of each stdio server in ``home``'s mcp.yaml, and why none could be read (a broken file)."""
    from relavium_desktop.host.mcp.config import McpConfigError, StdioServer, load_servers

    try:
        servers = load_servers(home)
    except McpConfigError as exc:
        return [], str(exc)
    return [
        ServerSandbox(name, entry.sandbox_for("user"), entry.sandbox is not None)
        for name, entry in sorted(servers.items())
        if isinstance(entry, StdioServer)
    ], None


def sandbox_report() -> SandboxReport:
    """The sandbox this process can enforce (the kernel probe is the host's, cached there)."""
    from relavium_desktop.host.process.sandbox import support

    found = support()
    return SandboxReport(
        abi=found.abi,
        fs=found.fs,
        tcp=found.tcp,
        scoping=found.scoping,
        missing=tuple(found.missing),
        blocked={mode: tuple(found.unavailable_for(mode)) for mode in SANDBOX_MODES},
        platform=sys.platform,
    )
