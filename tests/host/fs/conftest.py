"""A real workspace tree with sentinels outside it and on the floors."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

# Import order matters: pydantic's lazy attributes must load before the shiboken
# import hook (pulled in by pytest-qt) sees them half-initialised.
import tests.helpers  # noqa: F401
from relavium_desktop.engine.host import ToolHost
from relavium_desktop.host.fs import FsHost, PathPolicy

SENTINEL = "SENTINEL-MUST-NEVER-BE-READ"


@dataclass
class Tree:
    base: Path
    ws: Path
    outside: Path

    def host(self, **kw: object) -> ToolHost:
        return ToolHost(fs=self.fs(**kw))

    def fs(self, hook: object = None, **kw: object) -> FsHost:
        return FsHost(PathPolicy.create(self.ws, **kw), hook=hook)  # type: ignore[arg-type]

    def snapshot_outside(self) -> dict[str, bytes]:
        out: dict[str, bytes] = {}
        for dirpath, dirnames, filenames in os.walk(self.outside):
            for name in dirnames + filenames:
                p = Path(dirpath, name)
                out[str(p)] = p.read_bytes() if p.is_file() and not p.is_symlink() else b"<dir>"
        return out


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    ws = tmp_path / "ws"
    outside = tmp_path / "outside"
    (ws / "sub" / "deep").mkdir(parents=True)
    (ws / "a" / "b").mkdir(parents=True)
    (ws / "hello.txt").write_text("hello\n")
    (ws / "sub" / "notes.md").write_text("# notes\n")
    (ws / "sub" / "deep" / "x.py").write_text("print('x')\n")
    (ws / "a" / "b" / "target.txt").write_text("inside\n")
    (outside / "a" / "b").mkdir(parents=True)
    (outside / "secret.txt").write_text(SENTINEL)
    (outside / "a" / "b" / "target.txt").write_text(SENTINEL)
    return Tree(tmp_path, ws, outside)
