"""The one approval flow, over a real grant store in a real history.db and real project folders.

What a user notices: "Always allow in this project" stops the questions for
that project (after a restart too), never for another project, never for a
protected file; "Allow for this session" stops them for that exact target
until the session ends; and a project opened through a symlink is the same
project.  The question itself is a recording ``ask`` hook -- the surface's
part (a dialog, a terminal prompt), which other tests drive for real.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from relavium_desktop.application.app import Application
from relavium_desktop.application.approvals import ApprovalFlow, ApprovalOffer, ProjectSessionGrants
from relavium_desktop.application.paths import AppPaths
from relavium_desktop.engine.agent.modes import SessionGrants
from relavium_desktop.engine.tools.masking import MASK
from relavium_desktop.engine.tools.tooldef import ActionClass, ApprovalDecision, ApprovalRequest
from relavium_desktop.store.grants import GrantStore


def write_req(path: str, *, protected: bool = False) -> ApprovalRequest:
    return ApprovalRequest(
        tool_id="write_file",
        action_class=ActionClass.FS_WRITE,
        target=path,
        masked_args={"path": path, "content": "x = 1\n"},
        node_id="chat",
        protected_path=protected,
        path=path,
    )


class Asker:
    """The surface's question: records what it was asked and offered, answers as scripted."""

    def __init__(self, *answers: ApprovalDecision) -> None:
        self.answers = list(answers)
        self.asked: list[tuple[ApprovalRequest, ApprovalOffer]] = []

    async def __call__(self, request: ApprovalRequest, offer: ApprovalOffer) -> ApprovalDecision:
        self.asked.append((request, offer))
        return self.answers.pop(0) if self.answers else ApprovalDecision(False, "once", "no")


def make_project(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hello')\n")
    return root


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "project")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def grants(home: Path) -> Iterator[GrantStore]:
    app = Application(AppPaths(home))
    yield app.grants()
    app.close()


async def test_always_in_this_project_is_stored_and_honoured_after_a_restart(
    home: Path, project: Path
) -> None:
    app = Application(AppPaths(home))
    asker = Asker(ApprovalDecision(True, "project"))
    flow = ApprovalFlow(app.grants(), str(project), SessionGrants(), asker)
    assert await flow.confirm(write_req("src/a.py")) == ApprovalDecision(True, "project")
    [(_, offer)] = asker.asked
    assert offer.project_grant == "writes under src/" and offer.session and not offer.protected
    assert [(g.project, g.tool, g.target.describe()) for g in app.grants().list()] == [
        (str(project.resolve()), "write_file", "writes under src/")
    ]
    app.close()

    # A new process: new Application over the same history.db, empty session cache.
    restarted = Application(AppPaths(home))
    silent = Asker()
    flow = ApprovalFlow(restarted.grants(), str(project), SessionGrants(), silent)
    assert await flow.confirm(write_req("src/other.py")) == ApprovalDecision(True, "project")
    assert await flow.confirm(write_req(str(project / "src" / "deep" / "x.py"))) == ApprovalDecision(
        True, "project"
    )
    assert silent.asked == []
    # Outside the granted folder it asks again.
    assert not (await flow.confirm(write_req("README.md"))).approved
    assert [r.target for r, _ in silent.asked] == ["README.md"]
    restarted.close()


async def test_a_protected_path_asks_even_in_a_granted_folder_and_is_never_stored(
    grants: GrantStore,
    project: Path,
) -> None:
    grants.add(str(project), write_req("src/a.py"))
    asker = Asker(ApprovalDecision(True, "project"), ApprovalDecision(True, "session"))
    session = SessionGrants()
    flow = ApprovalFlow(grants, str(project), session, asker)
    # The surface answered "always" anyway: it is honoured once, kept nowhere.
    assert await flow.confirm(write_req("src/.env", protected=True)) == ApprovalDecision(True, "once")
    assert await flow.confirm(write_req("src/.env", protected=True)) == ApprovalDecision(True, "once")
    assert len(asker.asked) == 2
    offer = asker.asked[0][1]
    assert offer.protected and offer.project_grant is None and not offer.session
    assert [g.target.value for g in grants.list()] == ["src"]
    assert not session.covers(write_req("src/.env", protected=True))


