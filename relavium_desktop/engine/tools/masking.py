"""Finite credential masking for diagnostics: previews, summaries, events.

This is conservative pattern masking, not a proof that nothing sensitive is
left.  Each recogniser (token families, labelled values, auth headers and
schemes, cookies, URL userinfo) reports *spans* of the original text; the
spans are merged and each is replaced by ``***``.  Working on spans of the
untouched text, instead of chaining substitutions, is what lets masking
remove the secret and nothing else: no recogniser sees another's output,
and the prose around every span is copied byte for byte.  Masking runs
before clipping, so a cut can never expose a token's tail.

Why the rules are what they are:

* A span never contains an unescaped double quote and never splits a
  backslash escape (the replacement widens to whole escapes).  Text handed
  to us is often JSON (an outputSummary, a rendered argument list, an HTTP
  body inside a result); keeping every edit inside one string literal and
  between escapes is what keeps masked JSON parseable.  For the same reason
  JSON escapes count as what they decode to: ``\\n``/``\\t``/``\\r`` (also
  double-escaped) are line breaks and separators, ``\\"`` is a quote.
* A value continues across a *single* TAB, CR, LF or CRLF break (raw or
  escaped), because wrapped or pasted keys are split that way.  A
  continuation is taken only when it looks like a token tail -- eight or more
  characters of the value's alphabet, or a shorter piece that mixes digits,
  case or symbols -- or when a fixed-length token is still short of its
  length.  A plain word on the next line (``next``, ``The``, ``OK``) is far
  more likely prose than a tail, and leaving one unmasked exposes at most
  seven characters of an already-masked credential; the price is that a
  longer word starting the line right after a credential is masked with it.
  Spaces never continue a value: they separate public prose
  (``Bearer <tok> more prose``).
* Free-standing ``Bearer``/``Basic``/``token`` need a token-shaped value
  (so "Basic Authentication" stays prose); after an Authorization header the
  header itself is the evidence and any value is masked.
* A quoted value after a secret-looking key is masked whole, quotes kept, so
  a passphrase with spaces or line breaks does not leak its later words.  An
  unterminated quote (or one that closes only after an empty line) masks to
  the end of the line: where the value ends is unknowable.
* A URL's userinfo is masked unless it is a plain user name (``git@``): a
  lower-case name alone grants nothing; a ``user:password`` or token does.
* A JSON key that looks secret but holds a number, bool or null is left
  alone -- ``***`` there would make the JSON invalid.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

MASK = "***"

Span = tuple[int, int]

# -- building blocks ---------------------------------------------------------

# A credential starts at a word boundary; a JSON escape (\n, \t, \r, \uXXXX)
# is a separator even though it ends in a letter or digit.  Checked in Python
# after a literal-led match: a leading lookbehind would defeat the regex
# engine's literal search and cost several times more on long text.
_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_TOKEN_CHARS = _ALNUM | {"_", "-"}
_ESCAPE_BEFORE_RE = re.compile(r"\\(?:[nrt]|u[0-9A-Fa-f]{4})")


def _starts_at(text: str, i: int, word: frozenset[str]) -> bool:
    if i == 0 or text[i - 1] not in word:
        return True
    return bool(
        (i >= 2 and _ESCAPE_BEFORE_RE.fullmatch(text, i - 2, i))
        or (i >= 6 and _ESCAPE_BEFORE_RE.fullmatch(text, i - 6, i))
    )


# Exactly one whitespace break: TAB, CR, LF or CRLF, raw or JSON-escaped
# (once, twice for JSON inside a JSON string, and deeper: a tool result's
# text inside the CLI's JSON inside a stored event doubles the backslashes
# at every level).
_BREAK_RE = re.compile(r"\r\n|[\n\r\t]|\\{1,8}r\\{1,8}n|\\{1,8}[nrt]")
_NL = r"(?:\r?\n|(?:\\{1,2}r)?\\{1,2}n)"
_BLANK_LINE_RE = re.compile(_NL + _NL)
# Spaces and TABs, raw or JSON-escaped, between a key or scheme and its value.
_GAP = r"(?:[ \t]|\\{1,2}t)"

# Continuation pieces that read as prose rather than a token tail: a word,
# maybe capitalised or upper-case, maybe ending a sentence; or bare symbols.
_WORDISH_RE = re.compile(r"(?:[A-Za-z][a-z]*|[A-Z]+)[.,:;!?)]?|[^A-Za-z0-9]+")
_MAX_PIECES = 16


def _looks_like_tail(piece: str) -> bool:
    n = len(piece.rstrip(".,:;!?)"))  # closing punctuation is the sentence's
    return n >= 8 or (n >= 3 and _WORDISH_RE.fullmatch(piece) is None)


@dataclass(frozen=True, slots=True)
class _Shape:
    """How one kind of value is spelled."""

    run: re.Pattern[str]  # one unbroken piece of the value (may match empty)
    minimum: int = 1  # value characters required, continuation included
    full: int = 0  # length of a complete fixed-length value (0: variable)
    trim: str = ""  # trailing characters that end a sentence, not the value


def _run(alphabet: str) -> re.Pattern[str]:
    return re.compile(f"[{alphabet}]*")


def _extend(text: str, end: int, shape: _Shape, body: int) -> tuple[int, int]:
    """Extend a value ending at ``end`` across single whitespace breaks.

    Pieces are read while each follows one break; the span ends after the last
    piece that is tail-like (or still needed by a fixed-length token), so a
    short piece between two tail-like ones goes with them.  Returns the new
    end and the length of the whole run of pieces: whether the value is a
    credential at all is judged on all of it, even the short word-like tail
    left outside the span.
    """
    best = end
    pos = end
    for _ in range(_MAX_PIECES):
        brk = _BREAK_RE.match(text, pos)
        if brk is None:
            break
        piece = shape.run.match(text, brk.end())
        if piece is None or piece.end() == piece.start():
            break
        needed = body < shape.full
        body += piece.end() - piece.start()
        pos = piece.end()
        if needed or _looks_like_tail(piece.group()):
            best = pos
    return best, body


def _value_span(text: str, start: int, shape: _Shape) -> tuple[int, int, int]:
    """The value at ``start`` (maybe empty), extended and trimmed.

    Returns (start, end, run): ``run`` counts the value's characters including
    word-like pieces that were left outside the span.
    """
    head = shape.run.match(text, start)
    end = head.end() if head else start
    end, run = _extend(text, end, shape, end - start)
    while shape.trim and end > start + 1 and text[end - 1] in shape.trim:
        end -= 1
    return start, end, run


# -- quoted values -----------------------------------------------------------

_QUOTE_RE = re.compile(r"\\{0,3}[\"']")
# Rest of a line after an unterminated quote: stops at a raw or escaped line
# break and at anything that could close a JSON string.
_REST_OF_LINE_RE = re.compile(r"(?:[^\r\n\"\\]|\\[^nr\"\\\r\n])*")


@lru_cache(maxsize=16)
def _closing(quote: str) -> re.Pattern[str]:
    q = re.escape(quote)
    # Content units are plain characters or escape pairs; a raw '"' always ends
    # the search (inside JSON it closes the enclosing string).
    return re.compile(r"(?:(?!" + q + r")(?:[^\"\\]|\\[\s\S])){0,1024}?" + q)


def _quoted(text: str, pos: int) -> Span | None:
    """Content span of the quoted value opening at ``pos``, or None if none opens."""
    opening = _QUOTE_RE.match(text, pos)
    if opening is None:
        return None
    start = opening.end()
    closed = _closing(opening.group()).match(text, start)
    if closed is not None:
        end = closed.end() - len(opening.group())
        if not _BLANK_LINE_RE.search(text, start, end):
            return (start, end)
    rest = _REST_OF_LINE_RE.match(text, start)
    return (start, rest.end() if rest else start)


# -- recognisers -------------------------------------------------------------
# Each gets the text and its lower-cased copy (same length); keyword-led
# recognisers search the copy, because a case-insensitive regex is several
# times slower.  Values are always read from the original text.

_TOKEN_ALNUM = _run("A-Za-z0-9")
_TOKEN_DASHED = _run(r"A-Za-z0-9_\-")
_FAMILIES: dict[str, _Shape] = {
    "sk-ant-": _Shape(_TOKEN_DASHED, minimum=8),
    "sk-": _Shape(_TOKEN_DASHED, minimum=16),
    **{f"gh{c}_": _Shape(_TOKEN_ALNUM, minimum=20, full=36) for c in "pousr"},
    "github_pat_": _Shape(_run("A-Za-z0-9_"), minimum=20, full=82),
    **{f"xox{c}-": _Shape(_run(r"A-Za-z0-9\-"), minimum=8) for c in "bpars"},
    "AKIA": _Shape(_run("0-9A-Z"), minimum=16, full=16),
    "ASIA": _Shape(_run("0-9A-Z"), minimum=16, full=16),
    "AIza": _Shape(_TOKEN_DASHED, minimum=30, full=35),
    "glpat-": _Shape(_TOKEN_DASHED, minimum=16, full=20),
    # A JWT: base64url JSON header, then payload and signature after dots.
    "eyJ": _Shape(_run(r"A-Za-z0-9_\-."), minimum=12, trim="."),
}
_TOKEN_RE = re.compile("|".join(re.escape(p) for p in sorted(_FAMILIES, key=len, reverse=True)))


# Prefixes no word or identifier contains: a key glued to an identifier
# (``mcp_server_ghp_...``, ``id=xoxb-...``) is still a key, so these need no
# word boundary at all.  ``sk-``/``sk-ant-`` need one only against a letter or
# digit ("task-ant-..." is prose, ``tool_sk-ant-...`` a key); ``eyJ``
# ("keyJSON...") and ``AKIA``/``ASIA`` ("ASIAN...") need a full one.
_ANYWHERE = frozenset(
    {"github_pat_", "glpat-", *(f"gh{c}_" for c in "pousr"), *(f"xox{c}-" for c in "bpars"), "AIza"}
)
_AFTER_NON_ALNUM = frozenset({"sk-", "sk-ant-"})


def _tokens(text: str, low: str) -> Iterator[Span]:
    for m in _TOKEN_RE.finditer(text):
        prefix = m.group()
        boundary = _ALNUM if prefix in _AFTER_NON_ALNUM else _TOKEN_CHARS
        if prefix not in _ANYWHERE and not _starts_at(text, m.start(), boundary):
            continue
        shape = _FAMILIES[prefix]
        _, end, body = _value_span(text, m.end(), shape)
        if body >= shape.minimum:
            yield (m.start(), end)


# "Bearer <tok>", "Basic <b64>", "token <tok>" outside a header.
_SCHEME_RE = re.compile(r"(?:bearer|basic|token)" + _GAP + "+")
_SCHEME_VALUE = _Shape(_run(r"A-Za-z0-9._~+/=\-"), trim=".")
_NOT_LOWER_RE = re.compile(r"[^a-z]")


def _schemes(text: str, low: str) -> Iterator[Span]:
    for m in _SCHEME_RE.finditer(low):
        if not _starts_at(text, m.start(), _ALNUM):
            continue
        start, end, body = _value_span(text, m.end(), _SCHEME_VALUE)
        # Token-shaped: long, or not a plain (possibly capitalised) word.
        if body >= 20 or (body >= 8 and _NOT_LOWER_RE.search(text, start + 1, end)):
            yield (start, end)


# After a key: an optional closing quote (JSON/dict keys), then ':' or '='.
_KEY_END = rf"(?P<kq>\\{{0,3}}[\"'])?{_GAP}*[:=]{_GAP}*"

# "proxy-authorization" ends in the same word.
_HEADER_RE = re.compile(r"authorization" + _KEY_END)
_HEADER_SCHEME_RE = re.compile(r"(bearer|basic|token|digest|negotiate|ntlm|bot|apikey|dpop)" + _GAP + "+")
_HEADER_VALUE = _Shape(_run(r"^\s,;\"'\\{}\[\]<>"), trim=".")


def _headers(text: str, low: str) -> Iterator[Span]:
    for m in _HEADER_RE.finditer(low):
        if not _starts_at(text, m.start(), _ALNUM):
            continue
        pos = m.end()
        quoted = _quoted(text, pos)
        if quoted is not None:
            yield quoted
            continue
        if m.group("kq"):
            continue  # a JSON key holding a non-string
        scheme = _HEADER_SCHEME_RE.match(low, pos)
        if scheme is not None and scheme.group(1) == "digest":
            yield from _auth_params(text, scheme.end())
            continue
        start, end, _ = _value_span(text, scheme.end() if scheme else pos, _HEADER_VALUE)
        yield (start, end)


# Digest-style auth-params: name=value or name="value", comma-separated.
_AUTH_PARAM_RE = re.compile(r"[A-Za-z0-9_\-]+=")
_AUTH_PARAM_SEP_RE = re.compile(r"[ \t]*,[ \t]*")
_AUTH_PARAM_TOKEN_RE = re.compile(r"[^\s,;\"'\\]*")


def _auth_params(text: str, pos: int) -> Iterator[Span]:
    """Every auth-param value (names stay readable), quoted ones without their quotes."""
    while (name := _AUTH_PARAM_RE.match(text, pos)) is not None:
        opening = _QUOTE_RE.match(text, name.end())
        if opening is not None:
            start, end = _quoted(text, name.end()) or (name.end(), name.end())
            yield (start, end)
            if not text.startswith(opening.group(), end):
                return  # unterminated: masked to the end of the line
            end += len(opening.group())
        else:
            token = _AUTH_PARAM_TOKEN_RE.match(text, name.end())
            end = token.end() if token else name.end()
            yield (name.end(), end)
        sep = _AUTH_PARAM_SEP_RE.match(text, end)
        if sep is None:
            return
        pos = sep.end()


# "set-cookie" ends in the same word.
_COOKIE_RE = re.compile(rf"cookie(?P<kq>\\{{0,3}}[\"'])?{_GAP}*:{_GAP}*")
_COOKIE_PAIR_RE = re.compile(r"[^\s=;,\"'\\]+=([^\s;,\"'\\]*?)\.?(?![^\s;,\"'\\])")
_COOKIE_SEP_RE = re.compile(r";[ \t]*")
_COOKIE_BARE_RE = re.compile(r"[^\s;,\"'\\]*")


def _cookies(text: str, low: str) -> Iterator[Span]:
    for m in _COOKIE_RE.finditer(low):
        if not _starts_at(text, m.start(), _ALNUM):
            continue
        pos = m.end()
        quoted = _quoted(text, pos)
        if quoted is not None:
            yield quoted
            continue
        if m.group("kq"):
            continue
        pair = _COOKIE_PAIR_RE.match(text, pos)
        if pair is None:
            bare = _COOKIE_BARE_RE.match(text, pos)
            if bare is not None:
                yield bare.span()
            continue
        # name=value; name=value: the names stay readable.  After Set-Cookie
        # only the first pair is the cookie; the rest are attributes (Path=/).
        only_first = low.endswith("set-", 0, m.start())
        while pair is not None:
            yield pair.span(1)
            sep = _COOKIE_SEP_RE.match(text, pair.end())
            pair = _COOKIE_PAIR_RE.match(text, sep.end()) if sep and not only_first else None


_LABEL = (
    r"(?:[A-Za-z0-9]*[_\-.]?)?"
    r"(?:api[_\-.]?key|apikey|secret[_\-.]?key|secret|client[_\-.]?secret|access[_\-.]?key|password|passwd|"
    r"passphrase|pwd|access[_\-.]?token|refresh[_\-.]?token|auth[_\-.]?token|id[_\-.]?token|"
    r"session[_\-.]?token|token|private[_\-.]?key|credentials?|x-api-key|api[_\-.]?token)"
)
# The words _LABEL ends in.  Its optional word prefix can always reach back to
# a word boundary, so in running text a label is simply one of these words
# followed by a key separator: api_key=…  PASSWORD: …  --password=…
# "secret": "…"  'token': '…'  x-api-key: …
_LABEL_WORD = (
    r"(?:api[_\-.]?key|apikey|secret(?:[_\-.]?key)?|(?:private|access)[_\-.]?key|passw(?:or)?d|passphrase|pwd|"
    r"token|credentials?)"
)
_LABELLED_RE = re.compile(_LABEL_WORD + _KEY_END)
# A bare value: up to whitespace or a separator.  '&' ends it only before
# another name= (a query string); backslash escapes are part of it except
# JSON line breaks and quotes, which end it.
_LABEL_VALUE = _Shape(
    re.compile(
        r"(?:[^\s,;&\"'}\]\\]|&(?![\w.\-\[\]]+=)|\\\\(?![nrt\"'\\])|\\[^nrt\"'\\\s])*"
    ),
    trim=".)",
)
# A label inside URL userinfo (https://x-access-token:…@host) is the
# userinfo recogniser's; read as a label its value would run over the host.
_USERINFO_PART_RE = re.compile(r"[^/\s@?#\"'<>\\]*")


def _in_userinfo(text: str, i: int) -> bool:
    j = text.rfind("://", max(0, i - 256), i)
    return j >= 0 and _USERINFO_PART_RE.fullmatch(text, j + 3, i) is not None


# In serialised run events (stdout's JSON lines, history.db rows) a JSON key
# that is exactly "token" names a streamed piece of the model's answer
# (``agent:token``): there (:func:`mask_serialized`) only a token-shaped value
# (no whitespace, eight characters or more) is taken for a credential.
# ``access_token``, ``token=...`` and ``token: ...`` keep the plain rule.
_BARE_TOKEN_KEY_RE = re.compile(r"(?<![A-Za-z0-9_\-.])token\\{0,3}[\"']")
_TOKEN_SHAPED_RE = re.compile(r"[^\s\\\"']{8,}")


def _labelled(text: str, low: str, streamed_token_key: bool = False) -> Iterator[Span]:
    for m in _LABELLED_RE.finditer(low):
        if _in_userinfo(text, m.start()):
            continue
        pos = m.end()
        quoted = _quoted(text, pos)
        if quoted is not None:
            if _REFERENCE_RE.fullmatch(text, *quoted):
                continue  # "apiKey": "secret:NAME" names a secret, it is not one
            if (
                streamed_token_key
                and m.group("kq")
                and _BARE_TOKEN_KEY_RE.match(low, m.start())
                and m.start() > 0
                and low[m.start() - 1] in "\"'"
                and not _TOKEN_SHAPED_RE.fullmatch(text, *quoted)
            ):
                continue  # an agent:token event's text, not a credential
            yield quoted
            continue
        if m.group("kq") or text.startswith("=", pos):
            continue  # a JSON key holding a non-string; "password == x" is code
        start, end, _ = _value_span(text, pos, _LABEL_VALUE)
        if _REFERENCE_RE.fullmatch(text, start, end) or _is_secret_ref(text, low, m.start(), pos, end):
            continue  # api_key: secret:NAME names a secret, it is not one
        yield (start, end)


# ``secret:NAME`` and ``env:NAME`` are references (resolved inside the host),
# shown wherever a key is configured: the name is not the secret.
_REFERENCE_RE = re.compile(r"(?:secret|env):[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


def _is_secret_ref(text: str, low: str, label: int, value: int, end: int) -> bool:
    """Whether the label at ``label`` is the ``secret:`` of a ``secret:NAME`` reference."""
    return (
        value == label + 7
        and low.startswith("secret:", label)
        and (label == 0 or text[label - 1] not in _TOKEN_CHARS | {"."})
        and _REFERENCE_RE.fullmatch(text, label, end) is not None
    )


# scheme://user:pass@host or scheme://token@host: the userinfo goes, scheme and
# host stay.  A plain user name (git@, bob@) is not a credential.
_USERINFO_RE = re.compile(r"://([^/\s@?#\"'<>\\]{1,256})@")  # same class as _USERINFO_PART_RE
_PLAIN_USER_RE = re.compile(r"[a-z][a-z._\-]{0,19}")


def _userinfo(text: str, low: str) -> Iterator[Span]:
    for m in _USERINFO_RE.finditer(text):
        if not _PLAIN_USER_RE.fullmatch(m.group(1)):
            yield m.span(1)


_RECOGNISERS: tuple[Callable[[str, str], Iterator[Span]], ...] = (
    _tokens,
    _schemes,
    _headers,
    _cookies,
    _labelled,
    _userinfo,
)


# -- replacement -------------------------------------------------------------

_JSON_ESCAPE_RE = re.compile(r"\\(?:[\"\\/bfnrt]|u[0-9A-Fa-f]{4})")


def _escape_around(text: str, b: int) -> Span | None:
    """The JSON escape sequence that boundary ``b`` cuts through, if any."""
    lo = b - 1
    while lo >= 0 and b - lo <= 5 and text[lo] != "\\":
        lo -= 1
    if lo < 0 or b - lo > 5:
        return None
    # Step back over the backslash run; escapes pair up from its start.
    run = lo
    while run > 0 and text[run - 1] == "\\":
        run -= 1
    if (lo - run) % 2:
        lo -= 1  # text[lo] is the escaped half of a "\\\\" pair
    esc = _JSON_ESCAPE_RE.match(text, lo)
    if esc is not None and esc.start() < b < esc.end():
        return esc.span()
    return None


def _replace(text: str, spans: list[Span]) -> str:
    # Never cut through an escape: "\\" or "\\n" half-masked is broken JSON.
    widened: list[Span] = []
    for span in spans:
        cut_start = _escape_around(text, span[0])
        cut_end = _escape_around(text, span[1])
        widened.append((cut_start[0] if cut_start else span[0], cut_end[1] if cut_end else span[1]))
    widened.sort()
    out: list[str] = []
    pos = 0
    cur_start, cur_end = widened[0]
    for start, end in widened[1:]:
        if start <= cur_end:  # overlapping or touching: one mask
            cur_end = max(cur_end, end)
            continue
        out += (text[pos:cur_start], MASK)
        pos = cur_end
        cur_start, cur_end = start, end
    out += (text[pos:cur_start], MASK, text[cur_end:])
    return "".join(out)


# One cheap scan that every recognised shape must hit; text without any of
# these fragments cannot contain a supported credential, so the recognisers
# are skipped (this keeps dispatch overhead low).  Matched against the
# lower-cased text (a case-insensitive alternation is several times slower).
# The JWT prefix "eyJ" is tested apart with a plain substring check: one
# more alternative starting with a letter as common as 'e' doubles the scan.
_MAYBE_RE = re.compile(
    r"sk-|gh[pousr]_|github_pat_|xox[bpars]-|akia|asia|aiza|glpat-|@|authoriz|bearer|basic|token|"
    r"key|secret|pass[wp]|pwd|credential|cookie"
)


# -- secrets known by value ---------------------------------------------------
#
# A secret the process resolved (a keyring value, a provider key read from the
# environment) need not look like any token family: it is masked wherever it
# shows up, also split once per character by a line break (wrapped output).
# This is process state by nature -- what this process has seen -- and every
# outward channel must consult the same set, which is why it lives here beside
# the policy instead of in an object a new producer would have to be handed.

MIN_KNOWN_SECRET = 8  # shorter values are too likely to be ordinary words
_SPLIT = r"(?:\r\n|[\n\r\t]|\\{1,8}r\\{1,8}n|\\{1,8}[nrt])?"


class _KnownSecrets:
    """The secret values this process knows; one compiled pattern over all of them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values: frozenset[str] = frozenset()
        self.pattern: re.Pattern[str] | None = None

    def add(self, value: str) -> None:
        if len(value) < MIN_KNOWN_SECRET or value in self._values:
            return
        with self._lock:
            values = self._values | {value}
            spellings = {s for v in values for s in _spellings(v)}
            # Longest first: a value that contains another is masked whole.
            alternatives = sorted(spellings, key=len, reverse=True)
            self.pattern = re.compile("|".join(_SPLIT.join(re.escape(c) for c in a) for a in alternatives))
            self._values = values

    def values(self) -> frozenset[str]:
        return self._values

    def clear(self) -> None:
        with self._lock:
            self._values = frozenset()
            self.pattern = None


