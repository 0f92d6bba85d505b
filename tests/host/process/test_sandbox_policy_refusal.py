"""A sandbox the kernel cannot enforce refuses to run; only the policy's explicit ``off`` runs unconfined.

This machine's kernel has Landlock ABI 7, so an older kernel is simulated: the
host's ABI cap (RELAVIUM_SANDBOX_ABI_CAP, read by sandbox.support() on every
call) can only lower what the probe reports.  Everything else is real: a real
ProcessHost spawning a real interpreter that tries to write outside the
workspace, the mode arriving per call as the engine sends it (SpawnOptions).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from relavium_desktop.engine.errors import ToolUnavailableError
from relavium_desktop.engine.host import SpawnOptions
from relavium_desktop.host.process import ProcessHost

SCRIPT = "import sys\nopen(sys.argv[1], 'w').write('x')\nprint('WROTE')\n"


def spawn(host: ProcessHost, target: Path, mode: str | None) -> dict:
    opts = SpawnOptions(run_id="sandbox-policy", sandbox=mode)  # type: ignore[arg-type]
    return asyncio.run(host.spawn(sys.executable, ["-c", SCRIPT, str(target)], {}, opts))


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    return tmp_path / "outside.txt"


def test_on_this_kernel_strict_confines_and_off_does_not(host: ProcessHost, outside: Path) -> None:
    result = spawn(host, outside, "strict")
    assert result["exitCode"] != 0 and not outside.exists()
    assert "Permission denied" in result["stderr"]
    result = spawn(host, outside, "off")
    assert result["exitCode"] == 0 and outside.read_text() == "x"


@pytest.mark.parametrize(("cap", "refused"), [("3", ["strict"]), ("0", ["strict", "network"])])
def test_an_older_kernel_refuses_what_it_cannot_enforce(
    host: ProcessHost, outside: Path, monkeypatch: pytest.MonkeyPatch, cap: str, refused: list[str]
) -> None:
    monkeypatch.setenv("RELAVIUM_SANDBOX_ABI_CAP", cap)  # simulated: this kernel has ABI 7
    for mode in refused:
        with pytest.raises(ToolUnavailableError) as caught:
            spawn(host, outside, mode)
        message = str(caught.value)
        assert f"the {mode} sandbox cannot be enforced" in message
        assert "missing:" in message and "sandbox: off" in message  # what is missing, and the opt-out
        assert not outside.exists()  # never run unconfined instead
    # The policy's explicit opt-out still runs, unconfined.
    result = spawn(host, outside, "off")
    assert result["exitCode"] == 0 and outside.exists()


def test_without_a_mode_from_the_policy_the_host_default_is_strict(host: ProcessHost, outside: Path) -> None:
    result = spawn(host, outside, None)
    assert result["exitCode"] != 0 and not outside.exists()
