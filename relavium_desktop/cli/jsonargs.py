"""JSON option values, inline or as ``@path/to/file.json``, and the one JSON printer.

Every JSON document the CLI prints goes through :func:`dumps_json`, which
never fails on what a value can hold: a lone surrogate (from a ``\\ud800``
escape in ``--args``, or a non-UTF-8 byte in argv, which Python decodes with
``surrogateescape``) is written as its ``\\uXXXX`` escape, so the text is
valid UTF-8 and ``json.loads`` reads the same string back; a non-finite float
(``1e999`` in the arguments) becomes ``null``, as ``JSON.stringify`` does,
because ``Infinity`` is not JSON.
"""

from __future__ import annotations

import codecs
import json
import math
import re
import sys
from pathlib import Path
from typing import Any

from relavium_desktop.cli import EXIT_FAILED, UsageError

_SURROGATE_RE = re.compile("[\ud800-\udfff]")


def load_json_option(name: str, raw: str | None, default: Any = None) -> Any:
    if raw is None:
        return default
    text = raw
    if raw.startswith("@"):
        path = Path(raw[1:])
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"{name}: cannot read {path}: {exc.strerror or exc}") from None
        except UnicodeDecodeError as exc:
            raise UsageError(f"{name}: {path} is not UTF-8 text (byte offset {exc.start})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{name}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except RecursionError:
        raise UsageError(f"{name}: the JSON is nested too deeply") from None
    except ValueError:  # the one non-syntax refusal: an integer past Python's digit limit
        limit = sys.get_int_max_str_digits()
        raise UsageError(f"{name}: a number in the JSON has more than {limit} digits") from None


def load_json_object(name: str, raw: str | None) -> dict[str, Any]:
    value = load_json_option(name, raw, {})
    if not isinstance(value, dict):
        raise UsageError(f"{name}: must be a JSON object")
    return value


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def _escape_surrogate(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def dumps_json(value: Any, *, ascii_only: bool = False) -> str:
    """``value`` as one JSON document whose text any UTF-8 stream can carry."""
    try:
        text = json.dumps(value, ensure_ascii=ascii_only, default=str, allow_nan=False)
    except ValueError:  # a non-finite float somewhere in the value
        text = json.dumps(_finite(value), ensure_ascii=ascii_only, default=str, allow_nan=False)
    # Surrogates appear verbatim only inside string literals; their escape is valid JSON.
    return text if ascii_only else _SURROGATE_RE.sub(_escape_surrogate, text)


def _stdout_is_utf8() -> bool:
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    try:
        return codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        return False


def print_json(value: Any, *, flush: bool = False) -> None:
    """Print ``value`` as one line of JSON (pure ASCII when stdout is not UTF-8)."""
    print(dumps_json(value, ascii_only=not _stdout_is_utf8()), flush=flush)


def action_failed(as_json: bool, where: str, code: str, message: str, extra: dict[str, Any] | None = None) -> int:
    """A failed ``relavium <command> <action>``: the JSON error document (with --json), one line on stderr.

    The maintenance commands (secret, providers, media) fail the same way, so
    scripts parse one shape and a person reads one kind of line.
    """
    if as_json:
        print_json({"ok": False, "error": {"code": code, **(extra or {}), "message": message}})
    print(f"relavium: {where}: {message}", file=sys.stderr)
    return EXIT_FAILED


def print_result(as_json: bool, out: Any, text: str) -> None:
    """An action's result: ``out`` as JSON with --json, else ``text`` for a person."""
    if as_json:
        print_json(out)
    elif text:
        print(text)
