"""read_file publishes binaries to the real media store; read_media reads them only in their scope.

Everything here runs through the real host assembly (descriptor-walk file
host, media CAS on disk, per-scope grant files) and the tool registry.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from pathlib import Path

import pytest

from relavium_desktop.engine.errors import ToolDeniedError, ToolFailedError
from relavium_desktop.engine.host import ToolHost
from relavium_desktop.host.assembly import HostSettings, build_host
from relavium_desktop.host.media import MEDIA_OBJECT_CEILING, MediaHost, MediaStore, parse_handle
from tests.helpers import dispatch
from tests.host.media.pictures import pdf, png


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "shots").mkdir(parents=True)
    (ws / "shots" / "error.png").write_bytes(png(7, 5))
    (ws / "shots" / "notes.txt").write_text("the dialog says: disk full\n")
    (ws / "manual.pdf").write_bytes(pdf())
    return ws


def _host(ws: Path, home: Path) -> ToolHost:
    return build_host(HostSettings(workspace=ws, home=home))


async def test_binary_read_is_a_handle_in_the_store_not_bytes(ws: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    out = await dispatch("read_file", {"path": "shots/error.png"}, host=_host(ws, home))
    assert out.ok, out.error
    media = out.result["media"]
    assert (media["mimeType"], media["sizeBytes"], media["width"], media["height"]) == (
        "image/png", len(png(7, 5)), 7, 5)
    assert out.result["mimeType"] == "image/png" and "content" not in out.result
    sha = parse_handle(media["handle"])
    assert MediaStore(home / "media").open_verified(sha) == png(7, 5)
    # The model reads the handle, never the bytes in any encoding.
    assert media["handle"] in str(out.model_facing)
    assert base64.b64encode(png(7, 5)).decode()[:24] not in json.dumps(out.to_json())

    out = await dispatch("read_file", {"path": "manual.pdf"}, host=_host(ws, home))
    assert out.ok and out.result["media"]["mimeType"] == "application/pdf"
    assert "width" not in out.result["media"]


async def test_glob_returns_text_as_text_and_binaries_as_handles(ws: Path, tmp_path: Path) -> None:
    out = await dispatch("read_file", {"path": "shots/*"}, host=_host(ws, tmp_path / "home"))
    assert out.ok, out.error
    files = {f["path"]: f for f in out.result["files"]}
    assert files["shots/notes.txt"]["content"] == "the dialog says: disk full\n"
    assert files["shots/error.png"]["media"]["handle"].startswith("media://sha256-")
    assert "content" not in files["shots/error.png"]


async def test_a_binary_over_the_media_ceiling_is_refused_with_its_size(ws: Path, tmp_path: Path) -> None:
    big = ws / "huge.bin"
    with open(big, "wb") as fh:  # sparse: the size is real, the disk use is not
        fh.write(b"\x00\x01")
        fh.truncate(MEDIA_OBJECT_CEILING + 1)
    home = tmp_path / "home"
    out = await dispatch("read_file", {"path": "huge.bin"}, host=_host(ws, home))
    assert out.error is not None and out.error.code == "tool_failed"
    assert str(MEDIA_OBJECT_CEILING + 1) in out.error.message and str(MEDIA_OBJECT_CEILING) in out.error.message
    assert MediaStore(home / "media").list() == []


async def test_read_media_is_scoped_to_the_chat_or_run_that_read_the_file(ws: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    host = _host(ws, home)
    out = await dispatch("read_file", {"path": "shots/error.png"}, host=host, run_id="chat-one")
    handle = out.result["media"]["handle"]

    seen = await dispatch("read_media", {"handle": handle}, host=host, run_id="chat-one")
    assert seen.ok, seen.error
    assert (seen.result["mimeType"], seen.result["width"], seen.result["attached"]) == ("image/png", 7, False)

    # Another chat knows the digest but did not produce or receive it: refused, secret-free.
    other = await dispatch("read_media", {"handle": handle}, host=host, run_id="chat-two")
    assert other.error is not None
    assert (other.error.code, other.error.reason) == ("tool_denied", "media_scope_denied")
    assert handle not in other.error.message  # a digest prefix only

    # The grant is on disk: a new app process (a new host) still honours it, and only it.
    again = _host(ws, home)
    assert (await dispatch("read_media", {"handle": handle}, host=again, run_id="chat-one")).ok
    assert (await dispatch("read_media", {"handle": handle}, host=again, run_id="chat-two")).error is not None


async def test_admit_grants_only_handles_this_process_published(tmp_path: Path) -> None:
    # An object another process put in the store: its digest is known, it was not produced here.
    data = png(5, 5, noise=77)
    sha = hashlib.sha256(data).hexdigest()
    (tmp_path / "media" / "objects" / sha[:2]).mkdir(parents=True)
    (tmp_path / "media" / "objects" / sha[:2] / sha).write_bytes(data)
    foreign = "media://sha256-" + sha
    media = MediaHost(MediaStore(tmp_path / "media"))
    assert media.store.open_verified(sha) == data
    assert await media.admit(foreign, "run:x") is False
    assert await media.admit("media://sha256-" + "0" * 64, "run:x") is False
    with pytest.raises(ToolDeniedError) as caught:
        await media.describe(foreign, "run:x")
    assert caught.value.reason == "media_scope_denied"


async def test_a_corrupted_object_is_refused_on_load(ws: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    host = _host(ws, home)
    out = await dispatch("read_file", {"path": "shots/error.png"}, host=host, run_id="r1")
    handle = out.result["media"]["handle"]
    sha = parse_handle(handle)
    obj = home / "media" / "objects" / sha[:2] / sha
    os.chmod(obj, 0o600)
    obj.write_bytes(b"\x89PNG tampered")
    assert isinstance(host.media, MediaHost)
    with pytest.raises(ToolFailedError) as caught:
        await host.media.load(handle, "run:r1")
    assert "cannot be read" in str(caught.value) and "media_corrupt" in str(caught.value)


async def test_publish_bytes_trusts_an_image_type_only_when_the_bytes_agree(tmp_path: Path) -> None:
    media = MediaHost.at(tmp_path / "media")
    real = media.publish_bytes(png(2, 2), "image/png")
    assert (real["mimeType"], real["width"]) == ("image/png", 2)
    fake = media.publish_bytes(b"<svg>not a png</svg>", "image/png")
    assert fake["mimeType"] == "application/octet-stream"  # a provider would reject it as an image
    audio = media.publish_bytes(b"ID3\x03rest-of-an-mp3", "audio/mpeg")
    assert audio["mimeType"] == "audio/mpeg"
    assert await media.admit(real["handle"], "run:paste") is True
    assert (await media.describe(real["handle"], "run:paste"))["sizeBytes"] == len(png(2, 2))


async def test_read_media_refuses_a_pdf_at_any_size_and_an_oversized_image_as_too_large(
    ws: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    host = _host(ws, home)
    (ws / "big.png").write_bytes(png(2, 2) + bytes(5 * 1024 * 1024))
    for name in ("manual.pdf", "big.png"):
        out = await dispatch("read_file", {"path": name}, host=host, run_id="chat-one")
        assert out.ok, out.error
        handle = out.result["media"]["handle"]
        refused = await dispatch("read_media", {"handle": handle}, host=host, run_id="chat-one")
        assert refused.error is not None and refused.error.code == "invalid_args"
        if name == "manual.pdf":  # a small PDF, still never inlined
            assert "a PDF is never inlined" in refused.error.message and refused.error.reason == "schema"
        else:
            assert refused.error.reason == "too_large" and "5242880-byte limit" in refused.error.message
