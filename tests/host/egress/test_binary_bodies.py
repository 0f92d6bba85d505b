"""Binary http_request bodies become media handles in the real store: never base64, never mojibake.

Real parts: the local TLS server of this folder's conftest (reached through
its test-only resolver and address check), the media CAS on disk, the tool
registry's full pipeline for http_request.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from relavium_desktop.engine.errors import ToolFailedError
from relavium_desktop.engine.host import EgressRequest, ToolHost
from relavium_desktop.engine.tools.tooldef import ToolPolicy
from relavium_desktop.host.egress import EgressHost
from relavium_desktop.host.media import MediaHost, MediaStore, parse_handle
from relavium_desktop.host.output_store import FileOutputStore
from tests.helpers import dispatch
from tests.host.egress.conftest import ScriptedResolver, TestServer, test_check
from tests.host.media.pictures import png


@pytest.fixture
def media(tmp_path: Path) -> MediaHost:
    return MediaHost.at(tmp_path / "media")


def _egress(server: TestServer, store: FileOutputStore | None, media: MediaHost | None) -> EgressHost:
    return EgressHost(output_store=store, ssl_context=server.client_context(), resolver=ScriptedResolver(),
                      check=test_check, media=media)


def _get(server: TestServer, path: str) -> EgressRequest:
    return EgressRequest(method="GET", url=server.url(path), run_id="run-media-http",
                         allowed_domains=server.allowed)


async def test_an_image_body_is_a_handle_whose_stored_bytes_are_the_image(
    server: TestServer, store: FileOutputStore, media: MediaHost
) -> None:
    result = await _egress(server, store, media).fetch(_get(server, "/image?w=9&h=4"))
    sent = png(9, 4)
    assert result["status"] == 200 and result["body"] is None and "bodySpill" not in result
    facts = result["media"]
    assert facts["mimeType"] == "image/png" and facts["sizeBytes"] == len(sent) == result["bodyBytes"]
    assert (facts["width"], facts["height"]) == (9, 4)
    assert media.store.open_verified(parse_handle(facts["handle"])) == sent
    # Nothing of the image rides in the result itself.
    text = json.dumps(result)
    assert base64.b64encode(sent)[:40].decode() not in text and "\\u0089PNG" not in text


async def test_the_body_streams_through_a_spill_file_that_is_gone_once_published(
    server: TestServer, store: FileOutputStore, media: MediaHost, relavium_home: Path
) -> None:
    egress = EgressHost(output_store=store, ssl_context=server.client_context(), resolver=ScriptedResolver(),
                        check=test_check, media=media, memory_ceiling=4096)
    result = await egress.fetch(_get(server, "/bigbin?kb=48&chunked=1"))
    assert result["media"]["sizeBytes"] == 48 * 1024
    assert media.store.open_verified(parse_handle(result["media"]["handle"])) == b"\x00\xff" * (24 * 1024)
    assert [p for p in (relavium_home / "runs").rglob("*") if p.is_file()] == []


async def test_without_an_output_store_the_body_is_published_from_memory(
    server: TestServer, media: MediaHost
) -> None:
    result = await _egress(server, None, media).fetch(_get(server, "/image?w=2&h=2"))
    assert result["media"]["sizeBytes"] == len(png(2, 2))


async def test_a_png_served_as_text_is_a_handle_not_mojibake(
    server: TestServer, store: FileOutputStore, media: MediaHost
) -> None:
    result = await _egress(server, store, media).fetch(_get(server, "/mislabelled"))
    assert result["body"] is None
    assert result["media"]["mimeType"] == "image/png" and (result["media"]["width"], result["media"]["height"]) == (4, 3)


async def test_text_bodies_stay_text(server: TestServer, store: FileOutputStore, media: MediaHost) -> None:
    result = await _egress(server, store, media).fetch(_get(server, "/json"))
    assert json.loads(result["body"]) == {"hello": "world", "n": 1}
    assert "media" not in result
    assert media.store.list() == []


async def test_a_body_over_the_store_ceiling_is_refused_with_its_size_and_the_limit(
    server: TestServer, store: FileOutputStore, tmp_path: Path
) -> None:
    small = MediaHost(MediaStore(tmp_path / "small", ceiling=32 * 1024))
    egress = _egress(server, store, small)
    # Content-Length says it up front: refused before the body is read.
    with pytest.raises(ToolFailedError) as declared:
        await egress.fetch(_get(server, "/bigbin?kb=64"))
    assert "65,536 bytes of application/octet-stream" in declared.value.message
    assert "at most 32,768 bytes per object" in declared.value.message
    assert "http_request" in declared.value.message
    # No length: the download stops once it passes the ceiling.
    with pytest.raises(ToolFailedError) as streamed:
        await egress.fetch(_get(server, "/bigbin?kb=64&chunked=1"))
    assert "more than 32,768 bytes" in streamed.value.message and "at most 32,768" in streamed.value.message
    assert small.store.list() == []
    assert [p for p in store.root.rglob("*") if p.is_file()] == []  # no partial download left behind
    # Under the ceiling the same route is a handle.
    ok = await egress.fetch(_get(server, "/bigbin?kb=16&chunked=1"))
    assert ok["media"]["sizeBytes"] == 16 * 1024 and ok["media"]["mimeType"] == "application/octet-stream"


async def test_the_tool_admits_the_handle_into_its_scope(
    server: TestServer, store: FileOutputStore, media: MediaHost
) -> None:
    host = ToolHost(egress=_egress(server, store, media), media=media, output_store=store)
    outcome = await dispatch("http_request", {"url": server.url("/image?w=3&h=2")}, host=host,
                             policy=ToolPolicy(allowed_domains=server.allowed), media_scope="chat:s1")
    assert outcome.ok, outcome.error
    handle = outcome.result["media"]["handle"]
    described = await media.describe(handle, "chat:s1")
    assert described["mimeType"] == "image/png" and (described["width"], described["height"]) == (3, 2)
    assert "media://sha256-" in str(outcome.model_facing) and "\\x89PNG" not in str(outcome.model_facing)
