"""read_file on a PNG, a PDF and a mixed glob through the real ``relavium tool call``."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import run_cli
from tests.host.media.pictures import pdf, png


def test_cli_binary_reads_are_media_handles(tmp_path: Path, cli_env: dict[str, str], relavium_home: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "shot.png").write_bytes(png(4, 3))
    (ws / "spec.pdf").write_bytes(pdf())
    (ws / "readme.txt").write_text("look at shot.png\n")

    code, out, _ = run_cli("tool", "call", "read_file", "--workspace", str(ws),
                           "--args", '{"path":"shot.png"}', "--json", env=cli_env)
    assert code == 0 and out["ok"] is True
    media = out["result"]["media"]
    assert (media["mimeType"], media["width"], media["height"]) == ("image/png", 4, 3)
    sha = media["sha256"]
    assert (relavium_home / "media" / "objects" / sha[:2] / sha).read_bytes() == png(4, 3)

    code, out, _ = run_cli("tool", "call", "read_file", "--workspace", str(ws),
                           "--args", '{"path":"spec.pdf"}', "--json", env=cli_env)
    assert code == 0 and out["result"]["media"]["mimeType"] == "application/pdf"

    code, out, _ = run_cli("tool", "call", "read_file", "--workspace", str(ws),
                           "--args", '{"path":"*"}', "--json", env=cli_env)
    assert code == 0 and out["ok"] is True
    kinds = {f["path"]: ("content" in f, "media" in f) for f in out["result"]["files"]}
    assert kinds == {"readme.txt": (True, False), "shot.png": (False, True), "spec.pdf": (False, True)}
    assert "%PDF" not in json.dumps(out)
