"""The one atomic settings-file write: the old file survives any failure, the new one is owner-only."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from relavium_desktop.host.atomic import write_text_atomic


def test_replaces_in_one_step_owner_only_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "conf" / "mcp.yaml"
    write_text_atomic(target, "a: 1\n")
    write_text_atomic(target, "a: 2\n")
    assert target.read_text() == "a: 2\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    # The version replaced is kept, owner-only, as the one backup.
    assert sorted(os.listdir(target.parent)) == ["mcp.yaml", "mcp.yaml.bak"]
    assert (target.parent / "mcp.yaml.bak").read_text() == "a: 1\n"
    assert stat.S_IMODE((target.parent / "mcp.yaml.bak").stat().st_mode) == 0o600


def test_a_failed_write_keeps_the_old_file_and_removes_its_temp(tmp_path: Path) -> None:
    target = tmp_path / "providers.yaml"
    target.write_text("kept\n")
    with pytest.raises(UnicodeEncodeError):
        write_text_atomic(target, "bad \udc80 surrogate")
    assert target.read_text() == "kept\n"
    assert os.listdir(tmp_path) == ["providers.yaml"]
