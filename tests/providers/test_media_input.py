"""Which models are sent media, and what a request says where media cannot go."""

from __future__ import annotations

import base64
import json

import pytest

from relavium_desktop.engine.llm.messages import MediaBlob, MediaPart, Message, NoticePart
from relavium_desktop.engine.llm.provider import ChatRequest
from relavium_desktop.providers.anthropic import AnthropicProvider
from relavium_desktop.providers.config import basic_validate_base_url
from relavium_desktop.providers.gemini import GeminiProvider
from relavium_desktop.providers.media_input import media_input
from relavium_desktop.providers.openai_compat import OpenAICompatProvider

HANDLE = "media://sha256-" + "ab" * 32
BLOB = MediaBlob(HANDLE, "image/png", b"\x89PNG\r\n\x1a\n-the-image-bytes")


@pytest.mark.parametrize(("kind", "model", "accepts"), [
    ("anthropic", "claude-sonnet-4-5", {"image", "pdf"}),
    ("anthropic", "claude-3-haiku-20240307", {"image", "pdf"}),
    ("anthropic", "claude-2.1", set()),
    ("gemini", "gemini-2.5-flash", {"image", "pdf"}),
    ("gemini", "models/gemini-1.5-pro", {"image", "pdf"}),
    ("gemini", "gemini-1.0-pro", set()),
    ("gemini", "gemma-2-9b-it", set()),
    ("openai", "gpt-4o-mini", {"image"}),
    ("openai", "gpt-4.1", {"image"}),
    ("openai", "o3-mini", set()),
    ("openai", "gpt-3.5-turbo", set()),
    ("openai", "llava:13b", {"image"}),
    ("openai", "qwen2.5vl:7b", {"image"}),
    ("openai", "llama3.2-vision", {"image"}),
    ("openai", "llama3.1:8b", set()),
    ("openai", "mistral:7b", set()),
])
def test_media_input_rule(kind: str, model: str, accepts: set[str]) -> None:
    assert media_input(kind, model) == frozenset(accepts)


def _providers() -> list[object]:
    kw = {"base_url": "https://example.invalid", "api_key": None, "allow_local": False,
          "validate_base_url": basic_validate_base_url}
    return [AnthropicProvider("a", **kw), OpenAICompatProvider("o", **kw), GeminiProvider("g", **kw)]


@pytest.mark.parametrize("model", ["claude-2.1|gpt-3.5-turbo|gemini-1.0-pro", "claude-sonnet-4-5|gpt-4o|gemini-2.5-pro"])
def test_unresolved_or_unacceptable_media_is_a_placeholder_never_bytes(model: str) -> None:
    message = Message("user", (NoticePart("attached below"), MediaPart(HANDLE, "image/png")))
    for provider, name in zip(_providers(), model.split("|"), strict=True):
        # Text-only model with the bytes resolved, or a vision model without them: a placeholder either way.
        media = {HANDLE: BLOB} if name.startswith(("claude-2", "gpt-3", "gemini-1.0")) else {}
        _, _, body = provider.build(ChatRequest(model=name, messages=[message], media=media), None)  # type: ignore[attr-defined]
        wire = json.dumps(body)
        assert "iVBORw0KGgo" not in wire  # the base64 of the PNG signature
        assert f"attachment {HANDLE} (image/png) is not included" in wire
        assert "attached below" in wire
    # The same request to a vision model with the bytes resolved does carry them (the check above can fail).
    for provider, name in zip(_providers(), ("claude-sonnet-4-5", "gpt-4o", "gemini-2.5-pro"), strict=True):
        _, _, body = provider.build(ChatRequest(model=name, messages=[message], media={HANDLE: BLOB}), None)  # type: ignore[attr-defined]
        assert base64.b64encode(BLOB.data).decode() in json.dumps(body)
