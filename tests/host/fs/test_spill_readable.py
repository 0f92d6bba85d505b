"""The run output store is run-scoped: a run reads its own spill folder, read-only, and nothing else in runs/.

Real files under a temporary ``$RELAVIUM_HOME``, the real host (``build_host``)
and, where it says so, the real ``relavium tool call`` subprocess.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from relavium_desktop.engine.errors import ToolDeniedError
from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS
from relavium_desktop.engine.tools.registry import DispatchOutcome, ToolRegistry
from relavium_desktop.engine.tools.tooldef import ToolCall
from relavium_desktop.host.assembly import HostSettings, build_host
from relavium_desktop.host.fs import FsHost
from tests.helpers import make_ctx, run_cli

TIERS = ("sandboxed", "project", "full")
SECRET = "other-run-secret-7f3a9c"
OWN = "tool-own0000000a"
OTHER = "run-other00000000b"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "big.txt").write_text("\n".join(f"line {i}" for i in range(5000)))
    return ws


@pytest.fixture
def other_spill(relavium_home: Path) -> Path:
    """Another run's spill folder, as a finished run or a chat session would leave it."""
    folder = relavium_home / "runs" / OTHER
    folder.mkdir(parents=True)
    secret = folder / "secret.txt"
    secret.write_text(SECRET)
    return secret


def _registry(workspace: Path, home: Path, tier: str, run_id: str | None = OWN, **kw: Any) -> ToolRegistry:
    host = build_host(HostSettings(workspace=workspace, tier=tier, home=home, run_id=run_id, **kw))  # type: ignore[arg-type]
    return ToolRegistry(BUILTIN_TOOLS, host)


async def _call(registry: ToolRegistry, tool: str, args: dict[str, Any], run_id: str = OWN,
                tier: str = "project") -> DispatchOutcome:
    ctx = make_ctx(tool, run_id=run_id, fs_scope=tier)
    return await registry.dispatch(ToolCall(tool, args), ctx)


def _refused(outcome: DispatchOutcome) -> bool:
    return outcome.error is not None and outcome.error.code == "tool_denied" \
        and outcome.error.reason == "outside_scope"


def _leaks(outcome: DispatchOutcome) -> bool:
    return SECRET in json.dumps(outcome.to_json(), default=str) or OTHER in json.dumps(
        outcome.result, default=str)


# -- the run's own spill: readable in the same run, never writable --------------

@pytest.mark.parametrize("tier", TIERS)
async def test_own_spill_is_readable_not_writable(
    workspace: Path, relavium_home: Path, other_spill: Path, tier: str
) -> None:
    registry = _registry(workspace, relavium_home, tier)
    first = await _call(registry, "read_file", {"path": "big.txt"}, tier=tier)
    assert first.ok and first.truncated and first.spill is not None
    named = re.search(r"saved to (\S+) \.\.\.\]", str(first.model_facing))
    assert named and named.group(1) == first.spill.path
    spill = Path(first.spill.path)
    assert spill.parent == relavium_home / "runs" / OWN

    again = await _call(registry, "read_file", {"path": str(spill)}, tier=tier)
    assert again.ok, again.error
    assert again.result["content"] == spill.read_text()
    listed = await _call(registry, "list_directory", {"path": str(spill.parent)}, tier=tier)
    assert listed.ok, listed.error
    # (reading the spill spilled again: both are this run's)
    assert spill.name in [e["name"] for e in listed.result["entries"]]

    for path in (str(spill), str(spill.parent / "new.txt")):
        write = await _call(registry, "write_file", {"path": path, "content": "tampered"}, tier=tier)
        assert _refused(write), write.error
    assert spill.read_text() != "tampered" and not (spill.parent / "new.txt").exists()
    # The rest of the data dir stays out of reach.
    (relavium_home / "history.db").write_text("x")
    other = await _call(registry, "read_file", {"path": str(relavium_home / "history.db")}, tier=tier)
    assert other.error is not None and other.error.reason in ("outside_scope", "protected_path") \
        if tier != "full" else other.ok  # full is the whole disk, minus runs/
    # No working directory in a read-only folder: a process could write there.
    fs = registry.host.fs
    assert isinstance(fs, FsHost)
    with pytest.raises(ToolDeniedError) as denied:
        fs.resolve_cwd(str(spill.parent))
    assert denied.value.reason == "outside_scope"


# -- another run's spills: refused at every tier ---------------------------------

@pytest.mark.parametrize("tier", TIERS)
async def test_other_runs_and_runs_itself_are_refused(
    workspace: Path, relavium_home: Path, other_spill: Path, tier: str
) -> None:
    registry = _registry(workspace, relavium_home, tier)
    runs = relavium_home / "runs"
    own = runs / OWN
    for args in (
        {"path": str(other_spill)},
        {"path": f"{own}/../{OTHER}/secret.txt"},  # .. out of the own folder
        {"path": f"{runs}/./{OTHER}//secret.txt"},
    ):
        outcome = await _call(registry, "read_file", args, tier=tier)
        assert _refused(outcome), (args, outcome.error)
        assert not _leaks(outcome)
    for path in (str(runs), str(runs / OTHER), f"{own}/..", str(runs) + "/"):
        outcome = await _call(registry, "list_directory", {"path": path}, tier=tier)
        assert _refused(outcome), (path, outcome.error)
        assert not _leaks(outcome)
    globbed = await _call(registry, "read_file", {"path": f"{runs}/*/secret.txt"}, tier=tier)
    assert not globbed.ok and not _leaks(globbed)
    write = await _call(registry, "write_file", {"path": str(runs / OTHER / "x.txt"), "content": "x"}, tier=tier)
    assert _refused(write)
    assert not (runs / OTHER / "x.txt").exists()


