"""``type: http`` tools dispatch through the same allowlist and SSRF primitive."""

from __future__ import annotations

import json
import uuid

import pytest
from pydantic import ValidationError

from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.tools.http_tools import HttpToolDecl, make_http_tool
from relavium_desktop.engine.tools.registry import ToolRegistry
from relavium_desktop.engine.tools.tooldef import ToolPolicy
from relavium_desktop.host.egress import EgressHost
from relavium_desktop.host.output_store import FileOutputStore
from relavium_desktop.host.secrets import SecretStore
from tests.fixtures.desktop_bus import desktop_bus_env_fixture, desktop_bus_fixture  # noqa: F401
from tests.helpers import dispatch
from tests.host.egress.conftest import ScriptedResolver, TestServer, test_check


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


async def test_http_tool_obeys_the_workflow_allowlist(egress: EgressHost, server: TestServer) -> None:
    tool = make_http_tool(decl(server))
    out = await dispatch("get_item", {"item_id": "1"}, tools=(tool,), host=ToolHost(egress=egress),
                         policy=ToolPolicy(allowed_domains=()))
    assert out.error is not None and out.error.reason == "egress_disabled"
    out = await dispatch("get_item", {"item_id": "1"}, tools=(tool,), host=ToolHost(egress=egress),
                         policy=ToolPolicy(allowed_domains=("other.example.test",)))
    assert out.error is not None and out.error.reason == "domain_not_allowed"
    assert server.requests == []


async def test_without_an_allowlist_only_the_declared_host_is_reachable(egress: EgressHost, server: TestServer) -> None:
    # An agent run or chat has no allowedDomains: the author-written host is allowed, nothing else.
    tool = make_http_tool(decl(server))
    out = await dispatch("get_item", {"item_id": "1"}, tools=(tool,), host=ToolHost(egress=egress),
                         policy=ToolPolicy())
    assert out.ok, out.error
    assert server.requests[0]["query"] == {"id": "1"}


async def test_a_redirect_to_another_host_is_not_followed(egress: EgressHost, server: TestServer) -> None:
    target = server.url("/json", host="other.example.test")
    tool = make_http_tool(decl(server, url=server.url("/redirect") + "?to={to}",
                               parameters={"type": "object", "properties": {"to": {"type": "string"}}}))
    out = await dispatch("get_item", {"to": target}, tools=(tool,), host=ToolHost(egress=egress),
                         policy=ToolPolicy())
    assert out.ok and out.result["status"] == 302
    assert [r["path"] for r in server.requests] == ["/redirect"]  # other.example.test was never asked


async def test_body_template_places_typed_values_and_cannot_be_broken_out_of(
    egress: EgressHost, server: TestServer
) -> None:
    params = {"type": "object", "properties": {"title": {"type": "string"}, "count": {"type": "integer"},
                                               "draft": {"type": "boolean"}}, "required": ["title", "count"]}
    tool = make_http_tool(decl(server, method="POST", url=server.url("/echo"), parameters=params,
                               body={"item": {"title": "{title}", "n": "{count}", "label": "#{count} {title}",
                                              "draft": "{draft}"}, "fixed": [1, "two"]}))
    evil = 'x", "admin": true, "y": "'
    out = await dispatch("get_item", {"title": evil, "count": 3}, tools=(tool,), host=ToolHost(egress=egress),
                         policy=ToolPolicy(allowed_domains=server.allowed))
    assert out.ok, out.error
    sent = json.loads(server.requests[0]["body"])
    assert sent == {"item": {"title": evil, "n": 3, "label": f"#3 {evil}", "draft": None}, "fixed": [1, "two"]}
    assert server.requests[0]["headers"]["Content-Type"] == "application/json"


async def test_response_mapping_picks_part_of_the_json_reply(egress: EgressHost, server: TestServer) -> None:
    for path in ("/hello", "hello"):
        tool = make_http_tool(decl(server, response={"path": path}))
        out = await dispatch("get_item", {"item_id": "1"}, tools=(tool,), host=ToolHost(egress=egress),
                             policy=ToolPolicy())
        assert out.ok and out.result == {"status": 200, "data": "world"}
    tool = make_http_tool(decl(server, response={"fields": {"greeting": "hello", "count": "/n", "gone": "x.y"}}))
    out = await dispatch("get_item", {"item_id": "1"}, tools=(tool,), host=ToolHost(egress=egress),
                         policy=ToolPolicy())
    assert out.ok and out.result == {"status": 200, "data": {"greeting": "world", "count": 1, "gone": None}}


