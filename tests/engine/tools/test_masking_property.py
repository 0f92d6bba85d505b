"""Masking property: random credentials of every supported shape, split at
random whitespace, embedded in random prose and in JSON.

For every example: no fragment of 8+ characters of the secret survives, the
prose and the shape's public context (label, scheme word, quotes, URL scheme
and host) survive byte for byte, and JSON text still parses.

Prose words are lower-case consonant runs of at most seven letters, so they
cannot spell a label, scheme or token prefix and, after a line break that
follows a credential, read as prose rather than as the credential's tail (a
longer word there is masked with it, by design; see masking.py).
"""

from __future__ import annotations

import itertools
import json
import string
from collections.abc import Callable
from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from relavium_desktop.engine.tools.masking import MASK, mask_text

ALNUM = string.ascii_letters + string.digits
DASHED = ALNUM + "_-"
UPPER_DIGITS = string.ascii_uppercase + string.digits
B64URL = ALNUM + "_-"
SCHEME_VALUE = ALNUM + "._~+/=-"
# Bare labelled values: no whitespace, quotes, backslash, separators (,;&) or '='.
BARE_VALUE = ALNUM + "!@#$%^*_+-.:/"
PASSPHRASE_WORD = string.ascii_uppercase + string.digits + "!#$%*"
USERINFO_PASSWORD = ALNUM + "._~!$*+-"

BREAKS = ("\t", "\n", "\r\n")
PROSE_LETTERS = "bcdfghjlmnqrtvwxz"


@dataclass(frozen=True)
class Shape:
    name: str
    left: st.SearchStrategy[str]  # public context before the secret
    secret: st.SearchStrategy[str]
    right: str = ""  # public context after the secret
    split_from: int = 1  # first index a break may be inserted at (-1: never split)
    breaks: tuple[str, ...] = BREAKS


def text_of(alphabet: str, lo: int, hi: int) -> st.SearchStrategy[str]:
    # A closing '.' reads as the sentence's, not the value's (masking.py), so
    # values do not end with one.
    return st.text(alphabet=alphabet, min_size=lo, max_size=hi).filter(lambda t: not t.endswith("."))


def prefixed(prefixes: list[str], alphabet: str, lo: int, hi: int) -> st.SearchStrategy[str]:
    return st.builds(lambda p, b: p + b, st.sampled_from(prefixes), text_of(alphabet, lo, hi))


def jwt() -> st.SearchStrategy[str]:
    seg = text_of(B64URL, 10, 60)
    return st.builds(lambda a, b, c: f"eyJ{a}.{b}.{c}", seg, seg, seg)


def passphrase() -> st.SearchStrategy[str]:
    return st.lists(text_of(PASSPHRASE_WORD, 1, 10), min_size=1, max_size=6).map(" ".join)


def fixed(text: str) -> st.SearchStrategy[str]:
    return st.just(text)


QUOTED_BREAKS = (*BREAKS, " ")

SHAPES: list[Shape] = [
    # Token families; the typed prefix itself is never split.
    Shape("anthropic", fixed(""), prefixed(["sk-ant-api03-", "sk-ant-"], DASHED, 20, 95), split_from=7),
    Shape("openai", fixed(""),
          prefixed(["sk-", "sk-proj-", "sk-svcacct-", "sk-admin-"], DASHED, 20, 64), split_from=3),
    Shape("github", fixed(""), prefixed(["ghp_", "gho_", "ghu_", "ghs_", "ghr_"], ALNUM, 36, 36), split_from=4),
    Shape("github fine-grained", fixed(""), prefixed(["github_pat_"], ALNUM + "_", 82, 82), split_from=11),
    Shape("slack", fixed(""), prefixed([f"xox{c}-" for c in "bpars"], ALNUM + "-", 10, 60), split_from=5),
    Shape("aws", fixed(""), prefixed(["AKIA", "ASIA"], UPPER_DIGITS, 16, 16), split_from=4),
    Shape("google", fixed(""), prefixed(["AIza"], DASHED, 35, 35), split_from=4),
    Shape("gitlab", fixed(""), prefixed(["glpat-"], DASHED, 20, 20), split_from=6),
    Shape("jwt", fixed(""), jwt(), split_from=3),
    # Authentication schemes and headers: the scheme word stays.
    Shape("bearer", st.sampled_from(["Bearer ", "bearer ", "Basic ", "token "]), text_of(SCHEME_VALUE, 20, 80)),
    Shape("bearer jwt", fixed("Bearer "), jwt()),
    Shape("authorization", st.sampled_from([
        "Authorization: Bearer ", "Authorization: Basic ", "authorization: token ",
        "Proxy-Authorization: Bearer ", "Authorization: ", "Authorization:\t",
    ]), text_of(SCHEME_VALUE, 1, 80)),
    Shape("authorization quoted", st.sampled_from(['"Authorization": "', "'authorization': '"]),
          st.builds(lambda v: "Bearer " + v, text_of(SCHEME_VALUE, 1, 60)), breaks=QUOTED_BREAKS),
    # Labelled values.
    Shape("labelled", st.sampled_from([
        "api_key=", "password: ", "--password=", "PASSWORD=", "OPENAI_API_KEY=", "client_secret = ",
        "x-api-key: ", "passphrase: ", "private_key=", "aws_secret_access_key = ", "access_token:",
        "pwd=", "credentials: ", "X-Auth-Token: ",
    ]), text_of(BARE_VALUE, 1, 40)),
    Shape("quoted", st.sampled_from(['password="', 'secret = "', 'api_key: "', '"secret": "', '"token":"']),
          passphrase(), right='"', breaks=QUOTED_BREAKS),
    Shape("single-quoted", st.sampled_from(["password='", "'token': '", "passphrase = '", "'apiKey': '"]),
          passphrase(), right="'", breaks=QUOTED_BREAKS),
    # Never split: userinfo and cookies end at whitespace.
    Shape("userinfo", st.sampled_from(["https://", "postgres://", "git+ssh://"]),
          st.builds(lambda u, p: f"{u}:{p}", text_of(string.ascii_lowercase + string.digits, 1, 12),
                    text_of(USERINFO_PASSWORD, 1, 30)),
          right="@host.example/path", split_from=-1),
    Shape("cookie", st.sampled_from(["Cookie: sid=", "cookie: session="]), text_of(ALNUM + "%-_", 1, 40),
          split_from=-1),
    Shape("set-cookie", fixed("Set-Cookie: id="), text_of(ALNUM + "%-_", 1, 40), right="; Path=/; HttpOnly",
          split_from=-1),
]
# "authorization quoted" closes with the quote it opened with.
RIGHT_FOR_LEFT = {'"Authorization": "': '"', "'authorization': '": "'"}


