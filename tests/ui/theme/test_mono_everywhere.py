"""Code, paths and arguments are set in the shipped JetBrains Mono everywhere, never the desktop's fixed font.

A view that asks Qt for the system's fixed font (or a rich-text "monospace")
gets whatever the desktop has -- DejaVu Sans Mono here, Menlo or Consolas
elsewhere -- beside the design's JetBrains Mono on the next card.
"""

from __future__ import annotations

import re
from pathlib import Path

from relavium_desktop.engine.tools.tooldef import ActionClass, ApprovalRequest
from relavium_desktop.host.mcp.hooks import ConsentRequest
from relavium_desktop.ui.mcp.consent_dialog import ConsentDialog
from relavium_desktop.ui.permission_dialog import PermissionDialog
from relavium_desktop.ui.qt import QFont, QFontInfo, QWidget
from relavium_desktop.ui.theme.fonts import MONO_FAMILY
from relavium_desktop.ui.workflows.list_row import path_font

UI = Path(__file__).resolve().parents[3] / "relavium_desktop" / "ui"
SYSTEM_MONO = re.compile(r"SystemFont\.FixedFont|font-family:\s*monospace")


def face(widget: QWidget) -> str:
    return QFontInfo(widget.font()).family()


def test_no_view_asks_for_the_desktops_fixed_font() -> None:
    offenders = [f"{p.relative_to(UI)}:{n}" for p in sorted(UI.rglob("*.py")) if p.name != "fonts.py"
                 for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if SYSTEM_MONO.search(line)]
    assert offenders == []


def test_the_sheets_set_arguments_and_commands_in_jetbrains_mono(theme, qtbot, tmp_path: Path) -> None:
    request = ApprovalRequest("run_command", ActionClass.PROCESS, "pytest -q",
                              {"command": "pytest", "args": ["-q"]}, "chat")
    sheet = PermissionDialog(request, project=str(tmp_path), diff=None, grant_label=None, protected=False)
    qtbot.addWidget(sheet)
    assert face(sheet.args_view) == MONO_FAMILY
    consent = ConsentDialog(ConsentRequest(server="files", fingerprint="f" * 64, command="npx",
                                           args=("-y", "files-server"), env_names=(), cwd=str(tmp_path)))
    qtbot.addWidget(consent)
    assert face(consent.command_label) == MONO_FAMILY
    assert face(consent.args_view) == MONO_FAMILY
    assert QFontInfo(path_font(QFont())).family() == MONO_FAMILY  # the workflow list's path line
