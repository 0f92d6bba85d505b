"""``inside_workspace``: what "Auto-approve edits" lets through unasked, and the ways around it that must fail."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from relavium_desktop.host.fs.inside import inside_workspace


@pytest.fixture
def base(tmp_path: Path) -> Path:
    (tmp_path / "proj" / "src").mkdir(parents=True)
    (tmp_path / "proj" / "src" / "a.py").write_text("x\n")
    (tmp_path / "proj2").mkdir()
    (tmp_path / "elsewhere").mkdir()
    return tmp_path


@pytest.mark.parametrize("path", [
    "src/a.py",            # an existing file
    "src/new.py",          # not there yet: non-strict resolution
    "new/deep/file.txt",   # nor its folders
    ".",                   # the project itself
    "src/../README.md",    # a `..` that stays inside
    "./src//a.py",
])
def test_relative_paths_inside_the_project(base: Path, path: str) -> None:
    assert inside_workspace(base / "proj", path)


def test_absolute_paths_inside_the_project(base: Path) -> None:
    assert inside_workspace(base / "proj", str(base / "proj" / "src" / "a.py"))
    assert inside_workspace(base / "proj", str(base / "proj"))
    assert inside_workspace(base / "proj", str(base / "proj" / "src" / ".." / "b.txt"))


@pytest.mark.parametrize("path", [
    "../elsewhere/x.txt",          # a `..` escape
    "src/../../elsewhere/x.txt",   # a deeper one
    "../proj2/x.txt",              # a sibling whose name starts with the project's
    "..",
    "",                            # no path: ask
    "bad\x00name",                 # a NUL byte never resolves
])
def test_relative_escapes_are_outside(base: Path, path: str) -> None:
    assert not inside_workspace(base / "proj", path)


def test_sibling_with_the_same_prefix_is_outside(base: Path) -> None:
    assert not inside_workspace(base / "proj", str(base / "proj2" / "x.txt"))
    assert not inside_workspace(base / "proj", str(base / "proj2"))
    assert not inside_workspace(base / "proj", str(base / "proj.txt"))


def test_absolute_paths_elsewhere_are_outside(base: Path) -> None:
    assert not inside_workspace(base / "proj", str(base / "elsewhere" / "x.txt"))
    assert not inside_workspace(base / "proj", "/etc/passwd")
    assert not inside_workspace(base / "proj", str(base))


def test_a_symlink_pointing_out_is_outside(base: Path) -> None:
    ws = base / "proj"
    (ws / "out").symlink_to(base / "elsewhere", target_is_directory=True)
    (ws / "dotfile").symlink_to(base / "elsewhere" / "x.txt")  # a dangling link to a file outside
    assert not inside_workspace(ws, "out/x.txt")
    assert not inside_workspace(ws, "out")
    assert not inside_workspace(ws, "dotfile")
    assert not inside_workspace(ws, str(ws / "out" / "new" / "y.txt"))


def test_a_link_deeper_inside_cannot_carry_dotdot_out(base: Path) -> None:
    """The fs host folds ``..`` before it looks at links: ``deep/../../x`` lands beside the project."""
    ws = base / "proj"
    (ws / "src" / "pkg").mkdir()
    (ws / "deep").symlink_to(ws / "src" / "pkg", target_is_directory=True)
    assert os.path.realpath(ws / "deep" / ".." / ".." / "elsewhere") == str(ws / "elsewhere")  # resolves inside
    assert not inside_workspace(ws, "deep/../../elsewhere/x.txt")
    assert not inside_workspace(ws, str(ws / "deep" / ".." / ".." / "elsewhere" / "x.txt"))


def test_a_symlink_staying_inside_is_inside(base: Path) -> None:
    ws = base / "proj"
    (ws / "lib").symlink_to(ws / "src", target_is_directory=True)
    assert inside_workspace(ws, "lib/a.py")


def test_a_symlinked_workspace_matches_either_spelling_of_itself(base: Path) -> None:
    link = base / "proj-link"
    link.symlink_to(base / "proj", target_is_directory=True)
    assert inside_workspace(link, "src/a.py")
    assert inside_workspace(link, str(link / "src" / "a.py"))
    assert inside_workspace(link, str(base / "proj" / "src" / "a.py"))  # the workspace as resolved
    # A link outside the project is not the project's name, whatever it points at (the host refuses it too).
    assert not inside_workspace(base / "proj", str(link / "src" / "a.py"))
    assert not inside_workspace(link, "../elsewhere/x.txt")


@pytest.mark.skipif(os.name == "nt", reason="names compare exactly on Linux; Windows folds case")
def test_case_is_compared_exactly(base: Path) -> None:
    assert not inside_workspace(base / "proj", str(base / "PROJ" / "a.py"))
    assert not inside_workspace(base / "proj", "../Proj/a.py")