def _spellings(value: str) -> set[str]:
    """The value as written, and as it reads inside a JSON string (escaped, ASCII or not)."""
    return {value, json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1]}


_KNOWN = _KnownSecrets()


def remember_secret(value: str) -> None:
    """Mask ``value`` wherever it appears from now on (values under eight characters are ignored)."""
    _KNOWN.add(value)


def forget_secrets() -> None:
    """Drop every remembered value (tests; a long-lived process never needs it)."""
    _KNOWN.clear()


def may_begin_credential(piece: str, *, partial: bool = True) -> bool:
    """Whether ``piece`` (unbroken text, no whitespace) could be the start of a credential still arriving.

    True when ``piece`` is a token family's prefix followed only by that
    family's characters so far (``sk-ant-api03-Hq7``) or, with ``partial``
    (the piece starts at a word boundary), also the beginning of a family
    prefix (``sk-a``) or of a secret known by value.  A stream
    (``agent:token``) holds such a piece back until it is complete or broken,
    so a key cut across two events is still masked whole.
    """
    if not piece:
        return False
    known = _KNOWN.values() if partial else frozenset()
    if piece[0] not in _FAMILY_FIRST and not known:
        return False
    for prefix, shape in _FAMILIES.items():
        if piece.startswith(prefix) and shape.run.fullmatch(piece, len(prefix)):
            return True
        if partial and prefix.startswith(piece):
            return True
    return any(value.startswith(piece) for value in known)


