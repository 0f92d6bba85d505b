"""Finite credential masking for diagnostics: previews, summaries, events.

This is conservative pattern masking, not a proof that nothing sensitive is
left: it recognises labelled values, auth schemes, URL userinfo and known
token families, and masks each complete span *before* any clipping so a cut
can never expose a token's tail.  A token broken by LF/TAB keeps its
continuation masked; ordinary spaces and punctuation end it, so the prose
around a credential survives.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

MASK = "***"

# Token body alphabet shared by the families; LF/TAB followed by more of it
# continues the same credential (a key pasted across a wrapped line).
_CONT = r"(?:[\n\t]+[A-Za-z0-9_\-]+)*"

# (prefix, body alphabet, minimum body length).  The body may be broken by
# LF/TAB runs; the minimum counts body characters only, so a key wrapped
# early still matches as one credential.
_TOKEN_FAMILIES: list[tuple[str, str, int]] = [
    (r"sk-ant-", r"A-Za-z0-9_\-", 8),
    (r"sk-(?:proj-|svcacct-|admin-)?", r"A-Za-z0-9_\-", 16),
    (r"(?:ghp|gho|ghu|ghs|ghr)_", r"A-Za-z0-9", 20),
    (r"github_pat_", r"A-Za-z0-9_", 20),
    (r"xox[bpars]-", r"A-Za-z0-9\-", 8),
    (r"(?:AKIA|ASIA)", r"0-9A-Z", 16),
    (r"AIza", r"0-9A-Za-z_\-", 30),
    (r"glpat-", r"A-Za-z0-9_\-", 16),
]


def _family_re(prefix: str, alphabet: str) -> str:
    body = rf"[{alphabet}]+(?:[\n\t]+[{alphabet}]+)*"
    return rf"(?P<p>{prefix})(?P<b>{body})"


_FAMILY_RES = [
    (re.compile(r"(?<![A-Za-z0-9_\-])" + _family_re(prefix, alpha) + _CONT), minimum)
    for prefix, alpha, minimum in _TOKEN_FAMILIES
]


def _mask_tokens(text: str) -> str:
    for pattern, minimum in _FAMILY_RES:

        def repl(m: re.Match[str], minimum: int = minimum) -> str:
            body = m.group("b").replace("\n", "").replace("\t", "")
            return MASK if len(body) >= minimum else m.group(0)

        text = pattern.sub(repl, text)
    return text


# Authorization header value up to the end of the line.
_AUTH_HEADER_RE = re.compile(
    r"(?i)\b((?:proxy-)?authorization\s*[:=]\s*)(\"[^\"\n]*\"|'[^'\n]*'|[^\n,;}]+)"
)
# Auth schemes outside a header: "Bearer <tok>", "Basic <b64>", "token <tok>".
_SCHEME_RE = re.compile(r"(?i)\b(bearer|basic|token)(\s+)([A-Za-z0-9._~+/=\-]{8,}" + _CONT + r")")

# URL userinfo: scheme://user:pass@host or scheme://token@host.
_USERINFO_RE = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)([^/\s@?#]+)@")

_LABEL = (
    r"(?:[A-Za-z0-9]*[_\-.]?)?"
    r"(?:api[_\-.]?key|apikey|secret[_\-.]?key|secret|client[_\-.]?secret|password|passwd|"
    r"passphrase|pwd|access[_\-.]?token|refresh[_\-.]?token|auth[_\-.]?token|id[_\-.]?token|"
    r"session[_\-.]?token|token|private[_\-.]?key|credentials?|x-api-key|api[_\-.]?token)"
)
# "password": "…"  /  'api_key': '…'  (JSON / dict reprs)
_QUOTED_LABEL_RE = re.compile(
    r"(?i)([\"']" + _LABEL + r"[\"']\s*:\s*)(\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')"
)
# api_key=…  /  PASSWORD: …  /  --password=…  (up to whitespace or a separator)
_BARE_LABEL_RE = re.compile(
    r"(?i)(?<![A-Za-z0-9])(" + _LABEL + r")(\s*[:=]\s*)(\"[^\"\n]*\"|'[^'\n]*'|[^\s,;&\"'}\]]+"
    + _CONT + r")"
)

_SENSITIVE_KEY_RE = re.compile(r"(?i)^" + _LABEL + r"$|^authorization$|^proxy-authorization$|^cookie$")


# One cheap scan that every recognised shape must hit; text without any of
# these fragments cannot contain a supported credential, so the dozen
# pattern substitutions are skipped (this keeps dispatch overhead low).
# Matched against the lower-cased text (a case-insensitive alternation is
# several times slower).
_MAYBE_RE = re.compile(
    r"sk-|gh[pousr]_|github_pat_|xox[bpars]-|akia|asia|aiza|glpat-|@|authoriz|bearer|basic|token|"
    r"key|secret|passw|pwd|credential|cookie"
)


def mask_text(text: str) -> str:
    """Mask every recognised credential span in ``text``."""
    if not text or not _MAYBE_RE.search(text.lower()):
        return text
    text = _USERINFO_RE.sub(lambda m: f"{m.group(1)}{MASK}@", text)
    text = _AUTH_HEADER_RE.sub(lambda m: f"{m.group(1)}{MASK}", text)
    text = _QUOTED_LABEL_RE.sub(lambda m: f'{m.group(1)}"{MASK}"', text)
    text = _BARE_LABEL_RE.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)
    text = _SCHEME_RE.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)
    return _mask_tokens(text)


@lru_cache(maxsize=4096)
def is_sensitive_key(key: str) -> bool:
    return bool(_SENSITIVE_KEY_RE.match(key))


_SCALARS = (int, float, bool)


def mask_value(value: Any) -> Any:
    """Mask a JSON-like structure: sensitive keys lose their value, strings are scanned."""
    if isinstance(value, str):
        return mask_text(value)
    if value is None or type(value) in _SCALARS:
        return value  # fast path: skips the slower ABC checks below
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for k, v in value.items():
            key = str(k)
            if is_sensitive_key(key) and v not in (None, "", [], {}):
                out[key] = MASK
            else:
                out[key] = mask_value(v)
        return out
    if isinstance(value, list | tuple):
        return [mask_value(v) for v in value]
    return value


def clip(text: str, limit: int) -> str:
    """Clip an already-masked string for display, saying how much was cut."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"… [{len(text) - limit:,} more characters]"
