"""Acceptance 4: a SIGKILL mid-write leaves old or new content; concurrent appends lose nothing.

Real child processes run the real writer; the harness kills them with SIGKILL
at random moments, then reads the file back.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import REPO

SIZE = 24 * 1024 * 1024

WRITER = """
import sys
from relavium_desktop.host.fs import PathPolicy, writer
SIZE = int(sys.argv[2])
policy = PathPolicy.create(sys.argv[1], tier="sandboxed")
big = {"A": "A" * SIZE, "B": "B" * SIZE}
print("ready", flush=True)
i = 0
while True:
    writer.write_file(policy, "big.txt", big["B" if i % 2 == 0 else "A"], append=False, create_parents=False)
    i += 1
"""

APPENDER = """
import sys
from relavium_desktop.host.fs import PathPolicy, writer
policy = PathPolicy.create(sys.argv[1], tier="sandboxed")
who = sys.argv[2]
for i in range(int(sys.argv[3])):
    writer.write_file(policy, "log.txt", f"{who}-{i:05d}-" + "x" * 200 + "\\n", append=True, create_parents=False)
"""


def _spawn(script: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", script, *args], cwd=REPO, stdout=subprocess.PIPE, text=True
    )


def test_sigkill_during_large_writes_leaves_old_or_new_never_partial(tmp_path: Path) -> None:
    target = tmp_path / "big.txt"
    target.write_text("A" * SIZE)
    os.chmod(target, 0o640)
    rng = random.Random(1234)
    interrupted = 0
    # Six kills always; more (up to 24) until one has landed inside the temporary file's window,
    # which is narrower now that a replace first reads the old content for its line counts.
    for attempt in range(24):
        if attempt >= 6 and interrupted:
            break
        child = _spawn(WRITER, str(tmp_path), str(SIZE))
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.05, 0.4))
        child.send_signal(signal.SIGKILL)
        child.wait()
        data = target.read_bytes()
        assert len(data) == SIZE
        assert data in (b"A" * SIZE, b"B" * SIZE), "torn file after SIGKILL"
        assert (target.stat().st_mode & 0o777) == 0o640  # permissions survive the replace
        leftovers = [p for p in tmp_path.iterdir() if p.name.endswith(".relavium-tmp")]
        interrupted += bool(leftovers)
        for p in leftovers:
            p.unlink()
    # The kills really landed mid-write (a temporary file was left behind) at least once.
    assert interrupted >= 1


def test_concurrent_appenders_lose_no_line(tmp_path: Path) -> None:
    lines_each = 400
    children = [_spawn(APPENDER, str(tmp_path), who, str(lines_each)) for who in ("w1", "w2", "w3")]
    for child in children:
        assert child.wait(timeout=120) == 0
    lines = (tmp_path / "log.txt").read_text().splitlines()
    assert len(lines) == 3 * lines_each
    expected = {f"{who}-{i:05d}-" + "x" * 200 for who in ("w1", "w2", "w3") for i in range(lines_each)}
    assert set(lines) == expected