_FAMILY_FIRST = frozenset(prefix[0] for prefix in _FAMILIES)


def mask_text(text: str) -> str:
    """Mask every recognised credential span in ``text``; everything else is kept.

    Recognised: the token families above anywhere in the text (also split
    across a line break), labelled values, auth headers and schemes, cookies,
    URL userinfo, and every value :func:`remember_secret` was told about.
    """
    spans = credential_spans(text)
    return _replace(text, spans) if spans else text


def mask_serialized(text: str) -> str:
    """:func:`mask_text` for a channel that carries serialised run events (stdout, history.db).

    The same rules, except that an ``agent:token`` event's ``"token"`` field
    keeps its text unless the text is token-shaped (see ``_BARE_TOKEN_KEY_RE``).
    """
    spans = credential_spans(text, streamed_token_key=True)
    return _replace(text, spans) if spans else text


def credential_spans(text: str, *, streamed_token_key: bool = False) -> list[Span]:
    """The (start, end) spans :func:`mask_text` would replace, unmerged.

    For code that must cut unmasked text (a preview's head and tail for the
    model) and so must never cut through a credential: a cut inside a span
    would leave a prefix-less tail no recogniser can see.
    """
    spans: list[Span] = []
    if not text:
        return spans
    known = _KNOWN.pattern
    if known is not None:
        spans.extend(m.span() for m in known.finditer(text) if m.end() > m.start())
    low = text.lower()
    if _MAYBE_RE.search(low) or "eyJ" in text:  # the JWT prefix, see _MAYBE_RE
        if len(low) != len(text):  # a few non-ASCII letters lower-case to two characters
            low = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
        for find in _RECOGNISERS:
            found = _labelled(text, low, True) if streamed_token_key and find is _labelled else find(text, low)
            spans.extend(span for span in found if span[1] > span[0])
    return spans


