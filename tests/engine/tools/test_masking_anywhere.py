"""Masking policy additions for the outward channels: keys glued to identifiers, keys split
across escaped line breaks at any JSON depth, secrets known by value, structure-keeping masking."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from relavium_desktop.engine.tools.masking import (
    MASK,
    forget_secrets,
    mask_strings,
    mask_text,
    remember_secret,
)

ANT = "sk-ant-api03-Q7wErTy8uIoP9aSdFgHjKl2ZxCvBnM4"
GHP = "ghp_R2d2C3p0L8k9J7h6G5f4D3s2A1q0W9e8R7t6"


@pytest.fixture(autouse=True)
def _no_remembered_secrets() -> Iterator[None]:
    forget_secrets()
    yield
    forget_secrets()


@pytest.mark.parametrize("text", [
    f"no tool named 'mcp_server_{ANT}'",
    f"id=x{GHP}",
    f"tool_{GHP}_call",
    f"prefix-{ANT}",
])
def test_a_key_glued_to_an_identifier_is_masked(text: str) -> None:
    masked = mask_text(text)
    assert ANT not in masked and GHP not in masked
    assert ANT[12:20] not in masked and GHP[4:12] not in masked


@pytest.mark.parametrize("prose", [
    "task-ant-colony-simulation is a project",
    "ask-questions-about-everything-here",
    "ASIAN markets opened", "keyJSONParserImplementation",
])
def test_word_like_prefixes_inside_words_stay_prose(prose: str) -> None:
    assert mask_text(prose) == prose


@pytest.mark.parametrize("depth", [0, 1, 2, 3])
def test_a_key_split_across_a_line_break_is_masked_at_any_json_depth(depth: int) -> None:
    text = f"refused: {ANT[:20]}\n{ANT[20:]}\nplease check"
    for _ in range(depth):
        text = json.dumps({"error": text})
    masked = mask_text(text)
    for i in range(len(ANT) - 7):
        assert ANT[i:i + 8] not in masked.replace("\\", ""), (depth, masked)
    if depth:
        json.loads(masked)  # still JSON
    assert "please check" in masked.replace("\\n", "\n")


def test_a_remembered_secret_is_masked_by_value_even_split_or_json_escaped() -> None:
    value = "plain-Looking-Value-77/x\"q"
    assert mask_text(f"the value {value} here") == f"the value {value} here"  # not key-shaped
    remember_secret(value)
    assert mask_text(f"the value {value} here") == f"the value {MASK} here"
    assert mask_text(f"wrapped {value[:9]}\n{value[9:]} end") == f"wrapped {MASK} end"
    doc = json.dumps({"out": f"echo {value}"})
    masked = mask_text(doc)
    assert json.loads(masked) == {"out": f"echo {MASK}"}


def test_short_values_are_not_remembered() -> None:
    remember_secret("abc123")
    assert mask_text("abc123 and abc1234") == "abc123 and abc1234"


def test_mask_strings_keeps_shape_and_fields_named_like_secrets() -> None:
    event = {"type": "agent:token", "token": "hello", "max_token": 5, "nested": [{ANT: f"x {GHP}"}], "ok": True}
    masked = mask_strings(event)
    assert masked == {"type": "agent:token", "token": "hello", "max_token": 5, "nested": [{MASK: f"x {MASK}"}],
                      "ok": True}


def test_serialized_events_keep_a_streamed_token_but_not_a_token_shaped_one() -> None:
    from relavium_desktop.engine.tools.masking import mask_serialized

    assert mask_serialized(json.dumps({"type": "agent:token", "token": "It is 42."})) == (
        '{"type": "agent:token", "token": "It is 42."}')
    assert mask_serialized(json.dumps({"token": "Zq8Wm3Lp0Rt5Yv7B"})) == '{"token": "***"}'
    assert mask_serialized(json.dumps({"token": GHP})) == '{"token": "***"}'
    assert mask_serialized(json.dumps({"access_token": "It is"})) == '{"access_token": "***"}'
    # The plain policy is unchanged: a "token" key's value is always masked.
    assert mask_text(json.dumps({"token": "It is"})) == '{"token": "***"}'


@pytest.mark.parametrize(("text", "shown"), [
    ('{"apiKey": "env:RELAVIUM_TEST_KEY"}', '{"apiKey": "env:RELAVIUM_TEST_KEY"}'),
    ("anthropic  secret:ANTHROPIC_API_KEY  unavailable", "anthropic  secret:ANTHROPIC_API_KEY  unavailable"),
    ("api_key: secret:OPENAI_API_KEY", "api_key: secret:OPENAI_API_KEY"),
    ("client_secret:hunter2", "client_secret:***"),
    (f"api_key=secret:{GHP}", "api_key=secret:***"),
])
def test_a_secret_reference_names_a_secret_and_stays_readable(text: str, shown: str) -> None:
    assert mask_text(text) == shown
