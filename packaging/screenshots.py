"""Write PNG screenshots of the desktop app with demo data (for the README).

    .venv/bin/python packaging/screenshots.py [OUTDIR]

Runs under Xvfb: without a DISPLAY it starts a private Xvfb (-displayfd) and
re-runs itself on it.  Demo data lives in a throwaway RELAVIUM_HOME and a
demo project folder; no keyring is touched (the keyring backend is set to
"fail", so the Providers tab is not captured).  Writes main-window.png,
permission-dialog.png and settings-permissions.png into
packaging/screenshots/ (or OUTDIR).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def _under_xvfb() -> int:
    read_fd, write_fd = os.pipe()
    xvfb = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_fd), "-nolisten", "tcp", "-screen", "0", "1400x900x24"],
        pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    with os.fdopen(read_fd) as pipe:
        display = pipe.readline().strip()
    try:
        env = dict(os.environ, DISPLAY=f":{display}", QT_QPA_PLATFORM="xcb")
        return subprocess.call([sys.executable, __file__, *sys.argv[1:]], env=env)
    finally:
        xvfb.terminate()
        xvfb.wait(timeout=10)


def _demo_project(root: Path) -> Path:
    project = root / "acme-website"
    (project / "src").mkdir(parents=True)
    (project / "src" / "pricing.py").write_text(
        "PLANS = {\n    'starter': 9,\n    'team': 29,\n}\n\n\ndef price(plan: str) -> int:\n    return PLANS[plan]\n"
    )
    return project


async def _shoot(out: Path, project: Path) -> None:
    from relavium_desktop.engine.tools.tooldef import ActionClass, ApprovalRequest
    from relavium_desktop.ui.qt import QApplication
    from relavium_desktop.ui.shell import MainWindow

    app = QApplication.instance()
    window = MainWindow()
    window.set_project(str(project))
    window.resize(1100, 680)
    window.show()
    window.ensure_services()
    await asyncio.sleep(0.3)
    window.grab().save(str(out / "main-window.png"))

    assert window.grants is not None
    for path, argv in (("docs/guide.md", None), (None, ["npm", "test"])):
        if path:
            window.grants.add(str(project), ApprovalRequest(
                "write_file", ActionClass.FS_WRITE, path, {"path": path, "content": ""}, "chat"))
        else:
            window.grants.add(str(project), ApprovalRequest(
                "run_command", ActionClass.PROCESS, " ".join(argv or []),
                {"command": argv[0], "args": argv[1:]}, "chat"))

    request = ApprovalRequest(
        tool_id="write_file", action_class=ActionClass.FS_WRITE, target="src/pricing.py",
        masked_args={
            "path": "src/pricing.py",
            "content": "PLANS = {\n    'starter': 9,\n    'team': 39,\n    'enterprise': 99,\n}\n\n\n"
                       "def price(plan: str) -> int:\n    return PLANS[plan]\n",
        },
        node_id="chat",
    )
    assert window.approvals is not None
    opened = []
    window.approvals.dialog_opened.connect(opened.append)
    pending = asyncio.ensure_future(window.approvals.confirm(request))
    while not opened:
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.3)
    opened[0].grab().save(str(out / "permission-dialog.png"))
    opened[0].deny_button.click()
    await pending

    window.show_settings("permissions")
    await asyncio.sleep(0.3)
    window.grab().save(str(out / "settings-permissions.png"))
    window.close()
    if app is not None:
        app.processEvents()


def main() -> int:
    if not os.environ.get("DISPLAY"):
        return _under_xvfb()
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(REPO))
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["RELAVIUM_HOME"] = str(Path(tmp) / "home")
        os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
        project = _demo_project(Path(tmp))
        import qasync

        from relavium_desktop.ui.qt import QApplication

        app = QApplication.instance() or QApplication(sys.argv[:1])
        app.setApplicationDisplayName("Relavium Desktop")
        loop = qasync.QEventLoop(app)
        asyncio.set_event_loop(loop)
        with loop:
            loop.run_until_complete(_shoot(out, project))
    for name in ("main-window.png", "permission-dialog.png", "settings-permissions.png"):
        print(out / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
