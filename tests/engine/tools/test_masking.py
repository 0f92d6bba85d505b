"""Credential masking: every supported shape, split tokens, surviving prose."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from relavium_desktop.engine.events import EventBus
from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.tools.masking import MASK, mask_text, mask_value
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


# Span masking, table form.  Each shape is (name, left context, secret as
# written, right context): the masked text must be exactly
# BEFORE + left + "***" + right + AFTER, as plain text and inside JSON.
PAT_FULL = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
SHAPES: list[tuple[str, str, str, str]] = [
    ("anthropic", "", ANT, ""),
    ("anthropic split LF", "", ANT[:20] + "\n" + ANT[20:], ""),
    ("anthropic split CRLF", "", ANT[:14] + "\r\n" + ANT[14:], ""),
    ("openai project", "", OAI, ""),
    ("openai plain", "", OAI_PLAIN, ""),
    ("openai svcacct", "", "sk-svcacct-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2", ""),
    ("openai admin", "", "sk-admin-Qw3Er4Ty5Ui6Op7As8Df9Gh0", ""),
    ("openai split TAB", "", OAI[:25] + "\t" + OAI[25:], ""),
    ("github ghp", "", GHP, ""),
    ("github gho", "", "gho_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2", ""),
    ("github ghu", "", "ghu_" + "a" * 35 + "1", ""),
    ("github ghs", "", "ghs_" + "0123456789" * 3 + "ABCDEF", ""),
    ("github ghr", "", "ghr_" + "Qq1" * 12, ""),
    ("github tail after TAB", "", GHP[:17] + "\t" + GHP[17:], ""),
    ("github short tail after LF", "", GHP[:36] + "\n" + GHP[36:], ""),
    ("github fine-grained", "", PAT_FULL, ""),
    ("github fine-grained split LF", "", PAT_FULL[:40] + "\n" + PAT_FULL[40:], ""),
    ("slack bot", "", "xoxb-1234567890-0987654321-AbCdEfGhIjKl", ""),
    ("slack user", "", "xoxp-1234567890-0987654321-AbCdEfGhIjKl", ""),
    ("slack app", "", "xoxa-2-1234567890-AbCdEfGhIjKlMnOp", ""),
    ("aws access key", "", "AKIAIOSFODNN7EXAMPLE", ""),
    ("aws session key", "", "ASIAY34FZKBOKMUTVV7A", ""),
    ("aws split TAB", "", "AKIAIOSFOD\tNN7EXAMPLE", ""),
    ("google api key", "", "AIzaSyD-1234567890abcdefghijklmnopqrstu", ""),
    ("gitlab pat", "", "glpat-xY9_zW8vU7tS6rQ5pO4n", ""),
    ("jwt", "", JWT, ""),
    ("jwt split at a dot", "", JWT[:36] + "\n" + JWT[36:], ""),
    ("bearer jwt", "Bearer ", JWT, ""),
    ("bearer jwt split LF", "Bearer ", JWT[:10] + "\n" + JWT[10:], ""),
    ("bearer opaque", "Bearer ", "9f8e7d6c5b4a3f2e1d0c9b8a", ""),
    ("basic", "Basic ", "dXNlcjpwYXNzd29yZA==", ""),
    ("token scheme", "token ", "Xy7_Gh5Jk3Lm1Np9Qr7St", ""),
    ("authorization bearer", "Authorization: Bearer ", "abc123XYZdef456uvw", ""),
    ("authorization basic", "Authorization: Basic ", "YWxhZGRpbjpvcGVuc2VzYW1l", ""),
    ("authorization token", "Authorization: token ", GHP, ""),
    ("authorization bare value", "Authorization: ", "k3y-Only-V4lue", ""),
    ("authorization split TAB", "Authorization: Bearer ", "abc123XYZ\tdef456uvw", ""),
    ("proxy authorization", "Proxy-Authorization: Basic ", "cHJveHk6c2VjcmV0", ""),
    ("authorization quoted key", '"Authorization": "', "Bearer abc123XYZdef", '"'),
    ("url userinfo", "https://", "bob:pa55w0rd", "@git.example.com/r.git"),
    ("url token userinfo", "https://", "x-access-token:ghs_0123456789abcdef", "@github.com/o/r"),
    ("database url", "postgres://", "admin:S3cr3t!", "@db.internal:5432/app"),
    ("api_key=", "api_key=", "s3cr3tvalue", "&user=bob"),
    ("password:", "password: ", "hunter2", ""),
    ("--password=", "mysql --password=", "Tr0ub4dor&3x", ""),
    ("PASSWORD=", "PASSWORD=", "Xk9#mQ2$vL", ""),
    ("env api key", "OPENAI_API_KEY=", "abc123def456", ""),
    ("aws secret key", "aws_secret_access_key = ", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""),
    ("client_secret quoted", "client_secret = '", "qwerty-uiop", "'"),
    ("json secret", '"secret": "', "zzz top secret", '"'),
    ("dict token", "'token': '", "tok-12345-abcde", "'"),
    ("x-api-key header", "x-api-key: ", "ak_live_9Xy8Wz7", ""),
    ("quoted passphrase", 'password="', "correct horse battery staple", '"'),
    ("single-quoted passphrase", "passphrase='", "my very long pass phrase", "'"),
    ("quoted passphrase split LF", 'password="', "correct horse\nbattery staple", '"'),
    ("quoted passphrase with TAB", "password='", "correct\thorse", "'"),
    ("labelled split LF", "api_key=", "abcdef123\n456ghi789", ""),
    ("labelled split TAB", "password=", "Hunter2\tRest0fIt", ""),
    ("cookie", "Cookie: session=", "a1b2c3d4e5f6", ""),
    ("set-cookie", "Set-Cookie: id=", "a3fWa9Kd0", "; Path=/; HttpOnly"),
    ("private key label", "private_key: ", "MIIEvQIBADANBgkqhkiG9w0", ""),
]

BEFORE = "Deploy log, step 3 — the call used "
AFTER = " and then the build went on (exit 0).\nDone."

JSON_FORMS = {
    "summary": lambda t: json.dumps({"summary": t, "n": 1}),
    "outputSummary": lambda t: json.dumps({"ok": True, "result": {"stdout": t}}, ensure_ascii=False, indent=2),
    "json in json": lambda t: json.dumps(json.dumps({"body": t})),
}


def _fragments(secret: str) -> set[str]:
    """Every 8-character piece of the secret, as written and per whitespace-free part."""
    return {p[i : i + 8] for p in (secret, *secret.split()) for i in range(len(p) - 7)}


@pytest.mark.parametrize(("name", "left", "secret", "right"), SHAPES, ids=[s[0] for s in SHAPES])
def test_masking_replaces_exactly_the_secret(name: str, left: str, secret: str, right: str) -> None:
    text = BEFORE + left + secret + right + AFTER
    expected = BEFORE + left + MASK + right + AFTER
    masked = mask_text(text)
    # The prose before and after and the public context survive byte for byte ...
    assert masked == expected
    # ... and no fragment of the secret does.
    assert secret not in masked
    for fragment in _fragments(secret):
        assert fragment not in masked, fragment
    # Inside JSON the same edit happens within the string literal: still JSON.
    for form, encode in JSON_FORMS.items():
        masked_json = mask_text(encode(text))
        json.loads(masked_json)
        assert masked_json == encode(expected), form


def test_table_covers_at_least_forty_shapes() -> None:
    assert len(SHAPES) >= 40


def test_header_value_only_is_masked() -> None:
    # Issue 11: this used to become "Authorization: ***" and lose the rest of the line.
    assert mask_text("Authorization: Bearer abc123XYZdef more prose") == "Authorization: Bearer *** more prose"


def test_json_summary_keeps_its_closing_quote() -> None:
    summary = json.dumps({"stdout": "Authorization: Bearer abc123XYZdef", "code": 0})
    masked = mask_text(summary)
    assert json.loads(masked) == {"stdout": "Authorization: Bearer ***", "code": 0}


def test_json_non_string_values_under_secret_keys_stay_json() -> None:
    text = '{"token": 123, "password": null, "api_key": true, "secret": "s3cr3t"}'
    assert json.loads(mask_text(text)) == {"token": 123, "password": None, "api_key": True, "secret": MASK}


def test_set_cookie_attributes_stay_readable() -> None:
    assert mask_text("Set-Cookie: id=a3fWa9; Path=/; HttpOnly") == "Set-Cookie: id=***; Path=/; HttpOnly"
    assert mask_text("Cookie: sid=abc123; theme=dark") == "Cookie: sid=***; theme=***"


def test_digest_auth_params_lose_their_values() -> None:
    text = 'Authorization: Digest username="bob", nonce="dcd98b", response="6629fae4", qop=auth\nnext'
    expected = 'Authorization: Digest username="***", nonce="***", response="***", qop=***\nnext'
    assert mask_text(text) == expected
    assert json.loads(mask_text(json.dumps({"h": text}))) == {"h": expected}


def test_offsets_survive_letters_that_lower_case_longer() -> None:
    # "İ".lower() is two characters; spans still land on the original text.
    assert mask_text("İstanbul password=abc123 x") == "İstanbul password=*** x"


def test_a_word_on_the_next_line_is_prose_but_a_tail_is_not() -> None:
    assert mask_text(f"key {ANT}\nnext line") == "key ***\nnext line"
    assert mask_text(f"key {ANT[:20]}\n{ANT[20:]}\nnext line") == "key ***\nnext line"
    # A fixed-length token still short of its length takes the next piece, word-like or not.
    assert mask_text(f"{GHP[:-3]}\n{GHP[-3:]} ok") == "*** ok"


def test_unterminated_quote_masks_to_the_end_of_its_line() -> None:
    masked = mask_text('password="correct horse battery\nnext line')
    assert masked == 'password="***\nnext line'


@pytest.mark.parametrize(
    "prose",
    [
        "The task is to skim the tokens of the parser.",
        "Use the sk-learn library and a desk-top app.",
        "Passwords must be long; see the policy.",
        "Set max_tokens to 500 for this model.",
        "git status shows 3 files",
        "Basic Authentication is simple; Bearer tokens expire; the token expired.",
        "clone ssh://git@github.com/org/repo.git or mail bob@example.com",
        "if password == confirm: return True",
        "The monkey keyboard has a secretary and a passport.",
        "see https://example.com/users/a@b for more",
        '{"max_tokens": 500, "token_count": 12, "password": null}',
        "Authorization:\nnext line",
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


def test_deeply_nested_arguments_are_shown_up_to_a_depth_not_crashed_on() -> None:
    from relavium_desktop.engine.tools.masking import MAX_MASK_DEPTH, TOO_DEEP

    deep: object = {"api_key": "sk-ant-" + "a" * 40}
    for _ in range(5000):  # far past Python's recursion limit
        deep = [deep]
    masked = mask_value(deep)
    for _ in range(MAX_MASK_DEPTH):
        assert isinstance(masked, list)
        masked = masked[0]
    assert masked == TOO_DEEP
    shallow = mask_value([[{"api_key": "sk-ant-" + "a" * 40, "note": "kept"}]])
    assert shallow == [[{"api_key": "***", "note": "kept"}]]
