"""Relavium's own helper programs run from the installed bundle too, asked for by name.

The bundle has no interpreter and no script files, so the orphan watcher and
the sandbox launcher are started as ``relavium --relavium-helper NAME ...``.
The bundle itself is built only by tests/packaging; here the frozen case is
the real ``relavium`` entry point with ``sys.frozen`` set in a child process
(what PyInstaller sets), so the whole chain -- argv, entry point, launcher,
Landlock, exec -- runs for real.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from relavium_desktop.host.process.helper_programs import HELPER_FLAG, helper_argv
from tests.conftest import relavium_cmd

# A child that behaves as the bundle does: sys.frozen set, sys.executable the `relavium` program.
FROZEN_CHILD = """
import json, subprocess, sys
from pathlib import Path
sys.frozen = True
sys.executable = sys.argv[1]
from relavium_desktop.host.process.sandbox import build_spec, launcher_argv, preexec_for
workspace, outside = Path(sys.argv[2]), Path(sys.argv[3])
confinement = preexec_for(build_spec("strict", workspace=workspace))
argv = launcher_argv(confinement, "/bin/sh", ["-c", f"echo in > {workspace}/in.txt; echo out > {outside}/out.txt"])
done = subprocess.run(argv, pass_fds=(confinement.fd,), capture_output=True, text=True)
confinement.close()
print(json.dumps({"argv": argv[:3], "code": done.returncode, "stderr": done.stderr}))
"""


def test_from_the_source_tree_a_helper_is_its_script_under_the_same_interpreter(tmp_path: Path) -> None:
    script = tmp_path / "x.py"
    assert helper_argv("sandbox-exec", script, "3") == [sys.executable, "-I", "-S", str(script), "3"]


def test_the_relavium_entry_runs_a_helper_asked_for_by_name(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    # The launcher refuses a descriptor that is no ruleset: exit 126, and the program never runs.
    done = subprocess.run([*relavium_cmd(), HELPER_FLAG, "sandbox-exec", "987", "/bin/sh", "-c", f"touch {marker}"],
                          capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 126 and "the sandbox could not be applied" in done.stderr
    assert not marker.exists()
    unknown = subprocess.run([*relavium_cmd(), HELPER_FLAG, "nope"], capture_output=True, text=True, check=False,
                             timeout=60)
    assert unknown.returncode == 2 and "no helper program named 'nope'" in unknown.stderr


def test_in_the_bundle_the_sandbox_launcher_is_the_app_itself_and_still_confines(tmp_path: Path) -> None:
    workspace, outside = tmp_path / "project", tmp_path / "elsewhere"
    workspace.mkdir()
    outside.mkdir()
    relavium = Path(sys.executable).with_name("relavium")
    assert relavium.exists(), "the relavium console script is not installed next to the test interpreter"
    child = subprocess.run([sys.executable, "-c", FROZEN_CHILD, str(relavium), str(workspace), str(outside)],
                           capture_output=True, text=True, check=False, timeout=60)
    assert child.returncode == 0, child.stderr
    report = json.loads(child.stdout.strip().splitlines()[-1])
    assert report["argv"] == [str(relavium), HELPER_FLAG, "sandbox-exec"]
    assert (workspace / "in.txt").read_text() == "in\n"  # the program ran, through the app's own entry
    assert not (outside / "out.txt").exists()  # ... and confined
    assert "Permission denied" in report["stderr"]
