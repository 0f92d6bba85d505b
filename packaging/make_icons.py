"""Generate the shipped icon PNGs and desktop files from their sources.

The hand-written SVGs in ``resources/icons/`` are the only source of the
app's look on the desktop; every PNG under ``relavium_desktop/assets/icons/``
is rendered from them here with QtSvg, never drawn by hand, so changing the
mark means editing one SVG and running this script.  The PNGs are committed
because the runtime (window and tray icons) and the desktop-entry installer
must work from an installed wheel, where ``resources/`` and ``packaging/``
do not exist; for the same reason the Linux desktop files from
``packaging/linux/`` are copied next to them (tests/packaging checks the
copies are identical).

    .venv/bin/python packaging/make_icons.py          # write
    .venv/bin/python packaging/make_icons.py --check  # exit 1 if anything is stale
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ROOT / "resources" / "icons"
LINUX = ROOT / "packaging" / "linux"
ASSETS = ROOT / "relavium_desktop" / "assets"
SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)
ICONS = ("relavium", "relavium-tray-idle", "relavium-tray-working", "relavium-tray-attention")


def render(svg: Path, size: int) -> bytes:
    """The SVG drawn at ``size`` x ``size`` as PNG bytes (transparent outside the artwork)."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"make_icons: {svg} is not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    buffer.close()
    return bytes(data.data())


def outputs() -> dict[Path, bytes]:
    """Every generated file and the bytes it should hold."""
    files: dict[Path, bytes] = {}
    for name in ICONS:
        svg = SOURCES / f"{name}.svg"
        files[ASSETS / "icons" / f"{name}.svg"] = svg.read_bytes()
        for size in SIZES:
            files[ASSETS / "icons" / f"{name}-{size}.png"] = render(svg, size)
    for source in sorted(LINUX.iterdir()):
        if source.is_file():
            files[ASSETS / "linux" / source.name] = source.read_bytes()
    return files


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="report stale files instead of writing them")
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    _app = QGuiApplication.instance() or QGuiApplication([sys.argv[0]])  # kept alive while rendering
    stale = []
    for path, data in outputs().items():
        if path.exists() and path.read_bytes() == data:
            continue
        stale.append(path)
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    for path in stale:
        print(("stale: " if args.check else "wrote: ") + str(path.relative_to(ROOT)))
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
