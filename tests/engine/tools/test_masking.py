"""Credential masking: every supported shape, split tokens, surviving prose."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from relavium_desktop.engine.events import EventBus
from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.tools.masking import mask_text, mask_value
from relavium_desktop.engine.tools.registry import ToolRegistry
from relavium_desktop.engine.tools.tooldef import ToolCall, ToolDef
from tests.helpers import make_ctx

ANT = "sk-ant-api03-Abc_def-GHIjkl-mnoPQRstu-VWX"
OAI = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx-yz_0123456789"
OAI_PLAIN = "sk-AbCdEfGhIjKlMnOpQrStUvWxYz012345"
GHP = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
GHO = "gho_" + "Z" * 36
PAT = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"
SLACK_B = "xoxb-1234567890-0987654321-AbCdEfGhIjKl"
SLACK_P = "xoxp-1234567890-0987654321-AbCdEfGhIjKl"
AWS = "AKIAIOSFODNN7EXAMPLE"
GOOG = "AIzaSyD-1234567890abcdefghijklmnopqrstu"

# (name, text, the secret that must vanish, public words that must survive)
CASES: list[tuple[str, str, str, list[str]]] = [
    ("anthropic key", f"use key {ANT} for the call", ANT, ["use key", "for the call"]),
    ("anthropic hyphenated body tail", f"{ANT} done", "VWX", ["done"]),
    ("openai project key", f"export it: {OAI}.", OAI, ["export it:"]),
    ("openai plain key", f"key={OAI_PLAIN}", OAI_PLAIN, []),
    ("github classic", f"token {GHP} expired", GHP, ["expired"]),
    ("github oauth", f"{GHO}", GHO, []),
    ("github fine-grained", f"pat is {PAT}!", PAT, ["pat is"]),
    ("slack bot", f"slack {SLACK_B} ok", SLACK_B, ["slack", "ok"]),
    ("slack user", f"slack {SLACK_P} ok", SLACK_P, ["slack", "ok"]),
    ("aws access key", f"aws {AWS} here", AWS, ["aws", "here"]),
    ("google api key", f"maps {GOOG} here", GOOG, ["maps", "here"]),
    ("labelled api_key=", "api_key=s3cr3tvalue&user=bob", "s3cr3tvalue", ["user=bob"]),
    ("labelled password:", "password: hunter2 and more", "hunter2", ["and more"]),
    ("labelled cli flag", "mysql --password=Tr0ub4dor next", "Tr0ub4dor", ["mysql", "next"]),
    ("env style", "OPENAI_API_KEY=abc123def456", "abc123def456", []),
    ("client secret", "client_secret = 'qwerty-uiop'", "qwerty-uiop", []),
    ("json password", '{"password": "p@ss w0rd", "user": "ann"}', "p@ss w0rd", ['"user": "ann"']),
    ("json api key", "{'apiKey': 'zzz-top-secret'}", "zzz-top-secret", []),
    ("authorization header", "Authorization: Token abc.def.ghi\nnext line", "abc.def.ghi", ["next line"]),
    ("bearer", "curl -H 'x' Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig then", "eyJhbGciOiJIUzI1NiJ9", ["then"]),
    ("basic", "Basic dXNlcjpwYXNzd29yZA== rest", "dXNlcjpwYXNzd29yZA==", ["rest"]),
    ("url userinfo", "clone https://bob:pa55w0rd@git.example.com/r.git", "pa55w0rd", ["git.example.com/r.git"]),
    ("url token userinfo", "https://ghp_tokenonly123@github.com/x", "ghp_tokenonly123", ["github.com/x"]),
    ("LF-split token", f"key: {ANT[:20]}\n{ANT[20:]} is it", ANT[20:], ["is it"]),
    ("TAB-split token", f"{GHP[:15]}\t{GHP[15:]} ok", GHP[15:], ["ok"]),
    ("LF-split labelled", "api_key=abcdef123\n456ghi tail", "456ghi", ["tail"]),
]


@pytest.mark.parametrize(("name", "text", "secret", "public"), CASES, ids=[c[0] for c in CASES])
def test_mask_text(name: str, text: str, secret: str, public: list[str]) -> None:
    masked = mask_text(text)
    assert secret not in masked, masked
    assert "***" in masked
    for words in public:
        assert words in masked, masked


@pytest.mark.parametrize(
    "prose",
    [
        "The task is to skim the tokens of the parser.",
        "Use the sk-learn library and a desk-top app.",
        "Passwords must be long; see the policy.",
        "Set max_tokens to 500 for this model.",
        "git status shows 3 files",
    ],
)
def test_public_prose_survives(prose: str) -> None:
    assert mask_text(prose) == prose


def test_mask_value_masks_sensitive_keys_and_nested_strings() -> None:
    value = {
        "headers": {"Authorization": "Bearer abcdefghijkl", "Accept": "json"},
        "token": "raw-token-value",
        "args": ["--flag", f"--key={OAI}"],
        "note": f"see {GHP}",
        "count": 3,
    }
    masked = mask_value(value)
    text = json.dumps(masked)
    for secret in ("abcdefghijkl", "raw-token-value", OAI, GHP):
        assert secret not in text
    assert masked["headers"]["Accept"] == "json" and masked["count"] == 3


def test_masking_happens_before_clipping() -> None:
    from relavium_desktop.engine.tools.masking import clip

    text = "x" * 95 + ANT
    # Clipping first would keep a prefix of the key; masking first keeps none of it.
    clipped = clip(mask_text(text), 100)
    assert "sk-ant" not in clipped


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str
    headers: dict[str, str] = {}


async def test_secret_never_appears_in_emitted_events() -> None:
    secret = OAI

    async def run(args: _Args, host: ToolHost, ctx: Any) -> Any:
        # The tool echoes the secret back and fails with it in a message, too.
        return {"echo": args.text, "auth": args.headers}

    async def fail(args: _Args, host: ToolHost, ctx: Any) -> Any:
        raise RuntimeError(f"upstream said: bad key {secret}")

    tools = (
        ToolDef(id="echo", description="e", args_model=_Args, dispatch=run),
        ToolDef(id="boom", description="b", args_model=_Args, dispatch=fail),
    )
    bus = EventBus(clock=lambda: 0.0, run_id="r")
    registry = ToolRegistry(tools, ToolHost())
    ctx = make_ctx("echo", "boom", bus=bus)
    args = {"text": f"my key is {secret}", "headers": {"Authorization": f"Bearer {secret}"}}
    ok = await registry.dispatch(ToolCall("echo", args), ctx)
    bad = await registry.dispatch(ToolCall("boom", args), ctx)
    assert ok.ok and not bad.ok
    assert len(bus.history) == 4
    dumped = json.dumps(bus.history)
    assert secret not in dumped
    assert secret[:12] not in dumped
    assert secret not in json.dumps(bad.to_json())
    # The raw result still carries the value for workflow state (masking is diagnostic only).
    assert secret in ok.result["echo"]
