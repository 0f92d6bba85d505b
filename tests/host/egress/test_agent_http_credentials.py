"""An agent's http_request carries the credential its tool_config names, from the real keyring, to that host only.

Real parts: the Secret Service (gnome-keyring on the private bus), the local
TLS server (reached through the test-only resolver/address check this folder's
conftest documents), the scripted LLM server, and the agent file parsed as
``relavium agent run`` parses it.
"""

from __future__ import annotations

import uuid
from urllib.parse import quote

import pytest

from relavium_desktop.engine.agent.loop import AgentLoop
from relavium_desktop.engine.agent.tool_config import node_tool_configs, parameter_problems
from relavium_desktop.engine.agent.yaml_source import parse_agent_yaml
from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.llm.messages import Message
from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS
from relavium_desktop.engine.tools.registry import ToolRegistry
from relavium_desktop.engine.tools.tooldef import ToolDispatchContext, ToolPolicy
from relavium_desktop.host.egress import EgressHost
from relavium_desktop.host.output_store import FileOutputStore
from relavium_desktop.host.secrets import SecretStore
from relavium_desktop.providers.config import ProviderEntry, basic_validate_base_url, env_resolver
from relavium_desktop.providers.factory import ProviderSet
from tests.fixtures.desktop_bus import desktop_bus_env_fixture, desktop_bus_fixture  # noqa: F401
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.host.egress.conftest import ScriptedResolver, TestServer, test_check

LLM_KEY = "sk-test-LLMKEY-not-the-tool-credential"


def _providers(server: ScriptedLLMServer) -> ProviderSet:
    entries = {"openai": ProviderEntry(kind="openai", base_url=server.base_url + "/v1", api_key="env:K",
                                       allow_local=True)}
    return ProviderSet(entries, resolve_secret=env_resolver({"K": LLM_KEY}), validate_base_url=basic_validate_base_url)


def _agent_loop(text: str, server: TestServer, llm: ScriptedLLMServer, store: FileOutputStore) -> AgentLoop:
    spec = parse_agent_yaml(text, "api.agent.yaml")
    egress = EgressHost(output_store=store, secrets=SecretStore(), ssl_context=server.client_context(),
                        resolver=ScriptedResolver(), check=test_check)
    registry = ToolRegistry(BUILTIN_TOOLS, ToolHost(egress=egress, output_store=store))
    assert parameter_problems(spec.tool_config, registry.get) == []
    ctx = ToolDispatchContext(run_id="run-agent-cred", node_id=spec.id, granted_tool_ids=frozenset(spec.tools),
                              policy=ToolPolicy(allowed_domains=server.allowed),
                              tool_configs=node_tool_configs(spec.tool_config))
    return AgentLoop(spec=spec, providers=_providers(llm), registry=registry, ctx=ctx, emit=lambda e: None)


def _agent(parameters: str) -> str:
    return ("id: api\nprovider: openai\nmodel: gpt-4o-mini\ntools: [http_request]\n"
            "tool_config:\n  http_request:\n    parameters: " + parameters + "\n")


@pytest.fixture
def secret(desktop_bus_env: dict[str, str]) -> tuple[str, str]:
    name = f"api-{uuid.uuid4().hex[:6]}"
    value = f"sk-agent-{uuid.uuid4().hex}"
    SecretStore().set(name, value)
    return name, value


async def test_an_agents_credential_ref_reaches_the_server_from_the_keyring(
    secret: tuple[str, str], server: TestServer, store: FileOutputStore, llm_server: ScriptedLLMServer,
) -> None:
    name, value = secret
    llm_server.script(Reply.call("http_request", {"url": server.url("/json")}), Reply.say("got it"))
    loop = _agent_loop(_agent(f'{{credentialRef: "secret:{name}", credentialHeader: X-Api-Key, '
                              'credentialScheme: null}'), server, llm_server, store)
    result = await loop.run([Message.user("call the api")])
    assert result.status == "completed", result.failure
    assert server.requests[0]["headers"]["X-Api-Key"] == value
    # The model saw the answer, never the key.
    assert value not in str(llm_server.requests[1].body)


async def test_a_per_domain_credential_goes_to_its_host_only(
    secret: tuple[str, str], server: TestServer, store: FileOutputStore, llm_server: ScriptedLLMServer,
) -> None:
    name, value = secret
    api = f"API.example.test.:{server.port}"  # normalised like the allowlist: case and the root dot
    llm_server.script(
        Reply.call("http_request", {"url": server.url("/json")}),
        Reply.call("http_request", {"url": server.url("/json", "other.example.test")}),
        Reply.say("done"),
    )
    loop = _agent_loop(_agent(f'{{credentialRefs: {{"{api}": "secret:{name}"}}}}'), server, llm_server, store)
    result = await loop.run([Message.user("call both")])
    assert result.status == "completed", result.failure
    to_api, to_other = server.requests
    assert to_api["headers"]["Host"].startswith("api.example.test")
    assert to_api["headers"]["Authorization"] == f"Bearer {value}"
    assert to_other["headers"]["Host"].startswith("other.example.test")
    assert "Authorization" not in to_other["headers"]


async def test_a_per_domain_credential_does_not_follow_a_redirect_to_another_host(
    secret: tuple[str, str], server: TestServer, store: FileOutputStore, llm_server: ScriptedLLMServer,
) -> None:
    name, value = secret
    target = server.url("/json", "other.example.test")
    llm_server.script(Reply.call("http_request", {"url": server.url(f"/redirect?to={quote(target, safe='')}")}),
                      Reply.say("done"))
    params = f'{{followRedirects: true, credentialRefs: {{"api.example.test:{server.port}": "secret:{name}"}}}}'
    loop = _agent_loop(_agent(params), server, llm_server, store)
    result = await loop.run([Message.user("follow it")])
    assert result.status == "completed", result.failure
    first, hop = server.requests
    assert first["headers"]["Authorization"] == f"Bearer {value}"
    assert hop["headers"]["Host"].startswith("other.example.test") and "Authorization" not in hop["headers"]


def test_a_pasted_key_where_a_reference_belongs_is_refused_without_repeating_it() -> None:
    text = _agent('{credentialRefs: {"api.example.com": "sk-live-PASTEDKEY"}}')
    spec = parse_agent_yaml(text, "api.agent.yaml")  # the shape is fine; the value is the tool's business
    registry = ToolRegistry(BUILTIN_TOOLS, ToolHost())
    problems = parameter_problems(spec.tool_config, registry.get)
    assert [p.path for p in problems] == [("http_request", "parameters", "credentialRefs")]
    assert "sk-live-PASTEDKEY" not in problems[0].message and "api.example.com" in problems[0].message
