"""The OS sandbox for processes an agent starts: writes only where granted, network only when granted.

An allowlisted command is still arbitrary code (``npm test`` runs what
package.json says, ``pytest`` imports every conftest.py, a stdio MCP server
runs what its author wrote), so ``run_command``, the git tools and stdio MCP
servers run under Landlock (Linux), applied in the child before ``exec``
(:mod:`landlock`: why ctypes and no library).

What a spec allows (Landlock is an allow-list: all filesystem rights the ABI
knows are handled, so what no rule grants is denied):

* read + execute: the system (``/usr``, ``/bin``, ``/lib*``, ``/etc``,
  ``/opt``, ``/proc``, ``/sys``, ``/dev``, ``/run`` except ``/run/user``,
  ``/nix``/``/snap`` where present), the interpreter prefixes, the host's
  command search path (a venv or a ``bin`` folder's install prefix), and the
  workspace.  **Nothing else in the home folder** -- not even ``~/.gitconfig``
  or ``~/.npm`` (minimal by choice: tools get their caches in the private
  temp folder through ``TMPDIR``); the git identity read alone is granted
  ``~/.gitconfig`` and ``~/.config/git``.
* write: the write roots (the workspace at its tier, granted extra roots,
  the command's private temp folder) and ``/dev/null``.
* nothing, not even reading: the deny roots (the read floor's home
  locations, :func:`floor_locations`).  A read or write root that *contains*
  a deny root is granted child by child around it (Landlock cannot subtract),
  so a workspace that is the home folder still keeps ``~/.ssh`` out.
* TCP: bind and connect denied (mode ``strict``); not handled (``network``).
* scoping (ABI >= 6): abstract UNIX sockets and signals stay inside the
  sandbox in both modes: no signalling the app, no abstract-socket IPC out.

Known gaps (Landlock ABI 7): UDP is not covered; connecting to a *pathname*
UNIX socket the process can name is not checked by Landlock.

Degrade loudly: :func:`support` says what the kernel lacks; asking a mode the
kernel cannot enforce raises :class:`SandboxUnavailable` -- the caller refuses
to run unless the user opted out (mode ``off``).
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from relavium_desktop.engine.tools.fs_floors import CREDENTIAL_BASENAMES, PROTECTED_DIRS
from relavium_desktop.host.process import landlock

SandboxMode = Literal["strict", "network", "off"]
SANDBOX_MODES: tuple[SandboxMode, ...] = ("strict", "network", "off")

# Diagnosis and tests only: pretend the kernel offers at most this Landlock ABI.
# It can only lower what support() reports, so it can only make a sandbox refuse.
ABI_CAP_VAR = "RELAVIUM_SANDBOX_ABI_CAP"
# What each mode needs from the kernel.
REQUIRED_ABI: dict[SandboxMode, int] = {"strict": 4, "network": 1, "off": 0}

SYSTEM_READ_ROOTS = (
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc",
    "/opt",
    "/proc",
    "/sys",
    "/dev",
    "/nix",
    "/snap",
)
# /run minus /run/user (the user's session sockets and keyring live there).
RUN_DIR = "/run"
RUN_EXCLUDED = ("user",)
WRITABLE_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty")
# Home locations with no file-tool floor of their own that a sandbox still never opens.
EXTRA_DENIED_HOME = (".gnupg", ".docker", ".config/gcloud", ".password-store", ".local/share/keyrings")
GIT_IDENTITY_FILES = (".gitconfig", ".config/git")


class SandboxUnavailable(RuntimeError):
    """The kernel cannot enforce the sandbox mode asked for; the caller refuses to run."""

    def __init__(self, mode: SandboxMode, missing: Sequence[str]) -> None:
        self.mode = mode
        self.missing = tuple(missing)
        super().__init__(
            f"the {mode} sandbox cannot be enforced on this system (missing: {', '.join(missing)}); "
            "the process was not started -- set sandbox: off for this tool to run it unconfined"
        )


@dataclass(frozen=True)
class SandboxSpec:
    """What one sandboxed process may touch (paths are made absolute; nonexistent ones are skipped)."""

    mode: SandboxMode
    read_roots: tuple[Path, ...] = ()
    write_roots: tuple[Path, ...] = ()
    deny_roots: tuple[Path, ...] = ()
    private_tmp: Path | None = None

    @property
    def confined(self) -> bool:
        return self.mode != "off"


@dataclass(frozen=True)
class SandboxSupport:
    """What this kernel's Landlock enforces; ``missing`` names each absent protection in words."""

    abi: int
    fs: bool
    tcp: bool
    scoping: bool
    missing: list[str] = field(default_factory=list)

    def unavailable_for(self, mode: SandboxMode) -> list[str]:
        """The missing protections that stop ``mode`` from running (empty: it can run)."""
        if mode == "off":
            return []
        needed = ["filesystem rules (Landlock)"] if not self.fs else []
        if mode == "strict" and not self.tcp:
            needed.append("TCP connect/bind rules (Landlock ABI 4)")
        return needed

    def to_json(self) -> dict[str, object]:
        return {
            "abi": self.abi,
            "fs": self.fs,
            "tcp": self.tcp,
            "scoping": self.scoping,
            "missing": list(self.missing),
        }