def outside_credentials(text: str, head_end: int, tail_start: int, window: int = 4096) -> tuple[int, int]:
    """Move a head's end and a tail's start out of any credential they would cut.

    The head ``text[:head_end]`` ends before a credential it would cut, the
    tail ``text[tail_start:]`` starts after one; both only shrink.  Only a
    window around each cut is scanned, so a large text costs little.
    """
    for _ in range(4):  # a moved cut may land in the span before it (keys back to back)
        moved = False
        lo = max(0, head_end - window)
        for start, end in credential_spans(text[lo : head_end + window]):
            if lo + start < head_end < lo + end:
                head_end, moved = lo + start, True
        lo = max(0, tail_start - window)
        for start, end in credential_spans(text[lo : tail_start + window]):
            if lo + start < tail_start < lo + end:
                tail_start, moved = lo + end, True
        if not moved:
            break
    return head_end, max(tail_start, head_end)


_SENSITIVE_KEY_RE = re.compile(r"(?i)^" + _LABEL + r"$|^authorization$|^proxy-authorization$|^cookie$")


@lru_cache(maxsize=4096)
def is_sensitive_key(key: str) -> bool:
    return bool(_SENSITIVE_KEY_RE.match(key))


_SCALARS = (int, float, bool)


# Masked structures are for display (events, previews, the permission dialog);
# past this depth a branch is replaced by a marker instead of recursing until
# Python's recursion limit turns a model's odd arguments into a crash.
MAX_MASK_DEPTH = 64
TOO_DEEP = "[nested too deep to show]"


