"""Chat modes → approval regimes, through the real registry pipeline (no host call needed)."""

from __future__ import annotations

import pytest

from relavium_desktop.engine.agent.mode_ids import ChatMode
from relavium_desktop.engine.agent.modes import SessionApprovals, SessionGrants, session_key
from relavium_desktop.engine.tools.fs_floors import is_protected_write
from relavium_desktop.engine.tools.tooldef import (
    ActionClass,
    ApprovalDecision,
    ApprovalRequest,
)


def req(action: ActionClass = ActionClass.FS_WRITE, target: str = "src/a.py", tool: str = "write_file") -> ApprovalRequest:
    # As the registry builds it: protected-path writes are flagged from the pure floor rules.
    protected = action is ActionClass.FS_WRITE and is_protected_write(target)
    return ApprovalRequest(
        tool_id=tool, action_class=action, target=target, masked_args={}, node_id="chat", protected_path=protected
    )


class Asker:
    def __init__(self, *answers: ApprovalDecision) -> None:
        self.answers = list(answers)
        self.asked: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> ApprovalDecision:
        self.asked.append(request)
        return self.answers.pop(0)


@pytest.mark.parametrize("mode", [ChatMode.ASK, ChatMode.PLAN])
def test_ask_and_plan_deny_every_governed_class(mode: ChatMode) -> None:
    regime = SessionApprovals(mode, Asker()).regime()
    assert regime.deny == {ActionClass.FS_WRITE, ActionClass.PROCESS, ActionClass.EGRESS, ActionClass.OS}
    assert ActionClass.READ not in regime.deny


async def test_accept_edits_asks_every_time_unless_always() -> None:
    asker = Asker(ApprovalDecision(True), ApprovalDecision(True, scope="session"))
    regime = SessionApprovals(ChatMode.ACCEPT_EDITS, asker).regime()
    assert regime.hook is not None
    assert (await regime.hook(req())).approved
    assert (await regime.hook(req())).approved
    assert (await regime.hook(req())).approved  # "always" from the 2nd answer
    assert len(asker.asked) == 2
    # "always" covered that exact target only.
    with pytest.raises(IndexError):
        await regime.hook(req(target="src/b.py"))


async def test_auto_approves_but_asks_for_protected_writes_and_never_remembers_them() -> None:
    asker = Asker(ApprovalDecision(True, scope="session"), ApprovalDecision(False))
    regime = SessionApprovals(ChatMode.AUTO, asker).regime()
    assert regime.hook is not None
    assert (await regime.hook(req(ActionClass.PROCESS, "rm -rf x", "run_command"))).approved
    assert (await regime.hook(req(target="src/a.py"))).approved
    assert asker.asked == []
    assert (await regime.hook(req(target=".git/config"))).approved
    assert not (await regime.hook(req(target=".git/config"))).approved  # asked again: no session grant
    assert len(asker.asked) == 2


@pytest.mark.parametrize("target", [".env", ".env.local", "a/.git/hooks/pre-commit", "A/.GIT/config",
                                    "home/.ssh/id_ed25519", ".relavium/x", "sub\\.git\\config", "x/.npmrc",
                                    ".github/workflows/ci.yml", "home/.gnupg/gpg.conf", ".bashrc"])
def test_protected_targets(target: str) -> None:
    assert is_protected_write(target)


@pytest.mark.parametrize("target", ["src/env.py", "docs/github/x.md", "gitignore", "environment.txt", ".envelope"])
def test_ordinary_targets(target: str) -> None:
    assert not is_protected_write(target)


async def test_session_grants_are_one_cache_shared_by_regimes() -> None:
    shared = SessionGrants()
    first = SessionApprovals(ChatMode.ACCEPT_EDITS, Asker(ApprovalDecision(True, scope="session")), shared)
    second_asker = Asker()
    second = SessionApprovals(ChatMode.ACCEPT_EDITS, second_asker, shared)
    assert first.regime().hook is not None and second.regime().hook is not None
    assert (await first.regime().hook(req())).approved
    assert (await second.regime().hook(req())).approved and second_asker.asked == []


def test_session_key_never_covers_protected_or_masked_targets() -> None:
    assert session_key(req(target="src/a.py")) == ("write_file", "fs_write", "src/a.py")
    assert session_key(req(target=".git/config")) is None
    assert session_key(req(ActionClass.EGRESS, "https://x.example/?k=***", "http_request")) is None
