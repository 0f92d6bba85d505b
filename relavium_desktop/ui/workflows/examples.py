"""The bundled example workflows, copied into a project that has none yet.

A new user's project is empty, so the Workflows page would show nothing to
try.  The examples (``resources/examples``: no-LLM ones such as the release
gate, and agent ones with their ``$ref`` agent files) are copied into
``<project>/workflows/`` keeping their relative layout, so ``$ref`` paths
still resolve.  A file that already exists there is never overwritten: the
user may have edited it.  Blocking: call it in a worker thread.
"""

from __future__ import annotations

import shutil
from pathlib import Path

EXAMPLES_DIR = Path(__file__).resolve().parents[3] / "resources" / "examples"
TARGET = "workflows"


def example_files(source: Path = EXAMPLES_DIR) -> list[Path]:
    """Every bundled file (workflows and the agent files they reference), relative to ``source``."""
    if not source.is_dir():
        return []
    return sorted(p.relative_to(source) for p in source.rglob("*") if p.is_file() and p.suffix == ".yaml")


def add_examples(project: Path, source: Path = EXAMPLES_DIR) -> list[Path]:
    """Copy the examples into ``project/workflows``; the files written (existing ones are kept)."""
    written: list[Path] = []
    target_root = project / TARGET
    for rel in example_files(source):
        target = target_root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            # "x": refuse to replace a file, even one created since we looked.
            with (source / rel).open("rb") as src, target.open("xb") as dst:
                shutil.copyfileobj(src, dst)
        except FileExistsError:
            continue
        written.append(target)
    return written