def mask_value(value: Any, _depth: int = 0) -> Any:
    """Mask a JSON-like structure: sensitive keys lose their value, strings are scanned."""
    if isinstance(value, str):
        return mask_text(value)
    if value is None or type(value) in _SCALARS:
        return value  # fast path: skips the slower ABC checks below
    if _depth >= MAX_MASK_DEPTH and isinstance(value, Mapping | list | tuple):
        return TOO_DEEP
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for k, v in value.items():
            key = str(k)
            if is_sensitive_key(key) and v not in (None, "", [], {}):
                out[key] = MASK
            else:
                out[key] = mask_value(v, _depth + 1)
        return out
    if isinstance(value, list | tuple):
        return [mask_value(v, _depth + 1) for v in value]
    return value


def mask_strings(value: Any, _depth: int = 0) -> Any:
    """Mask every string in a JSON-like structure (keys too), keeping its shape and every scalar.

    The outward channels (events, history.db, spill files) use this rather
    than :func:`mask_value`: a field that merely has a secret-looking name
    (an ``agent:token`` event's ``token``, a ``max_token`` count) keeps its
    value, while a credential inside any string, under any key, is masked.
    """
    if isinstance(value, str):
        return mask_text(value)
    if value is None or type(value) in _SCALARS:
        return value
    if _depth >= MAX_MASK_DEPTH and isinstance(value, Mapping | list | tuple):
        return TOO_DEEP
    if isinstance(value, Mapping):
        return {
            mask_text(k) if isinstance(k, str) else k: mask_strings(v, _depth + 1) for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [mask_strings(v, _depth + 1) for v in value]
    return value


def clip(text: str, limit: int) -> str:
    """Clip an already-masked string for display, saying how much was cut."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"… [{len(text) - limit:,} more characters]"
