"""A key the model streams in pieces never shows in agent:token events; prose still streams at once.

The agent loop runs against the scripted wire-format server (a real HTTP
stream of OpenAI and Anthropic deltas); events are recorded in their wire
form, as the CLI, history.db and the app see them.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from relavium_desktop.engine.agent.held_stream import HOLD_LIMIT, HeldStream
from relavium_desktop.engine.llm.messages import Message
from relavium_desktop.engine.tools.masking import forget_secrets, remember_secret
from tests.engine.agent.conftest import Rig
from tests.fixtures.llm_server import Reply

KEY = "sk-ant-api03-Hq7Wn2Lp9Rt4Yv6Bm1Zx8Cs3Dk5Fj0GgQ"
KNOWN = "opaque7Provider9Key4Q2m9X4t"
BEFORE = "Sure. The value in your .env file is "
AFTER = " and it should be rotated now, because it was pasted into a chat."


@pytest.fixture(autouse=True)
def _secrets() -> Iterator[None]:
    yield
    forget_secrets()


def pieces_of(secret: str) -> list[str]:
    return [secret[i : i + 8] for i in range(len(secret) - 7)]


def leaked(secret: str, texts: list[str]) -> list[str]:
    return [t for t in texts for piece in pieces_of(secret) if piece in t]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_a_key_split_across_token_events_is_masked_and_the_prose_arrives_in_order(
    rig: Rig, provider: str
) -> None:
    text = BEFORE + KEY + AFTER
    rig.server.script(Reply(text=text, reasoning=f"The user pasted {KEY} earlier.", pieces=24))
    model = "gpt-4o-mini" if provider == "openai" else "claude-sonnet-4-5"
    result = await rig.loop(tools=[], provider=provider, model=model).run([Message.user("what is my key?")])
    assert result.status == "completed", result.failure
    tokens = [e["token"] for e in rig.of_type("agent:token")]
    reasoning = [e["token"] for e in rig.of_type("agent:reasoning")]
    # The key really was cut across deltas: no single delta of the scripted stream holds it.
    assert len(tokens) > 5 and not any(KEY in t for t in tokens)
    assert leaked(KEY, tokens) == [] and leaked(KEY, reasoning) == []
    assert "".join(tokens) == BEFORE + "***" + AFTER
    assert "".join(reasoning) == "The user pasted *** earlier."
    assert result.text == text  # the model's own message, kept for its next request, is not rewritten


async def test_a_secret_known_by_value_split_across_token_events_is_masked(rig: Rig) -> None:
    remember_secret(KNOWN)
    rig.server.script(Reply(text=f"Your key is {KNOWN}, keep it safe.", pieces=12))
    result = await rig.loop(tools=[]).run([Message.user("what is my key?")])
    assert result.status == "completed", result.failure
    tokens = [e["token"] for e in rig.of_type("agent:token")]
    assert leaked(KNOWN, tokens) == []
    assert "".join(tokens) == "Your key is ***, keep it safe."


def test_text_that_cannot_begin_a_key_is_released_at_once() -> None:
    stream = HeldStream()
    for piece in ["Hello", " there", ", how are", " you today", "? Fine", " thanks."]:
        assert stream.feed(piece) == piece
    assert stream.flush() == ""


def test_a_possible_key_is_held_only_while_it_could_still_be_one() -> None:
    stream = HeldStream()
    assert stream.feed("Use s") == "Use "  # "s" could begin "sk-"
    assert stream.feed("et") == "set"  # "set" cannot: released with the next piece
    assert stream.feed(" sk-ant-api03-Hq7Wn2") == " "
    assert stream.feed("Lp9Rt4Yv6Bm1Zx8Cs3") == ""
    assert stream.feed("Dk5Fj0GgQ. Done") == "***. Done"
    assert stream.feed(" then sk-a") == " then "
    assert stream.flush() == "sk-a"  # the stream ended: what is held is released (masked if a key)


def test_at_most_the_limit_is_held_and_the_rest_of_a_long_key_stays_masked() -> None:
    stream = HeldStream()
    shown = [stream.feed("token: "), stream.feed("sk-ant-")]
    tail = "Ab1" * 200  # a 600-character run: longer than anything that may be held
    for i in range(0, len(tail), 7):
        shown.append(stream.feed(tail[i : i + 7]))
        assert len(stream.held) <= HOLD_LIMIT
    shown += [stream.feed(" after"), stream.flush()]
    joined = "".join(shown)
    assert "Ab1Ab1Ab" not in joined
    assert joined.endswith(" after")


async def test_a_key_wrapped_across_a_line_break_and_split_across_events_is_masked_whole(rig: Rig) -> None:
    wrapped = f"{KEY[:20]}\n{KEY[20:]}"
    rig.server.script(Reply(text=BEFORE + wrapped + AFTER, pieces=30))
    result = await rig.loop(tools=[]).run([Message.user("what is my key?")])
    assert result.status == "completed", result.failure
    tokens = [e["token"] for e in rig.of_type("agent:token")]
    assert leaked(KEY[:20], tokens) == [] and leaked(KEY[20:], tokens) == []
    assert "".join(tokens) == BEFORE + "***" + AFTER


def test_a_line_break_after_ordinary_text_or_a_blank_line_releases_at_once() -> None:
    stream = HeldStream()
    assert stream.feed("line one\n") == "line one\n"
    assert stream.feed("line two\n") == "line two\n"
    assert stream.feed("sk-ant-api03-Hq7Wn2Lp9Rt4\n") == ""  # a key may go on on the next line
    assert stream.feed("\n") == "***\n\n"  # a blank line ends it
