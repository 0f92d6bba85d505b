"""A server's elicitation form, asked in the terminal one field at a time.

Used by the command line when stdin is a terminal (``relavium chat``,
``relavium tool call``): the server's message, then each field of its
``requestedSchema`` with its title/description.  A default is shown in
brackets and Enter accepts it; an enum is a numbered list (a number or the
value); a boolean is y/n; numbers and strings are checked against the
schema's bounds and asked again when they do not fit.  Typing ``!decline`` or
``!cancel`` at any prompt answers the server that way; end of input cancels.
Prompts go to stderr, so stdout stays the command's own (JSON) output.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from relavium_desktop.host.mcp.hooks import ElicitationAnswer, ElicitationRequest

Ask = Callable[[str], str | None]  # shows a prompt, returns the line typed (None at end of input)


class _Stop(Exception):
    def __init__(self, action: str) -> None:
        self.action = action


def _label(name: str, spec: dict[str, Any], required: bool) -> str:
    title = spec.get("title") or name
    text = f"{title}" + ("" if required else " (optional)")
    if spec.get("description"):
        text += f" - {spec['description']}"
    return text


def _enum(spec: dict[str, Any]) -> tuple[list[Any], list[str]] | None:
    if isinstance(spec.get("enum"), list):
        values = list(spec["enum"])
        names = spec.get("enumNames") if isinstance(spec.get("enumNames"), list) else None
        return values, [str(n) for n in names] if names and len(names) == len(values) else [
            str(v) for v in values
        ]
    for key in ("oneOf", "anyOf"):
        options = spec.get(key)
        if (
            isinstance(options, list)
            and options
            and all(isinstance(o, dict) and "const" in o for o in options)
        ):
            return [o["const"] for o in options], [str(o.get("title", o["const"])) for o in options]
    return None


def _check_number(text: str, spec: dict[str, Any], integer: bool) -> tuple[Any, str | None]:
    try:
        value: Any = int(text) if integer else float(text)
    except ValueError:
        return None, "a whole number, please" if integer else "a number, please"
    if "minimum" in spec and value < spec["minimum"]:
        return None, f"at least {spec['minimum']}"
    if "maximum" in spec and value > spec["maximum"]:
        return None, f"at most {spec['maximum']}"
    return value, None


def _check_string(text: str, spec: dict[str, Any]) -> tuple[Any, str | None]:
    if "minLength" in spec and len(text) < spec["minLength"]:
        return None, f"at least {spec['minLength']} characters"
    if "maxLength" in spec and len(text) > spec["maxLength"]:
        return None, f"at most {spec['maxLength']} characters"
    if spec.get("format") == "email" and not re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", text):
        return None, "an email address, please"
    if isinstance(spec.get("pattern"), str):
        try:
            if not re.search(spec["pattern"], text):
                return None, "that does not have the expected form"
        except re.error:
            pass
    return text, None


def _ask_field(name: str, spec: dict[str, Any], required: bool, ask: Ask, say: Callable[[str], None]) -> Any:
    """The value for one field; ``_NOTHING`` when an optional field is left empty."""
    kind = spec.get("type")
    default = spec.get("default")
    choices = _enum(spec)
    say(_label(name, spec, required))
    if choices is not None:
        values, names = choices
        for i, shown in enumerate(names, 1):
            say(f"  {i}. {shown}")
    while True:
        hint = ""
        if kind == "boolean":
            hint = " [Y/n]" if default is True else " [y/N]" if default is False else " [y/n]"
        elif default is not None:
            hint = f" [{default}]"
        line = ask(f"> {hint.strip()} " if hint else "> ")
        if line is None:
            raise _Stop("cancel")
        text = line.strip()
        if text in ("!decline", "!cancel"):
            raise _Stop(text[1:])
        if not text:
            if default is not None:
                return default
            if not required:
                return _NOTHING
            say("  this one is required")
            continue
        if choices is not None:
            values, names = choices
            if text.isdigit() and 1 <= int(text) <= len(values):
                return values[int(text) - 1]
            if text in [str(v) for v in values]:
                return values[[str(v) for v in values].index(text)]
            say(f"  pick 1-{len(values)}")
            continue
        if kind == "boolean":
            if text.lower() in ("y", "yes", "true"):
                return True
            if text.lower() in ("n", "no", "false"):
                return False
            say("  y or n, please")
            continue
        if kind in ("integer", "number"):
            value, problem = _check_number(text, spec, kind == "integer")
        else:
            value, problem = _check_string(text, spec)
        if problem is None:
            return value
        say(f"  {problem}")


_NOTHING = object()


def ask_form(request: ElicitationRequest, ask: Ask, say: Callable[[str], None]) -> ElicitationAnswer:
    """Ask ``request``'s fields; accept with the answers, or decline/cancel as the person says."""
    schema = request.requested_schema if isinstance(request.requested_schema, dict) else {}
    found = schema.get("properties")
    properties: dict[str, Any] = found if isinstance(found, dict) else {}
    required = set(schema.get("required") or [])
    say(f"MCP server {request.server} asks: {request.message}")
    say("(Enter accepts the value in brackets; !decline or !cancel to refuse)")
    content: dict[str, Any] = {}
    try:
        for name, spec in properties.items():
            value = _ask_field(name, spec if isinstance(spec, dict) else {}, name in required, ask, say)
            if value is not _NOTHING:
                content[name] = value
    except _Stop as stop:
        return ElicitationAnswer("decline" if stop.action == "decline" else "cancel")
    return ElicitationAnswer("accept", content)
