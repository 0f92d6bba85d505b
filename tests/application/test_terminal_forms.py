"""The terminal form: defaults, enums as numbered choices, booleans, and validation per schema.

Pure: the person is a scripted list of typed lines (no terminal needed to judge the form's rules).
"""

from __future__ import annotations

from relavium_desktop.application.terminal_forms import ask_form
from relavium_desktop.host.mcp.hooks import ElicitationRequest

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "User name", "default": "John Doe"},
        "age": {"type": "integer", "minimum": 0, "maximum": 150, "default": 30},
        "score": {"type": "number", "default": 95.5},
        "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
        "verified": {"type": "boolean", "default": True},
        "email": {"type": "string", "format": "email"},
    },
    "required": ["name"],
}


def _run(lines: list[str | None]) -> tuple[object, list[str]]:
    typed = iter(lines)
    shown: list[str] = []

    def ask(prompt: str) -> str | None:
        shown.append(prompt)
        return next(typed)

    answer = ask_form(ElicitationRequest("docs", "Who are you?", SCHEMA), ask, shown.append)
    return answer, shown


def test_enter_accepts_every_default_and_an_optional_field_left_empty_is_omitted() -> None:
    answer, shown = _run(["", "", "", "", "", ""])
    assert answer.action == "accept"  # type: ignore[attr-defined]
    assert answer.content == {  # type: ignore[attr-defined]
        "name": "John Doe", "age": 30, "score": 95.5, "status": "active", "verified": True,
    }
    assert "  2. inactive" in shown  # enums are numbered choices
    assert "> [John Doe] " in shown and "> [Y/n] " in shown


def test_answers_are_checked_against_the_schema_and_asked_again() -> None:
    answer, shown = _run(["Ada", "200", "x", "41", "7.5", "9", "2", "maybe", "n", "not-an-email", "ada@example.test"])
    assert answer.content == {  # type: ignore[attr-defined]
        "name": "Ada", "age": 41, "score": 7.5, "status": "inactive", "verified": False, "email": "ada@example.test",
    }
    assert "  at most 150" in shown
    assert "  a whole number, please" in shown
    assert "  pick 1-3" in shown
    assert "  y or n, please" in shown
    assert "  an email address, please" in shown


def test_cancel_and_end_of_input_cancel_the_form() -> None:
    assert _run(["!cancel"])[0].action == "cancel"  # type: ignore[attr-defined]
    assert _run([None])[0].action == "cancel"  # type: ignore[attr-defined]
    assert _run(["Ada", "!decline"])[0].action == "decline"  # type: ignore[attr-defined]
