"""Soak: the qasync loop survives 50,000 callbacks and sustained pipe reads.

PySide6 6.12.0 on CPython 3.11 leaked a reference to None per Python slot
call and aborted with ``Fatal Python error: none_dealloc`` after ~10,000
callbacks; pyproject pins around it.  This runs the real loop in a child
process so such an abort fails the test instead of killing the runner.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

CHILD = Path(__file__).with_name("qasync_soak_child.py")
PIPE_BYTES = 200 * 1024 * 1024


def test_qasync_loop_survives_50000_callbacks_and_pipe_reads() -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run(
        [sys.executable, str(CHILD), "50000", str(PIPE_BYTES)],
        capture_output=True, text=True, timeout=300, env=env, check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "none_dealloc" not in proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["hops"] == 50_000
    assert result["slots"] == 10_000
    assert result["bytes"] == PIPE_BYTES
    expected = hashlib.sha256()
    block = b"\0" * (1024 * 1024)
    for _ in range(PIPE_BYTES // len(block)):
        expected.update(block)
    assert result["sha256"] == expected.hexdigest()