@pytest.mark.parametrize("tier", TIERS)
async def test_symlinks_into_other_runs_are_refused(
    workspace: Path, relavium_home: Path, other_spill: Path, tier: str
) -> None:
    (workspace / "to-secret.txt").symlink_to(other_spill)
    (workspace / "to-runs").symlink_to(relavium_home / "runs", target_is_directory=True)
    (workspace / "to-other").symlink_to(other_spill.parent, target_is_directory=True)
    registry = _registry(workspace, relavium_home, tier)
    # The own folder is the store's: a link planted there (as a bug or another
    # process might) still leads nowhere else in runs/.
    (relavium_home / "runs" / OWN / "hop").symlink_to(other_spill)
    for path in ("to-secret.txt", "to-runs/run-other00000000b/secret.txt", "to-other/secret.txt",
                 f"to-runs/{OWN}/../{OTHER}/secret.txt", str(relavium_home / "runs" / OWN / "hop")):
        outcome = await _call(registry, "read_file", {"path": path}, tier=tier)
        assert _refused(outcome), (path, outcome.error)
        assert not _leaks(outcome)
    for path in ("to-runs", "to-other"):
        outcome = await _call(registry, "list_directory", {"path": path}, tier=tier)
        assert _refused(outcome), (path, outcome.error)


async def test_walks_from_above_never_enter_runs(workspace: Path, relavium_home: Path, other_spill: Path) -> None:
    """A full-tier (or home-granted) recursive listing or glob skips the run output store."""
    registry = _registry(workspace, relavium_home, "full")
    listed = await _call(registry, "list_directory", {"path": str(relavium_home), "recursive": True}, tier="full")
    assert listed.ok, listed.error
    names = [e["name"] for e in listed.result["entries"]]
    assert "runs" in names and not any(n.startswith("runs/") for n in names)
    globbed = await _call(registry, "read_file", {"path": f"{relavium_home}/**/*.txt"}, tier="full")
    assert not _leaks(globbed)
    # A project whose workspace holds the data dir, or a granted folder above it: the same.
    registry = _registry(relavium_home, relavium_home, "project")
    outcome = await _call(registry, "read_file", {"path": f"runs/{OTHER}/secret.txt"})
    assert _refused(outcome)
    listed = await _call(registry, "list_directory", {"path": ".", "recursive": True})
    assert listed.ok and not any(e["name"].startswith("runs/") for e in listed.result["entries"])
    registry = _registry(workspace, relavium_home, "project", extra_roots=(relavium_home,))
    assert _refused(await _call(registry, "read_file", {"path": str(other_spill)}))


async def test_a_host_without_a_run_id_reads_only_the_run_it_spilled_for(
    workspace: Path, relavium_home: Path, other_spill: Path
) -> None:
    registry = _registry(workspace, relavium_home, "sandboxed", run_id=None)
    assert _refused(await _call(registry, "read_file", {"path": str(other_spill)}, run_id="late-run"))
    first = await _call(registry, "read_file", {"path": "big.txt"}, run_id="late-run")
    assert first.spill is not None and Path(first.spill.path).parent.name == "late-run"
    assert (await _call(registry, "read_file", {"path": first.spill.path}, run_id="late-run")).ok
    assert _refused(await _call(registry, "read_file", {"path": str(other_spill)}, run_id="late-run"))


# -- the real CLI -----------------------------------------------------------------

@pytest.mark.parametrize("tier", TIERS)
def test_cli_tool_call_cannot_read_or_list_another_runs_spill(
    cli_env: dict[str, str], workspace: Path, relavium_home: Path, other_spill: Path, tier: str
) -> None:
    runs = relavium_home / "runs"
    for tool, args in (
        ("read_file", {"path": str(other_spill)}),
        ("read_file", {"path": f"{runs}/tool-x/../{OTHER}/secret.txt"}),
        ("list_directory", {"path": str(runs)}),
        ("list_directory", {"path": str(runs / OTHER)}),
    ):
        code, out, err = run_cli("tool", "call", tool, "--workspace", str(workspace), "--tier", tier,
                                 "--args", json.dumps(args), "--json", env=cli_env)
        assert code == 1, (tool, args, out, err)
        assert out["ok"] is False and out["error"]["code"] == "tool_denied", out
        assert out["error"]["reason"] == "outside_scope", out
        assert SECRET not in json.dumps(out) and SECRET not in err
        assert OTHER not in json.dumps(out.get("result"))


def test_cli_spill_stays_for_the_user_but_another_call_cannot_read_it(
    cli_env: dict[str, str], workspace: Path, relavium_home: Path
) -> None:
    code, first, err = run_cli("tool", "call", "read_file", "--workspace", str(workspace), "--tier", "sandboxed",
                               "--args", '{"path": "big.txt"}', "--json", env=cli_env)
    assert code == 0, err
    spill = Path(first["spill"]["path"])
    assert spill.is_file() and spill.parent.parent == relavium_home / "runs"
    assert spill.parent.name.startswith("tool-")
    assert oct(os.stat(spill.parent).st_mode & 0o777) == oct(0o700)
    code, second, err = run_cli("tool", "call", "read_file", "--workspace", str(workspace), "--tier", "full",
                                "--args", json.dumps({"path": str(spill)}), "--json", env=cli_env)
    assert code == 1 and second["error"]["reason"] == "outside_scope", second
    assert "line 4999" not in json.dumps(second)
