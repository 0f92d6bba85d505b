"""The registry is built one way, in one module, for every surface.

Checks the promise of issue 12 (point 2) directly on the source -- one
``ToolRegistry(`` call outside the tests, in ``application/tools.py`` -- and
that a registry without a host offers every built-in with no capability
behind it (each OS tool then fails closed).
"""

from __future__ import annotations

import re
from pathlib import Path

from relavium_desktop.application.tools import tool_registry
from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS
from tests.conftest import REPO

PACKAGE = REPO / "relavium_desktop"


def _sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_the_registry_is_constructed_in_exactly_one_module() -> None:
    constructing = [p.relative_to(REPO).as_posix() for p in _sources()
                    if re.search(r"(?<!class )\bToolRegistry\(", p.read_text(encoding="utf-8"))]
    assert constructing == ["relavium_desktop/application/tools.py"]


def test_no_ui_module_imports_cli() -> None:
    offenders = [p.relative_to(REPO).as_posix() for p in sorted((PACKAGE / "ui").rglob("*.py"))
                 if re.search(r"relavium_desktop\.cli\b|from relavium_desktop import cli\b",
                              p.read_text(encoding="utf-8"))]
    assert offenders == []


def test_a_bare_registry_offers_every_builtin_with_no_capability(relavium_home: Path) -> None:
    registry = tool_registry(home=relavium_home)
    assert sorted(t["id"] for t in registry.describe()) == sorted(t.id for t in BUILTIN_TOOLS)
    assert registry.host.fs is None and registry.host.process is None and registry.host.egress is None
    assert registry.host.mcp is None and registry.host.mcp_or_absent().server_names() == []
