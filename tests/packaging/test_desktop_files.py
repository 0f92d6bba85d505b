"""The shipped Linux desktop files pass the validators desktop environments and stores use.

A .desktop file with one bad key is silently dropped from the application
menu, and a metainfo that fails validation never reaches a software centre,
so these run the real tools (desktop-file-validate, appstreamcli, xmllint).
A missing validator is a failure, never a skip: scripts/setup installs them.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from relavium_desktop.ui.identity import APP_ID, ICON_DIR, SIZES, TRAY_STATES

ROOT = Path(__file__).resolve().parents[2]
LINUX = ROOT / "packaging" / "linux"
SHIPPED = ROOT / "relavium_desktop" / "assets" / "linux"
DESKTOP = LINUX / f"{APP_ID}.desktop"
METAINFO = LINUX / f"{APP_ID}.metainfo.xml"
MIME = LINUX / "relavium-workflow.xml"


def run_tool(*argv: str) -> subprocess.CompletedProcess[str]:
    tool = shutil.which(argv[0])
    if tool is None:
        pytest.fail(f"{argv[0]} is not installed: run scripts/setup (desktop-file-utils appstream libxml2-utils)")
    return subprocess.run([tool, *argv[1:]], capture_output=True, text=True, timeout=60, check=False)


def test_desktop_file_validates() -> None:
    result = run_tool("desktop-file-validate", str(DESKTOP))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "error" not in (result.stdout + result.stderr)


def test_desktop_file_names_the_app_and_its_workflow_type() -> None:
    text = DESKTOP.read_text(encoding="utf-8")
    assert "Exec=relavium-desktop %F" in text
    assert f"Icon={APP_ID}" in text
    assert f"StartupWMClass={APP_ID}" in text
    assert "MimeType=application/x-relavium-workflow;" in text
    assert "Name=Process what I copied" in text
    assert "Exec=relavium-desktop --process-clipboard" in text


def test_metainfo_validates_without_network() -> None:
    result = run_tool("appstreamcli", "validate", "--no-net", str(METAINFO))
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert not any(line.startswith(("E:", "W:")) for line in output.splitlines()), output


def test_metainfo_screenshots_exist_in_the_repo() -> None:
    text = METAINFO.read_text(encoding="utf-8")
    names = [part.split("</image>")[0].rsplit("/", 1)[1] for part in text.split("<image>")[1:]]
    assert names
    for name in names:
        assert (ROOT / "packaging" / "screenshots" / name).is_file(), name


def test_mime_package_is_well_formed_and_claims_the_workflow_glob() -> None:
    schema = Path("/usr/share/mime/packages/freedesktop.org.xml")
    assert schema.is_file(), "shared-mime-info is missing"
    result = run_tool("xmllint", "--noout", str(MIME), str(METAINFO))
    assert result.returncode == 0, result.stderr
    text = MIME.read_text(encoding="utf-8")
    assert 'type="application/x-relavium-workflow"' in text
    assert 'pattern="*.relavium.yaml"' in text


def test_package_ships_the_same_desktop_files_and_every_icon() -> None:
    """relavium_desktop/assets is what a wheel installs from: stale copies would install old files."""
    for source in (DESKTOP, METAINFO, MIME):
        assert (SHIPPED / source.name).read_bytes() == source.read_bytes(), (
            f"{source.name} differs from its shipped copy: run packaging/make_icons.py"
        )
    names = ["relavium", *(f"relavium-tray-{state}" for state in TRAY_STATES)]
    for name in names:
        assert (ICON_DIR / f"{name}.svg").read_bytes() == (ROOT / "resources" / "icons" / f"{name}.svg").read_bytes()
        for size in SIZES:
            png = ICON_DIR / f"{name}-{size}.png"
            data = png.read_bytes()
            assert data[:8] == b"\x89PNG\r\n\x1a\n", png
            width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
            assert (width, height) == (size, size), png
