"""``type: http`` tools dispatch through the same allowlist and SSRF primitive."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.tools.http_tools import HttpToolDecl, make_http_tool
from relavium_desktop.engine.tools.registry import ToolRegistry
from relavium_desktop.engine.tools.tooldef import ToolPolicy
from relavium_desktop.host.egress import EgressHost
from tests.helpers import dispatch
from tests.host.egress.conftest import TestServer


def decl(server: TestServer, **kw: object) -> HttpToolDecl:
    data: dict[str, object] = {
        "type": "http", "name": "get_item", "description": "Fetch one item.", "method": "GET",
        "url": server.url("/json") + "?id={item_id}",
        "parameters": {"type": "object", "properties": {"item_id": {"type": "string"},
                                                         "verbose": {"type": "boolean"}},
                       "required": ["item_id"]},
    }
    data.update(kw)
    return HttpToolDecl.model_validate(data)


async def test_http_tool_success(egress: EgressHost, server: TestServer) -> None:
    tool = make_http_tool(decl(server))
    assert tool.source == "http"
    desc = ToolRegistry([tool], ToolHost()).describe()[0]
    assert desc["source"] == "http" and set(desc["parameters"]["properties"]) == {"item_id", "verbose"}
    out = await dispatch("get_item", {"item_id": "a/b&c", "verbose": True}, tools=(tool,),
                         host=ToolHost(egress=egress), policy=ToolPolicy(allowed_domains=server.allowed))
    assert out.ok, out.error
    assert out.result["status"] == 200
    assert server.requests[0]["query"] == {"id": "a/b&c", "verbose": "True"}


async def test_http_tool_post_sends_json(egress: EgressHost, server: TestServer) -> None:
    tool = make_http_tool(decl(server, method="POST", url=server.url("/json")))
    out = await dispatch("get_item", {"item_id": "7"}, tools=(tool,),
                         host=ToolHost(egress=egress), policy=ToolPolicy(allowed_domains=server.allowed))
    assert out.ok and server.requests[0]["body"] == b'{"item_id": "7"}'


async def test_http_tool_obeys_the_allowlist(egress: EgressHost, server: TestServer) -> None:
    tool = make_http_tool(decl(server))
    out = await dispatch("get_item", {"item_id": "1"}, tools=(tool,), host=ToolHost(egress=egress),
                         policy=ToolPolicy())
    assert out.error is not None and out.error.reason == "egress_disabled"
    out = await dispatch("get_item", {"item_id": "1"}, tools=(tool,), host=ToolHost(egress=egress),
                         policy=ToolPolicy(allowed_domains=("other.example.test",)))
    assert out.error is not None and out.error.reason == "domain_not_allowed"
    assert server.requests == []


async def test_http_tool_goes_through_the_ssrf_primitive(server: TestServer, store: object) -> None:
    tool = make_http_tool(decl(server, url="https://10.0.0.1/items?id={item_id}"))
    host = EgressHost(output_store=None)  # production rules
    out = await dispatch("get_item", {"item_id": "1"}, tools=(tool,), host=ToolHost(egress=host),
                         policy=ToolPolicy(allowed_domains=("10.0.0.1",)))
    assert out.error is not None and out.error.reason == "ssrf_blocked"


@pytest.mark.parametrize("url", ["https://{host}/x", "http://api.example.test/x", "{scheme}://a.test/"])
def test_declaration_refuses_a_model_chosen_host_or_plain_http(server: TestServer, url: str) -> None:
    with pytest.raises(ValidationError):
        decl(server, url=url)
