"""The installable bundle works as a user gets it: built, started, installed.

Builds the one-folder PyInstaller bundle with ``packaging/build`` once for the
module (into a temp dir: its work folder doubles as PyInstaller's cache), then
runs the BUNDLED launchers -- not the venv -- so a module, plugin or data file
the bundle forgot shows up here as a crash or a missing tool, not on a user's
machine.  The GUI runs under Xvfb (``xvfb-run -a``, installed by scripts/setup)
because the bundle must carry the xcb platform plugin a desktop session uses;
the offscreen plugin would not prove that.  Slow (a build takes ~1 min on two
cores), still run by CI: scripts/test deselects nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.fixtures.desktop_bus import desktop_bus_env_fixture, desktop_bus_fixture  # noqa: F401

REPO = Path(__file__).resolve().parents[2]
# One worker builds the bundle once for every test here: spread over three workers the module-scoped
# fixture was built three times at once (~2 minutes of both cores each).
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("bundle")]


@dataclass
class Bundle:
    folder: Path
    archive: Path
    build_seconds: float

    @property
    def size_mb(self) -> float:
        files = (p for p in self.folder.rglob("*") if p.is_file() and not p.is_symlink())
        return sum(p.stat().st_size for p in files) / 1e6

    def describe(self) -> str:
        return f"bundle {self.size_mb:.0f} MB at {self.folder}, built in {self.build_seconds:.0f} s"


def _run(argv: list[str], env: dict[str, str], timeout: float, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run to completion; the callers assert on the exit status with the output in the message."""
    return subprocess.run(argv, check=False, capture_output=True, text=True, timeout=timeout, env=env, input=stdin)


def _clean_env(home: Path) -> dict[str, str]:
    """The user's view: no test platform override, a private home and data dirs."""
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "PYTHONPATH")}
    env.update(HOME=str(home), RELAVIUM_HOME=str(home / "relavium"), XDG_DATA_HOME=str(home / "share"))
    return env


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bundle]:
    root = tmp_path_factory.mktemp("bundle")
    started = time.monotonic()
    proc = _run(
        [str(REPO / "packaging" / "build"), "--dist", str(root / "dist"), "--work", str(root / "work")],
        dict(os.environ, PYTHON=sys.executable), timeout=1200,
    )
    assert proc.returncode == 0, f"packaging/build failed:\n{proc.stdout}\n{proc.stderr}"
    archives = list((root / "dist").glob("relavium-*-linux-*.tar.gz"))
    assert len(archives) == 1, f"expected one archive in {root / 'dist'}: {archives}"
    built = Bundle(root / "dist" / "relavium", archives[0], time.monotonic() - started)
    print(f"\n{built.describe()}; archive {archives[0].stat().st_size / 1e6:.0f} MB")
    yield built
    shutil.rmtree(root, ignore_errors=True)  # ~0.4 GB with the archive and work folder; pytest keeps three runs


def test_bundled_window_reaches_first_paint_under_xvfb(bundle: Bundle, tmp_path: Path) -> None:
    xvfb_run = shutil.which("xvfb-run")
    if xvfb_run is None:
        pytest.fail("xvfb-run is not installed; run scripts/setup (Debian package xvfb)")
    env = _clean_env(tmp_path)
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    env["RELAVIUM_STARTUP_PROBE"] = "1"
    proc = _run([xvfb_run, "-a", "-s", "-screen 0 1280x800x24", str(bundle.folder / "relavium-desktop")],
                env, timeout=120)
    painted = [line for line in proc.stdout.splitlines() if line.startswith("relavium-first-paint ")]
    assert proc.returncode == 0 and painted, (
        f"{bundle.describe()}: the bundled window did not paint (exit {proc.returncode})\n"
        f"stdout: {proc.stdout}\nstderr: {proc.stderr}"
    )
    assert "qt.qpa.plugin" not in proc.stderr, proc.stderr


