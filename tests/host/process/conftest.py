"""A real ProcessHost over a temporary workspace and the test's own data dir."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path

import psutil
import pytest

from relavium_desktop.host.output_store import FileOutputStore
from relavium_desktop.host.process import ProcessHost, workspace_cwd_resolver


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


@pytest.fixture
def host(workspace: Path, relavium_home: Path) -> ProcessHost:
    return ProcessHost(store=FileOutputStore(relavium_home / "runs"), resolve_cwd=workspace_cwd_resolver(workspace))


def alive(pid: int) -> bool:
    """Running and not merely a zombie waiting for a reaper."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


async def wait_for_files(*paths: Path, timeout: float = 15.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not all(p.exists() and p.read_text().strip() for p in paths):
        if loop.time() > deadline:
            raise AssertionError(f"the command never wrote {[p.name for p in paths]}")
        await asyncio.sleep(0.02)


async def wait_until_gone(pids: list[int], timeout: float = 10.0) -> list[int]:
    """The pids still alive after ``timeout`` (SIGKILL delivery is asynchronous)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while (left := [p for p in pids if alive(p)]) and loop.time() < deadline:
        await asyncio.sleep(0.02)
    return left


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True,
        env={**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"},
    ).stdout


@pytest.fixture
def repo(workspace: Path) -> Path:
    git(workspace, "init", "-q", "-b", "main")
    git(workspace, "config", "user.name", "Test User")
    git(workspace, "config", "user.email", "test@example.invalid")
    (workspace / "a.txt").write_text("a1\n")
    (workspace / "b.txt").write_text("b1\n")
    git(workspace, "add", "a.txt", "b.txt")
    git(workspace, "commit", "-q", "-m", "initial")
    return workspace
