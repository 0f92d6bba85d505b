"""JSON option values, inline or as ``@path/to/file.json``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from relavium_desktop.cli import UsageError


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
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{name}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None


def load_json_object(name: str, raw: str | None) -> dict[str, Any]:
    value = load_json_option(name, raw, {})
    if not isinstance(value, dict):
        raise UsageError(f"{name}: must be a JSON object")
    return value


def print_json(value: Any) -> None:
    print(json.dumps(value, ensure_ascii=False, default=str))