def test_bundle_carries_the_display_plugins_and_no_unused_qt_modules(bundle: Bundle) -> None:
    files = [p.name for p in bundle.folder.rglob("*") if p.is_file()]
    for plugin in ("libqxcb.so", "libqwayland.so", "libqoffscreen.so", "libqsvg.so", "libqsvgicon.so"):
        assert plugin in files, f"{bundle.describe()}: {plugin} missing"
    unused = [f for f in files if f.startswith(("libQt6Qml", "libQt6Quick", "libQt6WebEngine", "libQt6Multimedia",
                                                "libQt63D", "libQt6Charts", "libQt6Pdf", "libQt6Designer"))]
    assert not unused, f"{bundle.describe()}: unused Qt modules bundled: {unused}"


def _tool_ids(argv: list[str], env: dict[str, str]) -> list[str]:
    proc = _run([*argv, "tools", "list", "--json"], env, timeout=120)
    assert proc.returncode == 0, f"{argv[0]} tools list failed: {proc.stderr}"
    return sorted(tool["id"] for tool in json.loads(proc.stdout) if tool["source"] == "builtin")


def test_bundled_cli_lists_the_same_builtin_tools_as_the_source_tree(bundle: Bundle, tmp_path: Path) -> None:
    env = _clean_env(tmp_path)
    bundled = _tool_ids([str(bundle.folder / "relavium")], env)
    source = _tool_ids([sys.executable, "-m", "relavium_desktop.cli"], env)
    assert {"read_file", "write_file", "list_directory", "run_command"} <= set(bundled), bundle.describe()
    assert bundled == source, f"{bundle.describe()}: bundle lists {bundled}, source lists {source}"


def test_bundled_cli_reaches_the_session_keyring(bundle: Bundle, desktop_bus_env: dict[str, str],
                                                 tmp_path: Path) -> None:
    """keyring picks its Secret Service backend by entry point at run time: the bundle must carry it."""
    env = dict(desktop_bus_env, RELAVIUM_HOME=str(tmp_path))
    name = f"bundle-{uuid.uuid4().hex[:8]}"
    relavium = str(bundle.folder / "relavium")
    stored = _run([relavium, "secret", "set", name], env, timeout=60, stdin="bundled-key-WXYZ\n")
    assert stored.returncode == 0, f"{bundle.describe()}: {stored.stderr}"
    listed = _run([relavium, "secret", "list", "--json"], env, timeout=60)
    assert {"name": name, "hint": "****WXYZ"} in json.loads(listed.stdout), listed.stderr
    assert _run([relavium, "secret", "delete", name], env, timeout=60).returncode == 0


def test_archive_installs_commands_into_a_prefix(bundle: Bundle, tmp_path: Path) -> None:
    with tarfile.open(bundle.archive) as tar:
        tar.extractall(tmp_path / "unpacked", filter="tar")
    (installer,) = (tmp_path / "unpacked").glob("*/install.sh")
    prefix = tmp_path / "prefix"
    env = _clean_env(tmp_path)
    env["PREFIX"] = str(prefix)
    proc = _run([str(installer)], env, timeout=180)
    assert proc.returncode == 0, f"install.sh failed:\n{proc.stdout}\n{proc.stderr}"
    assert "desktop entry: installed" in proc.stdout, proc.stdout
    for command in ("relavium", "relavium-desktop"):
        link = prefix / "bin" / command
        assert link.resolve() == (prefix / "opt" / "relavium" / command).resolve(), proc.stdout
    shutil.rmtree(tmp_path / "unpacked")  # the installed copy must not lean on the unpacked one
    helped = _run([str(prefix / "bin" / "relavium"), "--help"], env, timeout=60)
    assert helped.returncode == 0 and "usage: relavium" in helped.stdout, helped.stderr
    entries = list((tmp_path / "share" / "applications").glob("*.desktop"))
    assert entries, f"install.sh said installed but {tmp_path / 'share'} has no .desktop file"
    assert f"Exec={prefix / 'opt' / 'relavium' / 'relavium-desktop'} " in entries[0].read_text()
