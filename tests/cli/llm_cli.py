"""Helpers for CLI tests that point ``relavium`` at the scripted LLM server."""

from __future__ import annotations

import json
from pathlib import Path

KEY = "sk-test-CLISECRET0123456789abcdefghijk"


def write_providers(home: Path, base_url: str) -> None:
    """Provider entries for the local server; allow_local is opted in explicitly."""
    entries = {
        "providers": {
            "scripted-openai": {"kind": "openai", "base_url": base_url + "/v1", "api_key": "env:RELAVIUM_TEST_KEY",
                                "allow_local": True},
            "scripted-anthropic": {"kind": "anthropic", "base_url": base_url, "api_key": "env:RELAVIUM_TEST_KEY",
                                   "allow_local": True},
        }
    }
    (home / "providers.yaml").write_text(json.dumps(entries))  # JSON is YAML


def write_agent(path: Path, *, tools: list[str], extra: str = "") -> Path:
    path.write_text(
        "id: helper\n"
        "name: Helper\n"
        "provider: scripted-openai\n"
        "model: gpt-4o-mini\n"
        "system_prompt: You help.\n"
        f"tools: [{', '.join(tools)}]\n" + extra
    )
    return path


def scan_for_secret(home: Path, *texts: str) -> list[str]:
    """Every place under the data dir (history.db, WAL, runs, logs) or in ``texts`` holding the key."""
    hits = [f"text #{i}" for i, t in enumerate(texts) if KEY in t]
    for f in home.rglob("*"):
        if f.is_file() and KEY.encode() in f.read_bytes():
            hits.append(str(f.relative_to(home)))
    return hits