@st.composite
def prose(draw: st.DrawFn, max_words: int = 8) -> str:
    words = draw(st.lists(text_of(PROSE_LETTERS, 1, 7), min_size=1, max_size=max_words))
    seps = draw(st.lists(st.sampled_from([" ", ", ", ". ", "\n", " - "]), min_size=len(words),
                         max_size=len(words)))
    return "".join(w + s for w, s in zip(words, seps, strict=True)).rstrip()


@st.composite
def split(draw: st.DrawFn, secret: str, shape: Shape) -> list[str]:
    """The secret cut into pieces at up to three random points."""
    if shape.split_from < 0 or len(secret) - shape.split_from < 1:
        return [secret]
    points = draw(st.lists(st.integers(shape.split_from, len(secret) - 1), max_size=3, unique=True))
    cuts = [0, *sorted(points), len(secret)]
    return [secret[a:b] for a, b in itertools.pairwise(cuts)]


@dataclass
class Example:
    before: str
    left: str
    pieces: list[str]
    written: str
    right: str
    after: str

    @property
    def text(self) -> str:
        return self.before + self.left + self.written + self.right + self.after


@st.composite
def examples(draw: st.DrawFn) -> Example:
    shape = draw(st.sampled_from(SHAPES))
    left = draw(shape.left)
    secret = draw(shape.secret)
    pieces = draw(split(secret, shape))
    breaks = [draw(st.sampled_from(shape.breaks)) for _ in pieces[1:]]
    written = pieces[0] + "".join(b + p for b, p in zip(breaks, pieces[1:], strict=True))
    right = RIGHT_FOR_LEFT.get(left, shape.right)
    before = draw(prose()) + draw(st.sampled_from([" ", "\n", ": "]))
    after = draw(st.sampled_from([" ", "\n", "\t", "\r\n", ", ", ". "])) + draw(prose())
    return Example(before, left, pieces, written, right, after)


def check_masked(masked: str, ex: Example) -> None:
    head, tail = ex.before + ex.left, ex.right + ex.after
    assert masked.startswith(head), masked
    assert masked.endswith(tail), masked
    middle = masked[len(head) : len(masked) - len(tail)]
    assert middle.startswith(MASK), masked
    for piece in ex.pieces:
        for i in range(len(piece) - 7):
            assert piece[i : i + 8] not in middle, (piece[i : i + 8], masked)


ENCODINGS: list[Callable[[str], str]] = [
    lambda t: json.dumps({"summary": t, "n": 1}),
    lambda t: json.dumps({"ok": True, "result": {"stdout": t, "code": 0}}, indent=2, ensure_ascii=False),
]


@settings(max_examples=400, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(examples())
def test_masking_removes_every_fragment_and_keeps_prose(ex: Example) -> None:
    check_masked(mask_text(ex.text), ex)


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(examples(), st.sampled_from(range(len(ENCODINGS))))
def test_masked_json_stays_json(ex: Example, encoding: int) -> None:
    masked = mask_text(ENCODINGS[encoding](ex.text))
    decoded = json.loads(masked)
    text = decoded["summary"] if "summary" in decoded else decoded["result"]["stdout"]
    check_masked(text, ex)


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(examples())
def test_masked_json_inside_json_stays_json(ex: Example) -> None:
    # A tool result carrying JSON text (an HTTP body) is JSON inside a JSON string.
    masked = mask_text(json.dumps(json.dumps({"body": ex.text})))
    check_masked(json.loads(json.loads(masked))["body"], ex)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(examples())
def test_masking_is_idempotent(ex: Example) -> None:
    # Diagnostics are sometimes masked twice (engine, then the dialog showing them).
    once = mask_text(ex.text)
    assert mask_text(once) == once


@st.composite
def json_with_a_span(draw: st.DrawFn) -> tuple[str, int, int]:
    """JSON text full of escapes, and a span somewhere inside one string's content."""
    value = draw(st.text(alphabet=st.sampled_from('ab\n\t\r"\\/é€\x01 '), min_size=1, max_size=30))
    text = json.dumps({"k": value}, ensure_ascii=draw(st.booleans()))
    first = text.index('"', text.index(":")) + 1
    last = len(text) - 2  # the closing quote of the value
    start = draw(st.integers(first, last))
    end = draw(st.integers(start, last))
    return text, start, end


@settings(max_examples=300, deadline=None, derandomize=True)
@given(json_with_a_span())
def test_a_span_never_cuts_through_an_escape(case: tuple[str, int, int]) -> None:
    # The safety net under every recogniser: whatever span inside a string is
    # replaced, the escapes around it stay whole and the text stays JSON.
    from relavium_desktop.engine.tools.masking import _replace

    text, start, end = case
    if end > start:
        assert isinstance(json.loads(_replace(text, [(start, end)]))["k"], str)