async def test_response_mapping_failures_are_clear(egress: EgressHost, server: TestServer) -> None:
    tool = make_http_tool(decl(server, response={"path": "/nope"}))
    out = await dispatch("get_item", {"item_id": "1"}, tools=(tool,), host=ToolHost(egress=egress),
                         policy=ToolPolicy())
    assert out.error is not None and "nothing at '/nope'" in out.error.message
    tool = make_http_tool(decl(server, url=server.url("/badjson"), parameters={"type": "object"},
                               response={"path": "a"}))
    out = await dispatch("get_item", {}, tools=(tool,), host=ToolHost(egress=egress), policy=ToolPolicy())
    assert out.error is not None and "not JSON" in out.error.message
    # An error status is handed back unmapped: the model needs the error body.
    tool = make_http_tool(decl(server, url=server.url("/status/404"), parameters={"type": "object"},
                               response={"path": "a"}))
    out = await dispatch("get_item", {}, tools=(tool,), host=ToolHost(egress=egress), policy=ToolPolicy())
    assert out.ok and out.result["status"] == 404 and "nope" in out.result["body"]


async def test_http_tool_goes_through_the_ssrf_primitive(server: TestServer, store: object) -> None:
    tool = make_http_tool(decl(server, url="https://10.0.0.1/items?id={item_id}"))
    host = EgressHost(output_store=None)  # production rules
    out = await dispatch("get_item", {"item_id": "1"}, tools=(tool,), host=ToolHost(egress=host),
                         policy=ToolPolicy(allowed_domains=("10.0.0.1",)))
    assert out.error is not None and out.error.reason == "ssrf_blocked"


@pytest.mark.parametrize("changes", [
    {"body": {"a": "{item_id}"}},  # a GET has no body
    {"method": "POST", "body": {"a": "{nobody}"}},  # placeholder naming no parameter
    {"url": "https://api.example.test/{nobody}"},
    {"headers": {"Authorization": "secret:A", "X-Key": "secret:B"}},  # one credential per tool
    {"headers": {"X-Id": "{item_id}"}},  # the model never sets a header
    {"headers": {"Authorization": "Bearer secret:"}},
    {"response": {}},
])
def test_declaration_refuses_inconsistent_tools(server: TestServer, changes: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        decl(server, **changes)


@pytest.mark.parametrize("url", ["https://{host}/x", "http://api.example.test/x", "{scheme}://a.test/"])
def test_declaration_refuses_a_model_chosen_host_or_plain_http(server: TestServer, url: str) -> None:
    with pytest.raises(ValidationError):
        decl(server, url=url)


async def test_a_secret_header_is_resolved_from_the_real_keyring_and_never_shown(
    desktop_bus_env: dict[str, str], server: TestServer, store: FileOutputStore,
) -> None:
    name = f"api-{uuid.uuid4().hex[:6]}"
    value = f"sk-test-{uuid.uuid4().hex}"
    SecretStore().set(name, value)
    host = EgressHost(output_store=store, secrets=SecretStore(), ssl_context=server.client_context(),
                      resolver=ScriptedResolver(), check=test_check)
    tool = make_http_tool(decl(server, url=server.url("/echo"), parameters={"type": "object"},
                               headers={"X-Api-Key": f"Token secret:{name}", "Accept": "application/json"}))
    out = await dispatch("get_item", {}, tools=(tool,), host=ToolHost(egress=host, output_store=store),
                         policy=ToolPolicy())
    assert out.ok, out.error
    assert server.requests[0]["headers"]["X-Api-Key"] == f"Token {value}"
    assert server.requests[0]["headers"]["Accept"] == "application/json"
    # The echoed header comes back scrubbed: the model never reads the value.
    assert value not in json.dumps(out.result) and value not in out.model_facing