async def test_allow_for_this_session_covers_that_target_in_the_cache_given(
    grants: GrantStore,
    project: Path,
) -> None:
    session = SessionGrants()
    asker = Asker(ApprovalDecision(True, "session"))
    flow = ApprovalFlow(grants, str(project), session, asker)
    assert await flow.confirm(write_req("src/a.py")) == ApprovalDecision(True, "session")
    assert await flow.confirm(write_req("src/a.py")) == ApprovalDecision(True, "session")
    assert len(asker.asked) == 1 and session.covers(write_req("src/a.py"))
    assert grants.list() == []  # a session answer is not a project grant
    # Another file still asks; another session (a fresh cache) asks again.
    assert not (await flow.confirm(write_req("src/b.py"))).approved
    fresh = Asker()
    assert not (
        await ApprovalFlow(grants, str(project), SessionGrants(), fresh).confirm(write_req("src/a.py"))
    ).approved
    assert len(fresh.asked) == 1


async def test_a_grant_for_one_project_does_not_cover_another(grants: GrantStore, tmp_path: Path) -> None:
    a = make_project(tmp_path / "a")
    b = make_project(tmp_path / "b")
    await ApprovalFlow(grants, str(a), SessionGrants(), Asker(ApprovalDecision(True, "project"))).confirm(
        write_req("src/app.py")
    )
    asker = Asker()
    in_b = ApprovalFlow(grants, str(b), SessionGrants(), asker)
    assert not (await in_b.confirm(write_req("src/app.py"))).approved
    assert len(asker.asked) == 1 and asker.asked[0][1].project == str(b.resolve())
    # Nor does an absolute path into A, asked from B: B's grants are B's.
    assert not (await in_b.confirm(write_req(str(a / "src" / "app.py")))).approved
    assert asker.asked[1][1].outside and asker.asked[1][1].project_grant is None


async def test_a_project_opened_through_a_symlink_is_the_same_project(
    grants: GrantStore,
    project: Path,
    tmp_path: Path,
) -> None:
    link = tmp_path / "link-to-project"
    link.symlink_to(project, target_is_directory=True)
    via_link = ApprovalFlow(grants, str(link), SessionGrants(), Asker(ApprovalDecision(True, "project")))
    assert via_link.project == str(project.resolve())
    await via_link.confirm(write_req("src/a.py"))
    assert [g.project for g in grants.list()] == [str(project.resolve())]
    silent = Asker()
    assert await ApprovalFlow(grants, str(project), SessionGrants(), silent).confirm(
        write_req("src/b.py")
    ) == ApprovalDecision(True, "project")
    assert await ApprovalFlow(grants, link, SessionGrants(), silent).confirm(
        write_req(str(link / "src" / "c.py"))
    ) == ApprovalDecision(True, "project")
    assert silent.asked == []
    # The session caches are per canonical project too.
    caches = ProjectSessionGrants()
    assert caches.for_project(str(link)) is caches.for_project(project)
    assert caches.for_project(str(link)) is not caches.for_project(tmp_path)


async def test_what_cannot_be_granted_is_not_offered_and_an_always_answer_is_kept_once(
    grants: GrantStore,
    project: Path,
) -> None:
    asker = Asker(ApprovalDecision(True, "project"), ApprovalDecision(True, "project"))
    flow = ApprovalFlow(grants, str(project), SessionGrants(), asker)
    masked = write_req(f"src/{MASK}.txt")  # a secret in the path: a grant would match every secret
    assert await flow.confirm(masked) == ApprovalDecision(True, "once")
    assert asker.asked[0][1].project_grant is None and not asker.asked[0][1].session
    # No project (the window before a folder is chosen): nothing to keep a project grant in.
    no_project = ApprovalFlow(grants, "", SessionGrants(), asker)
    assert await no_project.confirm(write_req("src/a.py")) == ApprovalDecision(True, "once")
    assert asker.asked[1][1].project_grant is None
    assert grants.list() == []


async def test_a_command_grant_is_for_that_exact_argument_vector(grants: GrantStore, project: Path) -> None:
    def run(*argv: str) -> ApprovalRequest:
        return ApprovalRequest(
            tool_id="run_command",
            action_class=ActionClass.PROCESS,
            target=" ".join(argv),
            masked_args={"command": argv[0], "args": list(argv[1:])},
            node_id="chat",
        )

    asker = Asker(ApprovalDecision(True, "project"))
    flow = ApprovalFlow(grants, str(project), SessionGrants(), asker)
    assert await flow.confirm(run("npm", "test")) == ApprovalDecision(True, "project")
    assert asker.asked[0][1].project_grant == "exactly: npm test"
    assert await flow.confirm(run("npm", "test")) == ApprovalDecision(True, "project")
    assert not (await flow.confirm(run("npm", "publish"))).approved
    assert len(asker.asked) == 2
