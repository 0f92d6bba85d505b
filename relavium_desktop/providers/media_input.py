"""Which media a provider's model takes as input, and the placeholder when it cannot.

The rule (no provider publishes a per-model flag in its streaming API, and
a wrong "yes" turns into a 400 on the next request):

- ``anthropic``: every Claude 3 and later model takes images and PDF
  documents; the retired ``claude-2`` / ``claude-instant`` models are text only.
- ``gemini``: ``gemini-*`` models take images and PDF (inline data), except
  the text-only ``gemini-1.0-pro`` / ``gemini-pro``; other names (``gemma-*``
  served through the Gemini API) are text only.
- ``openai`` (also every OpenAI-compatible local server): images only, for
  the vision families named below -- OpenAI's GPT-4o/4.1/5 and o-series, and
  the common open vision models a local server serves (LLaVA, Qwen-VL,
  Llama 3.2 Vision, Gemma 3, Pixtral, MiniCPM-V, Moondream, and any name
  containing ``vision`` or ``-vl``).  Anything else is text only: a local
  server serves whatever its owner pulled, and most of that cannot see.
  PDF is not sent: Chat Completions' file parts are not accepted by the
  OpenAI-compatible servers this provider also speaks to.
"""

from __future__ import annotations

import base64
import re

from relavium_desktop.engine.llm.messages import MediaBlob, MediaPart
from relavium_desktop.engine.llm.provider import ChatRequest

IMAGE_AND_PDF = frozenset({"image", "pdf"})
IMAGE_ONLY = frozenset({"image"})
TEXT_ONLY: frozenset[str] = frozenset()

_ANTHROPIC_TEXT_ONLY = re.compile(r"^claude-(2|instant)")
_GEMINI_TEXT_ONLY = re.compile(r"^(gemini-1\.0-pro|gemini-pro$|gemini-pro-\d)")
_OPENAI_VISION = re.compile(
    r"(^|[/:])("
    r"gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-4-turbo|gpt-4-vision|gpt-5|o1(?!-mini)|o3(?!-mini)|o4"
    r"|llava|bakllava|qwen2(\.5)?-?vl|qwen-vl|llama-?3\.2-vision|llama-?4|gemma-?3|pixtral|minicpm-v"
    r"|moondream|granite3\.2-vision|mistral-small3\.[12]"
    r")|vision|-vl\b",
    re.IGNORECASE,
)


def media_input(kind: str, model: str) -> frozenset[str]:
    """The media kinds ``model`` accepts through a provider of ``kind``."""
    name = model.strip().lower()
    if kind == "anthropic":
        return TEXT_ONLY if _ANTHROPIC_TEXT_ONLY.match(name) else IMAGE_AND_PDF
    if kind == "gemini":
        name = name.removeprefix("models/")
        if not name.startswith("gemini-") or _GEMINI_TEXT_ONLY.match(name):
            return TEXT_ONLY
        return IMAGE_AND_PDF
    if kind == "openai":
        return IMAGE_ONLY if _OPENAI_VISION.search(name) else TEXT_ONLY
    return TEXT_ONLY


def _kind_of(mime: str) -> str:
    return "pdf" if mime == "application/pdf" else "image" if mime.startswith("image/") else "other"


def resolved(request: ChatRequest, part: MediaPart, accepts: frozenset[str]) -> MediaBlob | None:
    """The part's bytes when this request carries them and the model takes their kind."""
    blob = request.media.get(part.handle)
    if blob is None or _kind_of(blob.mime_type) not in accepts:
        return None
    return blob


def b64(blob: MediaBlob) -> str:
    return base64.b64encode(blob.data).decode("ascii")


def placeholder(part: MediaPart) -> str:
    """What the model reads where media could not be attached to this request."""
    return (f"[attachment {part.handle} ({part.mime_type}) is not included in this request: "
            "it is unavailable here or this model cannot take it]")