@functools.cache
def _kernel_abi() -> int:
    return landlock.abi_version()


def support() -> SandboxSupport:
    """The kernel's Landlock protections (the probe is cached; the cap is read each call)."""
    abi = _kernel_abi()
    cap = os.environ.get(ABI_CAP_VAR, "")
    if cap.isdigit():
        abi = min(abi, int(cap))
    missing: list[str] = []
    if abi < 1:
        missing.append("filesystem rules (Landlock)")
    if abi < 2:
        missing.append("moving files between folders in the sandbox (Landlock ABI 2)")
    if abi < 3:
        missing.append("file truncation rules (Landlock ABI 3)")
    if abi < 4:
        missing.append("TCP connect/bind rules (Landlock ABI 4)")
    if abi < 5:
        missing.append("device ioctl rules (Landlock ABI 5)")
    if abi < 6:
        missing.append("abstract UNIX socket and signal scoping (Landlock ABI 6)")
    return SandboxSupport(abi=abi, fs=abi >= 1, tcp=abi >= 4, scoping=abi >= 6, missing=missing)


# -- building specs ----------------------------------------------------------------


@functools.lru_cache(maxsize=8)
def floor_locations(homes: tuple[Path, ...]) -> tuple[Path, ...]:
    """The read floor's locations in each home: the file tools' protected folders and credential
    files (engine/tools/fs_floors.py, one list for both) plus key rings and cloud CLIs' folders."""
    names = sorted(PROTECTED_DIRS | CREDENTIAL_BASENAMES) + list(EXTRA_DENIED_HOME)
    out: list[Path] = []
    for home in homes:
        out.extend(home / name for name in names)
    return tuple(dict.fromkeys(out))


def _homes() -> tuple[Path, ...]:
    """The password database's home (what the child's HOME is) and the app's $HOME if it differs."""
    homes: list[Path] = []
    try:
        import pwd

        homes.append(Path(pwd.getpwuid(os.getuid()).pw_dir))
    except (ImportError, KeyError):
        pass
    env_home = os.environ.get("HOME")
    if env_home:
        homes.append(Path(env_home))
    return tuple(dict.fromkeys(homes))


# What a server from the user's own mcp.yaml usually needs beyond its working folder: launched
# with npx, uvx or pipx, it reads its tool's install under the home folder and writes that tool's
# cache.  Only these caches become writable; the credential locations stay carved out.
USER_SERVER_CACHES = (".npm", ".cache", ".bun", ".local/share/uv", ".local/share/pipx")


def user_server_roots() -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """``(read, write)`` extra roots for a server the user configured: the home folder (credential
    locations still denied) and the package managers' caches that exist."""
    homes = _homes()
    caches = tuple(home / name for home in homes for name in USER_SERVER_CACHES if (home / name).is_dir())
    return homes, caches


