"""Clipboard actions: prompts offered by "Process what I copied".

Each action is a small YAML file (``resources/clipboard_actions/*.yaml``)
with ``id``, ``title``, ``description``, ``clipboard: true`` and a ``prompt``
containing ``{{clipboard}}``.  Files that are malformed are skipped with a
logged reason rather than breaking the panel.

``input: image`` marks an action for a copied image (a screenshot).  Its
prompt carries no clipboard content at all: the model asks for the image
itself through ``read_clipboard`` (the gated os-class tool, so the user is
asked before a pixel is read) and looks at it with ``read_media``.  Text
actions (``input: text``, the default) get the copied text in the prompt.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

log = logging.getLogger(__name__)
PLACEHOLDER = "{{clipboard}}"
RESOURCES = Path(__file__).resolve().parents[2] / "resources"


def actions_dir() -> Path:
    return RESOURCES / "clipboard_actions"


class _ActionFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]{0,63}$")
    title: str = Field(min_length=1, max_length=80)
    description: str = ""
    clipboard: bool = True
    input: Literal["text", "image"] = "text"
    prompt: str = Field(min_length=1)


@dataclass(frozen=True, slots=True)
class ClipboardAction:
    id: str
    title: str
    description: str
    prompt: str
    input: Literal["text", "image"] = "text"

    @property
    def for_image(self) -> bool:
        return self.input == "image"

    def render(self, text: str) -> str:
        """The prompt with the clipboard text in place of ``{{clipboard}}`` (appended if absent).

        An image action's prompt is sent as written: the image is fetched by the model's tool call.
        """
        if self.for_image:
            return self.prompt
        if PLACEHOLDER in self.prompt:
            return self.prompt.replace(PLACEHOLDER, text)
        return f"{self.prompt.rstrip()}\n\n{text}"


def load_actions(folder: Path | None = None) -> list[ClipboardAction]:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    folder = folder or actions_dir()
    yaml = YAML(typ="safe")
    actions: list[ClipboardAction] = []
    for path in sorted(folder.glob("*.yaml")):
        try:
            data = _ActionFile.model_validate(yaml.load(path.read_text(encoding="utf-8")))
        except (OSError, YAMLError, ValidationError) as exc:
            log.warning("skipping clipboard action %s: %s", path.name, type(exc).__name__)
            continue
        if data.clipboard:
            actions.append(ClipboardAction(data.id, data.title, data.description, data.prompt, data.input))
    return actions


def offered(actions: list[ClipboardAction], *, has_text: bool, has_image: bool) -> list[ClipboardAction]:
    """The actions that fit what was copied: image actions for an image, text actions for text.

    With neither, the text actions stay listed (Run is off) so the panel still shows what it can do.
    """
    if has_image and not has_text:
        return [a for a in actions if a.for_image]
    if has_image:
        return [a for a in actions if a.for_image] + [a for a in actions if not a.for_image]
    return [a for a in actions if not a.for_image]
