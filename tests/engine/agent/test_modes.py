"""Chat modes → approval regimes: the mode table through a real registry over a real host, then the pieces."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest

from relavium_desktop.application.tools import surface_host, tool_registry
from relavium_desktop.engine.agent.mode_ids import (
    ACCEPTED_MODE_IDS,
    DEFAULT_MODE,
    MODE_DESCRIPTIONS,
    MODE_IDS,
    MODE_TITLES,
    ChatMode,
    parse_mode,
)
from relavium_desktop.engine.agent.modes import (
    GOVERNED,
    SessionApprovals,
    SessionGrants,
    mode_allowing,
    session_key,
)
from relavium_desktop.engine.tools.fs_floors import is_protected_write
from relavium_desktop.engine.tools.registry import DispatchOutcome, ToolRegistry
from relavium_desktop.engine.tools.tooldef import (
    ActionClass,
    ApprovalDecision,
    ApprovalRequest,
    ToolCall,
    ToolDispatchContext,
    ToolPolicy,
)
from relavium_desktop.host.fs.inside import inside_workspace


def req(action: ActionClass = ActionClass.FS_WRITE, target: str = "src/a.py", tool: str = "write_file") -> ApprovalRequest:
    # As the registry builds it: protected-path writes are flagged from the pure floor rules.
    protected = action is ActionClass.FS_WRITE and is_protected_write(target)
    return ApprovalRequest(
        tool_id=tool, action_class=action, target=target, masked_args={}, node_id="chat", protected_path=protected,
        path=target if action is ActionClass.FS_WRITE else None,
    )


class Asker:
    def __init__(self, *answers: ApprovalDecision) -> None:
        self.answers = list(answers)
        self.asked: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> ApprovalDecision:
        self.asked.append(request)
        return self.answers.pop(0)


# -- the table, end to end ------------------------------------------------------

RAN, PROMPTED, DENIED = "ran without a prompt", "prompted", "denied by the mode"
READ_ONLY_SAYS = "is not available in Read-only mode, which changes nothing; switch to \u201cAsk before acting\u201d"

# action -> (tool, args); "{extra}" is the granted folder outside the project.
ACTIONS: dict[str, tuple[str, dict[str, Any]]] = {
    "read in project": ("read_file", {"path": "notes.txt"}),
    "write in project": ("write_file", {"path": "src/new.txt", "content": "new\n"}),
    "write protected": ("write_file", {"path": ".env", "content": "TOKEN=x\n"}),
    "write outside, granted": ("write_file", {"path": "{extra}/notes.txt", "content": "out\n"}),
    "command": ("run_command", {"command": "echo", "args": ["hi"]}),
}

TABLE: dict[ChatMode, dict[str, str]] = {
    ChatMode.READ_ONLY: {"read in project": RAN, "write in project": DENIED, "write protected": DENIED,
                         "write outside, granted": DENIED, "command": DENIED},
    ChatMode.CONFIRM: {"read in project": RAN, "write in project": PROMPTED, "write protected": PROMPTED,
                       "write outside, granted": PROMPTED, "command": PROMPTED},
    ChatMode.ACCEPT_EDITS: {"read in project": RAN, "write in project": RAN, "write protected": PROMPTED,
                            "write outside, granted": PROMPTED, "command": PROMPTED},
    ChatMode.AUTO: {"read in project": RAN, "write in project": RAN, "write protected": PROMPTED,
                    "write outside, granted": RAN, "command": RAN},
}


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, Path]:
    """A project with a file to read, and a granted folder outside it."""
    workspace, extra = tmp_path / "proj", tmp_path / "extra"
    (workspace / "src").mkdir(parents=True)
    (workspace / "notes.txt").write_text("remember the milk\n")
    extra.mkdir()
    return workspace, extra


def _registry(workspace: Path, extra: Path, home: Path) -> ToolRegistry:
    return tool_registry(surface_host(workspace, surface="chat", extra_roots=(extra,), home=home), home=home)


async def _dispatch(registry: ToolRegistry, approvals: SessionApprovals, tool: str,
                    args: dict[str, Any]) -> DispatchOutcome:
    ctx = ToolDispatchContext(
        run_id="chat-test", node_id="chat", granted_tool_ids=frozenset({tool}),
        policy=ToolPolicy(allowed_commands=("echo hi",)), approval=approvals.regime(),
    )
    return await registry.dispatch(ToolCall(tool, args), ctx)


# A command that runs starts a real process: those cases stay out of the fast lane.
@pytest.mark.parametrize("action", [pytest.param(a, marks=pytest.mark.spawns) if a == "command" else a
                                    for a in ACTIONS])
@pytest.mark.parametrize("mode", list(ChatMode))
async def test_mode_table(mode: ChatMode, action: str, project: tuple[Path, Path], relavium_home: Path) -> None:
    workspace, extra = project
    tool, args = ACTIONS[action]
    args = {k: v.replace("{extra}", str(extra)) if isinstance(v, str) else v for k, v in args.items()}
    # Every prompt is answered "no": a prompted action is then refused by the user, never run.
    asker = Asker(*[ApprovalDecision(False, reason="not now")] * 2)
    approvals = SessionApprovals(mode, asker, in_project=functools.partial(inside_workspace, workspace))
    outcome = await _dispatch(_registry(workspace, extra, relavium_home), approvals, tool, args)
    expected = TABLE[mode][action]
    if expected == RAN:
        assert outcome.ok, outcome.error
        assert asker.asked == []
    elif expected == PROMPTED:
        assert len(asker.asked) == 1
        assert outcome.error is not None and (outcome.error.code, outcome.error.reason) == (
            "tool_denied", "user_rejected")
        assert "refused by the user" in outcome.error.message
    else:
        assert asker.asked == []
        assert outcome.error is not None and (outcome.error.code, outcome.error.reason) == (
            "tool_denied", "user_rejected")
        assert outcome.error.message == f"{tool} {READ_ONLY_SAYS} to allow it."
    if tool == "write_file" and expected != RAN:
        assert not (workspace / "src" / "new.txt").exists() and not (workspace / ".env").exists()
        assert not (extra / "notes.txt").exists()


async def test_the_prompt_carries_the_write_path_and_a_yes_writes(
    project: tuple[Path, Path], relavium_home: Path
) -> None:
    workspace, extra = project
    asker = Asker(ApprovalDecision(True))
    approvals = SessionApprovals(ChatMode.CONFIRM, asker)
    outcome = await _dispatch(_registry(workspace, extra, relavium_home), approvals, "write_file",
                              {"path": "src/new.txt", "content": "new\n"})
    assert outcome.ok, outcome.error
    assert (workspace / "src" / "new.txt").read_text() == "new\n"
    assert [(r.path, r.protected_path) for r in asker.asked] == [("src/new.txt", False)]


async def test_accept_edits_without_a_project_predicate_asks(project: tuple[Path, Path], relavium_home: Path) -> None:
    workspace, extra = project
    asker = Asker(ApprovalDecision(False))
    approvals = SessionApprovals(ChatMode.ACCEPT_EDITS, asker)  # no in_project: every doubt asks
    outcome = await _dispatch(_registry(workspace, extra, relavium_home), approvals, "write_file",
                              {"path": "src/new.txt", "content": "new\n"})
    assert not outcome.ok and len(asker.asked) == 1


async def test_accept_edits_asks_for_an_escape_through_a_symlink(project: tuple[Path, Path]) -> None:
    workspace, extra = project
    (workspace / "out").symlink_to(extra, target_is_directory=True)
    asker = Asker(ApprovalDecision(False), ApprovalDecision(False))
    hook = SessionApprovals(ChatMode.ACCEPT_EDITS, asker,
                            in_project=functools.partial(inside_workspace, workspace)).regime().hook
    assert hook is not None
    assert not (await hook(req(target="out/x.txt"))).approved
    assert not (await hook(req(target="../proj2/x.txt"))).approved
    assert len(asker.asked) == 2


async def test_accept_edits_asks_when_dotdot_after_an_inner_link_leaves_the_project(
    project: tuple[Path, Path], relavium_home: Path
) -> None:
    """``deep`` points into ``src``: ``deep/../../extra`` resolves inside, but the host writes into ``extra``."""
    workspace, extra = project
    (workspace / "src" / "pkg").mkdir()
    (workspace / "deep").symlink_to(workspace / "src" / "pkg", target_is_directory=True)
    asker = Asker(ApprovalDecision(False))
    approvals = SessionApprovals(ChatMode.ACCEPT_EDITS, asker, in_project=functools.partial(inside_workspace, workspace))
    outcome = await _dispatch(_registry(workspace, extra, relavium_home), approvals, "write_file",
                              {"path": "deep/../../extra/notes.txt", "content": "out\n"})
    assert len(asker.asked) == 1 and not outcome.ok
    assert not (extra / "notes.txt").exists()


@pytest.mark.spawns  # runs a real command: kept out of the fast lane
async def test_a_confirm_grant_for_the_session_runs_without_a_prompt(
    project: tuple[Path, Path], relavium_home: Path
) -> None:
    workspace, extra = project
    asker = Asker(ApprovalDecision(True, scope="session"))
    approvals = SessionApprovals(ChatMode.CONFIRM, asker)
    registry = _registry(workspace, extra, relavium_home)
    for _ in range(2):
        outcome = await _dispatch(registry, approvals, "run_command", {"command": "echo", "args": ["hi"]})
        assert outcome.ok, outcome.error
    assert len(asker.asked) == 1


# -- ids, aliases, descriptions ------------------------------------------------------

@pytest.mark.parametrize("text", ["ask", "plan", "read-only", " ASK ", "Plan\n", "Read-Only"])
def test_upstream_ids_and_spellings_parse_to_read_only(text: str) -> None:
    assert parse_mode(text) is ChatMode.READ_ONLY


@pytest.mark.parametrize(("text", "mode"), [("confirm", ChatMode.CONFIRM), ("accept-edits", ChatMode.ACCEPT_EDITS),
                                            ("AUTO", ChatMode.AUTO)])
def test_canonical_ids_parse(text: str, mode: ChatMode) -> None:
    assert parse_mode(text) is mode


def test_an_unknown_mode_lists_every_accepted_id() -> None:
    with pytest.raises(ValueError, match="nonsense") as caught:
        parse_mode("nonsense")
    for mode_id in ("read-only", "confirm", "accept-edits", "auto", "ask", "plan"):
        assert mode_id in str(caught.value)


def test_ids_titles_descriptions_and_default() -> None:
    assert MODE_IDS == ("read-only", "confirm", "accept-edits", "auto")
    assert set(ACCEPTED_MODE_IDS) == {*MODE_IDS, "ask", "plan"}
    assert DEFAULT_MODE is ChatMode.CONFIRM
    assert MODE_TITLES[ChatMode.CONFIRM] == "Ask before acting"
    for mode in ChatMode:
        assert MODE_TITLES[mode] and MODE_DESCRIPTIONS[mode].endswith(".")
        assert "\n" not in MODE_DESCRIPTIONS[mode]


@pytest.mark.parametrize("action", sorted(GOVERNED))
def test_mode_allowing_names_the_smallest_step_from_read_only(action: ActionClass) -> None:
    assert mode_allowing(ChatMode.READ_ONLY, action) is ChatMode.CONFIRM
    for mode in (ChatMode.CONFIRM, ChatMode.ACCEPT_EDITS, ChatMode.AUTO):
        assert mode_allowing(mode, action) is None


def test_mode_allowing_reads_is_none() -> None:
    assert all(mode_allowing(mode, ActionClass.READ) is None for mode in ChatMode)


# -- the hook on its own ---------------------------------------------------------------

def test_read_only_denies_every_governed_class() -> None:
    regime = SessionApprovals(ChatMode.READ_ONLY, Asker()).regime()
    assert regime.deny == {ActionClass.FS_WRITE, ActionClass.PROCESS, ActionClass.EGRESS, ActionClass.OS}
    assert ActionClass.READ not in regime.deny
    assert regime.deny_message is not None
    assert regime.deny_message("http_request", ActionClass.EGRESS) == (
        "http_request is not available in Read-only mode, which changes nothing; "
        "switch to \u201cAsk before acting\u201d to allow it."
    )


async def test_confirm_asks_every_time_unless_always() -> None:
    asker = Asker(ApprovalDecision(True), ApprovalDecision(True, scope="session"))
    regime = SessionApprovals(ChatMode.CONFIRM, asker).regime()
    assert regime.hook is not None
    assert (await regime.hook(req())).approved
    assert (await regime.hook(req())).approved
    assert (await regime.hook(req())).approved  # "always" from the 2nd answer
    assert len(asker.asked) == 2
    # "always" covered that exact target only.
    with pytest.raises(IndexError):
        await regime.hook(req(target="src/b.py"))


async def test_accept_edits_fails_towards_asking() -> None:
    asker = Asker(*[ApprovalDecision(False)] * 4)

    def boom(path: str) -> bool:
        raise OSError("unreadable")

    everywhere = SessionApprovals(ChatMode.ACCEPT_EDITS, asker, in_project=lambda _p: True).regime().hook
    broken = SessionApprovals(ChatMode.ACCEPT_EDITS, asker, in_project=boom).regime().hook
    assert everywhere is not None and broken is not None
    assert (await everywhere(req(target="src/a.py"))).approved
    assert not (await everywhere(req(target="src/***.py"))).approved  # a masked path is not vouched for
    assert not (await everywhere(req(target=".git/config"))).approved  # protected: asks
    assert not (await everywhere(req(ActionClass.PROCESS, "make", "run_command"))).approved
    assert not (await broken(req(target="src/a.py"))).approved
    assert len(asker.asked) == 4


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
    first = SessionApprovals(ChatMode.CONFIRM, Asker(ApprovalDecision(True, scope="session")), shared)
    second_asker = Asker()
    second = SessionApprovals(ChatMode.CONFIRM, second_asker, shared)
    assert first.regime().hook is not None and second.regime().hook is not None
    assert (await first.regime().hook(req())).approved
    assert (await second.regime().hook(req())).approved and second_asker.asked == []


def test_session_key_never_covers_protected_or_masked_targets() -> None:
    assert session_key(req(target="src/a.py")) == ("write_file", "fs_write", "src/a.py")
    assert session_key(req(target=".git/config")) is None
    assert session_key(req(ActionClass.EGRESS, "https://x.example/?k=***", "http_request")) is None