def system_read_roots(search_path: Sequence[str] = ()) -> tuple[Path, ...]:
    """The system folders, interpreter prefixes and the command search path's install prefixes."""
    return _system_read_roots(tuple(search_path), _homes())


@functools.lru_cache(maxsize=16)
def _system_read_roots(search_path: tuple[str, ...], home_list: tuple[Path, ...]) -> tuple[Path, ...]:
    roots = [Path(p) for p in SYSTEM_READ_ROOTS]
    run = Path(RUN_DIR)
    if run.is_dir():
        with contextlib.suppress(OSError):
            roots.extend(child for child in run.iterdir() if child.name not in RUN_EXCLUDED)
    homes = {h.resolve() for h in home_list}
    for prefix in {
        sys.prefix,
        sys.base_prefix,
        sys.exec_prefix,
        os.path.dirname(os.path.dirname(sys.executable)),
    }:
        roots.append(Path(prefix))
    for entry in search_path:
        folder = Path(entry)
        roots.append(folder)
        parent = folder.parent
        # A bin folder's install prefix (lib/, share/ next to it), never the home folder itself or ~/.local.
        if (
            folder.name == "bin"
            and parent != Path("/")
            and parent.resolve() not in homes
            and parent.name != ".local"
        ):
            roots.append(parent)
    return tuple(dict.fromkeys(roots))


PROJECT_MARKERS = ("package.json", "pyproject.toml", "setup.py", "setup.cfg", "Cargo.toml", "go.mod")


def program_roots(paths: Iterable[str]) -> tuple[Path, ...]:
    """Read roots for a program named by path (a server's script, its interpreter): the folder
    holding its outermost ``node_modules``, else its nearest project folder (package.json,
    pyproject.toml, ...), else its own folder -- never a home folder or ``/`` itself.

    A stdio MCP server is usually ``node /somewhere/pkg/dist/index.js`` or a venv's script;
    without this it could not read its own code under the sandbox.
    """
    homes = {str(h) for h in _homes()} | {"/"}
    out: list[Path] = []
    for raw in paths:
        if not os.path.isabs(raw):
            continue
        real = _real(Path(raw))
        if real is None:
            continue
        folder = real if real.is_dir() else real.parent
        parts = folder.parts
        root: Path | None = None
        if "node_modules" in parts:
            root = Path(*parts[: parts.index("node_modules")])
        else:
            for candidate in (folder, *folder.parents):
                if str(candidate) in homes:
                    break
                if any((candidate / marker).is_file() for marker in PROJECT_MARKERS):
                    root = candidate
                    break
        if root is None or str(root) in homes:
            root = folder
        if str(root) not in homes:
            out.append(root)
    return tuple(dict.fromkeys(out))


def build_spec(
    mode: SandboxMode,
    *,
    workspace: Path | None,
    write_roots: Sequence[Path] = (),
    read_roots: Sequence[Path] = (),
    private_tmp: Path | None = None,
    search_path: Sequence[str] = (),
    allow_home_files: Sequence[str] = (),
) -> SandboxSpec:
    """A spec: system + workspace + ``read_roots`` readable, workspace + ``write_roots`` + temp writable.

    ``allow_home_files`` (relative to each home, e.g. ``.gitconfig``) are readable and kept off
    the deny list -- only ever for a fixed, host-built command (the git identity read).
    """
    writable = [
        *([workspace] if workspace is not None else []),
        *write_roots,
        *([private_tmp] if private_tmp is not None else []),
    ]
    homes = _homes()
    allowed_home = [home / name for home in homes for name in allow_home_files]
    deny = tuple(p for p in floor_locations(homes) if p not in allowed_home)
    readable = [*system_read_roots(search_path), *read_roots, *allowed_home, *writable]
    return SandboxSpec(
        mode=mode,
        read_roots=tuple(dict.fromkeys(p.absolute() for p in readable)),
        write_roots=tuple(dict.fromkeys(p.absolute() for p in writable)),
        deny_roots=deny,
        private_tmp=private_tmp,
    )


