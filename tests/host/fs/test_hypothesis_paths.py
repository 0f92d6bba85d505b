"""Acceptance 3: generated paths never let an accepted operation touch outside the roots or a floor.

Paths are drawn from a grammar of components (``..``, ``.``, symlinks in and
out, floor names and their case/trailing-dot/stream/Unicode variants, glob
metacharacters) and run against a real tree.  After every operation the
tree outside the workspace and the floor folders must be byte-identical,
no returned content may be a sentinel, and every returned name must resolve
(by the OS, independently of the host) inside the workspace and off the floors.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from relavium_desktop.engine.errors import ToolError
from relavium_desktop.engine.tools.fs_floors import read_floor
from relavium_desktop.host.fs import PathPolicy, lister, reader, writer

SENTINEL = "SENTINEL-MUST-NEVER-BE-READ"

COMPONENTS = [
    "..", ".", "", "sub", "deeper", "file.txt", "f2.txt", "new.txt", "link_out", "link_in",
    "link_file_out", "link_floor", "link_loop", ".ssh", ".SSH", ".ssh.", ".ssh:x", "id_rsa", ".env",
    ".ENV ", ".env.local", ".git", ".GIT", "config", "HEAD", "ｓｕｂ", "\uff0essh", "outside", "ws",
    "secret.txt", "*", "**", "*.txt", "?ub", "s*",
]
PREFIXES = ["", "/", "{base}/", "{base}/ws/", "{base}/outside/", "/{base}/ws/"]

LIKELY = ["sub", "deeper", "link_in", "file.txt", "f2.txt", "new.txt", "*", "**", "..", "link_out", ".ssh"]
paths = st.one_of(
    st.builds(
        lambda prefix, comps: prefix + "/".join(comps),
        st.sampled_from(PREFIXES),
        st.lists(st.sampled_from(COMPONENTS), min_size=1, max_size=6),
    ),
    # Mostly-valid paths, so that accepted operations are common too.
    st.lists(st.sampled_from(LIKELY), min_size=1, max_size=4).map("/".join),
    # Known-good targets, spelled through links and `..`.
    st.sampled_from([
        "sub", "sub/file.txt", "link_in/file.txt", "sub/deeper/f2.txt", "link_in/deeper", "sub/new.txt",
        "sub/../sub/file.txt", "**/*.txt", "*/file.txt", "link_in/../sub/deeper/f2.txt", "{base}/ws/sub",
        "{base}/ws/link_in/deeper/new.txt", "sub/deeper/x/y.txt",
    ]),
)
ops = st.sampled_from(["read", "glob", "list", "list_rec", "write", "write_parents", "append"])


def _build(base: Path) -> tuple[Path, Path]:
    ws, outside = base / "ws", base / "outside"
    (ws / "sub" / "deeper").mkdir(parents=True)
    (ws / "sub" / "file.txt").write_text("ok\n")
    (ws / "sub" / "deeper" / "f2.txt").write_text("ok2\n")
    (ws / ".ssh").mkdir()
    (ws / ".ssh" / "id_rsa").write_text(SENTINEL)
    (ws / ".env").write_text(SENTINEL)
    (ws / ".git").mkdir()
    (ws / ".git" / "config").write_text(SENTINEL)
    (ws / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (outside / "sub").mkdir(parents=True)
    (outside / "secret.txt").write_text(SENTINEL)
    (outside / "sub" / "file.txt").write_text(SENTINEL)
    (ws / "link_out").symlink_to("../outside")
    (ws / "link_in").symlink_to("sub")
    (ws / "link_file_out").symlink_to(outside / "secret.txt")
    (ws / "link_floor").symlink_to(".ssh")
    (ws / "link_loop").symlink_to("link_loop")
    return ws, outside


def _snapshot(*dirs: Path) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for top in dirs:
        for dirpath, dirnames, filenames in os.walk(top):
            for name in dirnames + filenames:
                p = Path(dirpath, name)
                out[str(p)] = b"<link>" if p.is_symlink() else (p.read_bytes() if p.is_file() else b"<dir>")
    return out


def _assert_inside_and_off_floor(ws: Path, path: Path) -> None:
    real = Path(os.path.realpath(path))
    assert real.is_relative_to(ws.resolve()), path
    assert read_floor(real.relative_to(ws.resolve()).parts) is None, path


class _World:
    def __init__(self) -> None:
        self.base = Path(tempfile.mkdtemp(prefix="relavium-hyp-")).resolve()
        atexit.register(shutil.rmtree, self.base, True)
        self.ws, self.outside = _build(self.base)
        self.protected = [self.outside, self.ws / ".ssh", self.ws / ".git"]
        self.before = _snapshot(*self.protected)
        self.env_before = (self.ws / ".env").read_bytes()
        self.policy = PathPolicy.create(self.ws, tier="project")


@functools.cache
def _world() -> _World:
    """One tree per session: examples accumulate writes, the invariants must hold throughout."""
    return _World()


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(template=paths, op=ops)
def test_generated_paths_never_touch_outside_or_floors(template: str, op: str) -> None:
    world = _world()
    path = template.format(base=str(world.base))
    try:
        if op == "read":
            result = reader.read_file(world.policy, path)
            assert SENTINEL not in result["content"]
            _assert_inside_and_off_floor(world.ws, world.ws / result["path"])
        elif op == "glob":
            for item in reader.read_glob(world.policy, path):
                assert SENTINEL not in item["content"]
                _assert_inside_and_off_floor(world.ws, world.ws / item["path"])
        elif op in ("list", "list_rec"):
            listing = lister.list_directory(world.policy, path, recursive=op == "list_rec", glob=None)
            # The host folds `..` lexically (never through a link), so the listed folder is this one.
            base = Path(os.path.normpath(path if path.startswith("/") else world.ws / path))
            for entry in listing["entries"]:
                if entry["type"] != "symlink":
                    _assert_inside_and_off_floor(world.ws, base / entry["name"])
        else:
            result = writer.write_file(
                world.policy, path, "generated\n", append=op == "append", create_parents=op == "write_parents"
            )
            _assert_inside_and_off_floor(world.ws, world.ws / result["path"])
        event(f"{op}: accepted")
    except (ToolError, OSError) as exc:
        event(f"{op}: {getattr(exc, 'reason', None) or type(exc).__name__}")  # refused or failed: fine, as long as nothing leaked (checked below)
    assert _snapshot(*world.protected) == world.before
    assert (world.ws / ".env").read_bytes() == world.env_before
