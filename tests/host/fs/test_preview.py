"""The permission dialog's look at a file, and a grant's folder, done by the host with the file tools' care."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from relavium_desktop.host.fs.preview import (
    CurrentText,
    canonical_folder,
    check_extra_folder,
    preview_current_text,
    relative_in,
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hello')\n")
    return root


def test_reads_a_plain_file(project: Path) -> None:
    assert preview_current_text(project, "src/app.py", 1024) == CurrentText("text", "src/app.py", "print('hello')\n")
    assert preview_current_text(project, str(project / "src" / "app.py"), 1024).rel == "src/app.py"


def test_missing_file_or_folder_is_a_new_file(project: Path) -> None:
    assert preview_current_text(project, "src/new.py", 1024) == CurrentText("missing", "src/new.py")
    assert preview_current_text(project, "fresh/dir/new.py", 1024) == CurrentText("missing", "fresh/dir/new.py")


def test_a_symlinked_file_is_not_followed(project: Path, tmp_path: Path) -> None:
    (project / "src" / "inside.py").symlink_to(project / "src" / "app.py")
    secret = tmp_path / "secret.txt"
    secret.write_text("outside secret\n")
    (project / "src" / "out.py").symlink_to(secret)
    for name in ("inside.py", "out.py"):
        result = preview_current_text(project, f"src/{name}", 1024)
        assert result.state == "symlink" and result.text is None


def test_a_parent_leading_out_of_the_project_is_outside(project: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "x.py").write_text("not yours\n")
    (project / "link").symlink_to(elsewhere)
    assert preview_current_text(project, "link/x.py", 1024) == CurrentText("outside")
    assert preview_current_text(project, "../elsewhere/x.py", 1024) == CurrentText("outside")
    assert preview_current_text(project, str(elsewhere / "x.py"), 1024) == CurrentText("outside")


def test_a_file_with_more_than_one_hard_link_is_not_read(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("shared contents\n")
    os.link(outside, project / "src" / "linked.txt")
    result = preview_current_text(project, "src/linked.txt", 1024)
    assert result.state == "hard_links" and result.text is None


def test_the_read_is_bounded(project: Path) -> None:
    (project / "big.txt").write_bytes(b"x" * 2048)
    assert preview_current_text(project, "big.txt", 2048).state == "text"
    assert preview_current_text(project, "big.txt", 2047) == CurrentText("too_large", "big.txt")


def test_not_a_regular_file(project: Path) -> None:
    assert preview_current_text(project, "src", 1024).state == "not_file"
    os.mkfifo(project / "pipe")
    assert preview_current_text(project, "pipe", 1024).state == "not_file"  # and never blocks


def test_folder_canonicalisation_for_grants(project: Path, tmp_path: Path) -> None:
    (tmp_path / "project-link").symlink_to(project)
    root = canonical_folder(tmp_path / "project-link")
    assert root == os.path.realpath(project)
    assert relative_in(root, "src/app.py") == "src/app.py"
    assert relative_in(root, "src/../src/app.py") == "src/app.py"
    assert relative_in(root, ".") == ""
    assert relative_in(root, "../outside") is None
    assert relative_in(root, "") is None and relative_in(root, "a\0b") is None

    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "outside-link").symlink_to(outside)
    assert check_extra_folder(str(tmp_path / "project-link"), str(tmp_path / "outside-link")) == str(
        outside.resolve()
    )
    for folder, why in ((str(project / "src"), "inside the project"), (str(tmp_path / "missing"), "does not exist"),
                        ("/", "whole file system"), ("", "no folder")):
        with pytest.raises(ValueError, match=why):
            check_extra_folder(str(project), folder)