# -- applying specs ----------------------------------------------------------------


def _real(path: Path) -> Path | None:
    try:
        return Path(os.path.realpath(path, strict=True))
    except OSError:
        return None


def _inside(path: Path, root: Path) -> bool:
    """``path`` is ``root`` or below it (lexically: both are absolute, resolved by the caller)."""
    p, r = str(path), str(root)
    return p == r or p.startswith(r if r.endswith("/") else r + "/")


@dataclass(frozen=True)
class _DenySet:
    """The deny roots (canonical spellings, existing or not) and every folder above one, for O(depth) checks."""

    roots: frozenset[str]
    above: frozenset[str]

    def covers(self, path: str) -> bool:
        """``path`` is a deny root or below one."""
        while True:
            if path in self.roots:
                return True
            parent = os.path.dirname(path)
            if parent == path:
                return False
            path = parent

    def holds(self, path: str) -> bool:
        """A deny root lies strictly below ``path``."""
        return path in self.above


@functools.lru_cache(maxsize=32)
def _deny_set(deny_roots: tuple[Path, ...]) -> _DenySet:
    # Not strict: a credential folder created after this is computed is still denied.
    roots = frozenset(os.path.realpath(d) for d in deny_roots)
    above: set[str] = set()
    for root in roots:
        parent = os.path.dirname(root)
        while parent not in above:
            above.add(parent)
            if os.path.dirname(parent) == parent:
                break
            parent = os.path.dirname(parent)
    return _DenySet(roots, frozenset(above))


def _carve(root: str, deny: _DenySet, depth: int = 0) -> list[str]:
    """``root`` itself, or (when a deny root lies below it) its children around the deny roots."""
    if deny.covers(root):
        return []
    if not deny.holds(root):
        return [root]
    if depth > 8:
        return []
    try:
        names = os.listdir(root)
    except OSError:
        return []
    out: list[str] = []
    for name in names:
        child = os.path.join(root, name)
        real = os.path.realpath(child)
        if not os.path.exists(real):
            continue
        # A symlink in the carved folder is granted as its target, which is judged again.
        if os.path.dirname(real) == root:
            out.extend(_carve(real, deny, depth + 1))
        elif not deny.covers(real) and not deny.holds(real):
            out.append(real)
    return out


def _rules(spec: SandboxSpec) -> list[tuple[str, int]]:
    deny = _deny_set(spec.deny_roots)
    write = landlock.handled_fs(7)
    rules: list[tuple[str, int]] = []
    for roots, access in ((spec.read_roots, landlock.READ_RIGHTS), (spec.write_roots, write)):
        for root in roots:
            real = os.path.realpath(root)
            if not os.path.exists(real):
                continue
            extra = landlock.FS_IOCTL_DEV if real == "/dev" else 0
            rules.extend((p, access | extra) for p in _carve(real, deny))
    for device in WRITABLE_DEVICES:
        if os.path.exists(device):
            rules.append((device, landlock.FILE_RIGHTS & ~landlock.FS_EXECUTE))
    return rules


class Confinement:
    """A prepared ruleset and the ``preexec_fn`` that enforces it in the child; ``close()`` after the spawn."""

    def __init__(self, ruleset: int, then: Callable[[], None] | None) -> None:
        self._ruleset = ruleset
        self._restrict = landlock.restricter(ruleset)
        self._then = then

    def __call__(self) -> None:
        if self._then is not None:
            self._then()
        self._restrict()

    @property
    def fd(self) -> int:
        """The ruleset descriptor (close-on-exec; -1 once closed)."""
        return self._ruleset

    def close(self) -> None:
        if self._ruleset >= 0:
            os.close(self._ruleset)
            self._ruleset = -1

    def __del__(self) -> None:
        with contextlib.suppress(OSError):
            self.close()


def net_access(mode: SandboxMode) -> int:
    return landlock.NET_BIND_TCP | landlock.NET_CONNECT_TCP if mode == "strict" else 0


SCOPES = landlock.SCOPE_ABSTRACT_UNIX_SOCKET | landlock.SCOPE_SIGNAL


def check_available(mode: SandboxMode) -> SandboxSupport:
    """Raise :class:`SandboxUnavailable` when the kernel cannot enforce ``mode``."""
    found = support()
    missing = found.unavailable_for(mode)
    if missing:
        raise SandboxUnavailable(mode, missing)
    return found


def preexec_for(spec: SandboxSpec | None, then: Callable[[], None] | None = None) -> Confinement | None:
    """The child's ``preexec_fn``: ``then`` (e.g. the parent-death signal), then the sandbox.

    None for no spec or mode ``off`` (the caller then uses ``then`` alone).  The ruleset is
    built here, in the parent, so a bad root fails here with its path named; in the child a
    failure raises, and the spawn fails rather than run unconfined.  Raises
    :class:`SandboxUnavailable` when the kernel cannot enforce the mode.
    """
    if spec is None or not spec.confined:
        return None
    found = check_available(spec.mode)
    ruleset = landlock.build_ruleset(found.abi, _rules(spec), net=net_access(spec.mode), scoped=SCOPES)
    return Confinement(ruleset, then)


LAUNCHER = Path(__file__).with_name("sandbox_exec.py")


def launcher_argv(confinement: Confinement, executable: str, args: Sequence[str]) -> list[str]:
    """The argv that starts ``executable`` confined, for a spawner without ``preexec_fn`` (anyio):
    the launcher enforces the ruleset, whose descriptor the spawn must pass (``pass_fds``), then
    ``execv``s.  The ``then`` hook of the confinement does not run there."""
    from relavium_desktop.host.process.helper_programs import helper_argv

    return helper_argv("sandbox-exec", LAUNCHER, str(confinement.fd), executable, *args)


# -- explaining a stopped process ------------------------------------------------

_DENIED = re.compile(r"permission denied|operation not permitted|eacces|eperm|errno 13|errno 1\b", re.I)
_NET = re.compile(r"connect|connection refused|econnrefused|socket", re.I)
_PATH = re.compile(r"""(?:'|"|\s|^)(/[^\s'":]+)""")


def explain(outcome: BaseException | int | None, stderr_tail: str, spec: SandboxSpec | None) -> str | None:
    """One line naming the sandbox rule that most likely stopped the process, and how to allow it.

    ``outcome`` is the exit code (0: nothing to explain) or the exception the spawn raised.
    None when the process was not sandboxed or nothing points at the sandbox.
    """
    if spec is None or not spec.confined or outcome == 0:
        return None
    text = f"{outcome if isinstance(outcome, BaseException) else ''}\n{stderr_tail}"
    if not _DENIED.search(text) and not re.search(r"connection refused|econnrefused", text, re.I):
        return None
    paths = [Path(m) for m in _PATH.findall(text)]
    for path in paths:
        if any(_inside(path, d) for d in spec.deny_roots):
            return (
                f"sandbox ({spec.mode}): {path} is a protected credential location the sandbox never opens, "
                "not even to read; only sandbox: off lifts it"
            )
    for path in paths:
        if str(path).startswith(("/proc/", "/dev/")) or any(_inside(path, r) for r in spec.write_roots):
            continue
        if not any(_inside(path, r) for r in spec.read_roots):
            return (
                f"sandbox ({spec.mode}): {path} is outside the folders this process may use (the system "
                "folders, the workspace, granted extra roots and its private temp folder); "
                "grant the folder as an extra root, or set sandbox: off for this tool"
            )
        return (
            f"sandbox ({spec.mode}): {path} is outside the folders this process may write "
            "(the workspace, granted extra roots and its private temp folder); "
            "grant the folder as an extra root, or set sandbox: off for this tool"
        )
    if spec.mode == "strict" and _NET.search(text):
        return (
            "sandbox (strict): network connections are blocked; set sandbox: network for this tool "
            "to allow them"
        )
    return None
