"""An MCP server's form request (elicitation), as a dialog built from the schema it sent.

MCP elicitation schemas are flat: an object whose properties are strings,
numbers, integers, booleans or enums (``enum`` of strings, optionally with
``enumNames``, or ``oneOf`` of ``{const, title}``).  Each becomes one field
with its title, a mark when required and its description underneath.  The
answer is typed as the schema says -- ``3`` for an integer, not ``"3"`` --
because the server validates it against that same schema.

Three ways out, as the protocol has them: Accept (the content), Decline
(the user said no) and Cancel (dismissed: Esc or the window's close button).
Nothing is sent on Enter alone, so a stray key press never submits a form.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from relavium_desktop.engine.display_text import show_line
from relavium_desktop.ui.qt import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QKeyEvent,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    Qt,
    QVBoxLayout,
    QWidget,
    Signal,
)
from relavium_desktop.ui.theme import set_surface, set_tone, set_variant
from relavium_desktop.ui.theme.tokens import PAD_MAIN, SPACE_4
from relavium_desktop.ui.untrusted import set_shown

if TYPE_CHECKING:
    from relavium_desktop.application.mcp_requests import ElicitationAnswer, ElicitationRequest

MESSAGE_CHARS = 2_000


@dataclass
class FormField:
    """One schema property and the widget that edits it."""

    name: str
    kind: str  # "string" | "number" | "integer" | "boolean" | "enum"
    required: bool
    schema: dict[str, Any]
    widget: QWidget
    choices: tuple[Any, ...] = ()

    def value(self) -> tuple[bool, Any, str | None]:
        """``(present, value, error)``: absent optional fields are left out of the answer."""
        label = str(self.schema.get("title") or self.name)
        if isinstance(self.widget, QCheckBox):
            return True, self.widget.isChecked(), None
        if isinstance(self.widget, QComboBox):
            index = self.widget.currentIndex()
            offset = 0 if self.required else 1  # optional enums start with "(none)"
            if index < offset:
                return (False, None, f"{label}: choose one") if self.required else (False, None, None)
            return True, self.choices[index - offset], None
        assert isinstance(self.widget, QLineEdit)
        text = self.widget.text().strip() if self.kind != "string" else self.widget.text()
        if text == "":
            return (False, None, f"{label}: required") if self.required else (False, None, None)
        if self.kind == "string":
            low, high = self.schema.get("minLength"), self.schema.get("maxLength")
            if isinstance(low, int) and len(text) < low:
                return False, None, f"{label}: at least {low} characters"
            if isinstance(high, int) and len(text) > high:
                return False, None, f"{label}: at most {high} characters"
            return True, text, None
        number: float | int
        try:
            number = int(text) if self.kind == "integer" else float(text)
        except ValueError:
            return False, None, f"{label}: {'a whole number' if self.kind == 'integer' else 'a number'} is needed"
        if isinstance(number, float) and not math.isfinite(number):
            return False, None, f"{label}: a finite number is needed"
        low, high = self.schema.get("minimum"), self.schema.get("maximum")
        if isinstance(low, int | float) and number < low:
            return False, None, f"{label}: at least {low}"
        if isinstance(high, int | float) and number > high:
            return False, None, f"{label}: at most {high}"
        return True, number, None


def _enum_choices(schema: dict[str, Any]) -> tuple[tuple[Any, ...], tuple[str, ...]] | None:
    """Values and their labels for an enum-shaped property; None when it is not one."""
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        values = tuple(schema["enum"])
        names = schema.get("enumNames")
        labels = tuple(str(n) for n in names) if isinstance(names, list) and len(names) == len(values) else None
        return values, labels or tuple(str(v) for v in values)
    options = schema.get("oneOf") or schema.get("anyOf")
    if isinstance(options, list) and options and all(isinstance(o, dict) and "const" in o for o in options):
        return tuple(o["const"] for o in options), tuple(str(o.get("title") or o["const"]) for o in options)
    return None


class ElicitationDialog(QDialog):
    answered = Signal(object)  # ElicitationAnswer

    def __init__(self, request: ElicitationRequest, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.request = request
        self.answer: ElicitationAnswer | None = None
        self.fields: dict[str, FormField] = {}
        self.setObjectName("elicitationDialog")
        self.setWindowTitle(f"{request.server} asks for information")
        self.resize(560, 460)

        # The server's question is the sheet's title; who asks is the muted line under it.
        heading = QLabel(f"Asked by the MCP server “{show_line(request.server)}”")
        heading.setWordWrap(True)
        set_tone(heading, "muted")
        message = QLabel()
        message.setObjectName("elicitationMessage")
        message.setWordWrap(True)
        message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # The server's text goes through the display rule: controls and bidi characters as markers.
        set_shown(message, request.message[:MESSAGE_CHARS] or "(no message)", mode="block")
        set_variant(message, "title")
        set_tone(message, "heading")

        form_host = QWidget()
        form = QFormLayout(form_host)
        schema = request.requested_schema if isinstance(request.requested_schema, dict) else {}
        properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        required = set(schema.get("required") or ()) if isinstance(schema.get("required"), list) else set()
        for name, prop in (properties or {}).items():
            if isinstance(prop, dict):
                self._add_field(form, str(name), prop, name in required)
        if not self.fields:
            form.addRow(QLabel("The server asks for no fields: Accept or Decline."))
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(form_host)

        note = QLabel("What you enter goes to this server. Never type a password or key here.")
        note.setWordWrap(True)
        set_tone(note, "muted")
        self.status = QLabel()
        self.status.setObjectName("elicitationStatus")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setVisible(False)
        set_surface(self.status, "banner-danger")

        self.accept_button = QPushButton("Accept")
        self.accept_button.setObjectName("elicitationAccept")
        self.decline_button = QPushButton("Decline")
        self.cancel_button = QPushButton("Cancel")
        for b in (self.accept_button, self.decline_button, self.cancel_button):
            b.setAutoDefault(False)
            b.setDefault(False)
        set_variant(self.accept_button, "primary")  # the one primary button of the sheet
        set_variant(self.decline_button, "secondary")
        set_variant(self.cancel_button, "ghost")
        self.accept_button.clicked.connect(self.submit)
        self.decline_button.clicked.connect(lambda: self._finish("decline", None))
        self.cancel_button.clicked.connect(self.reject)
        buttons = QHBoxLayout()
        buttons.addWidget(self.cancel_button)
        buttons.addStretch(1)
        buttons.addWidget(self.decline_button)
        buttons.addWidget(self.accept_button)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(PAD_MAIN, PAD_MAIN, PAD_MAIN, PAD_MAIN)
        layout.setSpacing(SPACE_4)
        set_surface(self, "sheet")
        layout.addWidget(message)
        layout.addWidget(heading)
        if any(f.required for f in self.fields.values()):
            marks = QLabel("Fields marked * are required.")
            set_tone(marks, "muted")
            layout.addWidget(marks)
        layout.addWidget(scroll, 1)
        layout.addWidget(note)
        layout.addWidget(self.status)
        layout.addLayout(buttons)

    def _add_field(self, form: QFormLayout, name: str, prop: dict[str, Any], required: bool) -> None:
        kind = str(prop.get("type") or "string")
        default = prop.get("default")
        enum = _enum_choices(prop)
        widget: QWidget
        choices: tuple[Any, ...] = ()
        if enum is not None:
            choices, labels = enum
            combo = QComboBox()
            if not required:
                combo.addItem("(none)")
            combo.addItems(list(labels))
            if default in choices:
                combo.setCurrentIndex(choices.index(default) + (0 if required else 1))
            widget, kind = combo, "enum"
        elif kind == "boolean":
            box = QCheckBox()
            box.setChecked(bool(default))
            widget = box
        else:
            edit = QLineEdit("" if default is None else str(default))
            if kind == "integer":
                edit.setPlaceholderText("a whole number")
            elif kind == "number":
                edit.setPlaceholderText("a number")
            else:
                kind = "string"
                fmt = prop.get("format")
                if isinstance(fmt, str):
                    edit.setPlaceholderText({"email": "an email address", "uri": "a web address (URI)",
                                             "date": "a date, YYYY-MM-DD",
                                             "date-time": "a date and time"}.get(fmt, fmt))
            widget = edit
        widget.setObjectName(f"field_{name}")
        title = str(prop.get("title") or name)
        label = QLabel(f"{title} *" if required else title)
        description = prop.get("description")
        cell = QWidget()
        column = QVBoxLayout(cell)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(widget)
        if isinstance(description, str) and description.strip():
            hint = QLabel(description.strip()[:500])
            hint.setWordWrap(True)
            hint.setTextFormat(Qt.TextFormat.PlainText)
            set_tone(hint, "muted")
            column.addWidget(hint)
            widget.setToolTip(description.strip()[:500])
        form.addRow(label, cell)
        self.fields[name] = FormField(name, kind, required, prop, widget, choices)

    # -- answers -----------------------------------------------------------------------

    def content(self) -> tuple[dict[str, Any], list[str]]:
        """The typed answer and the problems that keep it from being sent."""
        content: dict[str, Any] = {}
        problems: list[str] = []
        for name, form_field in self.fields.items():
            present, value, error = form_field.value()
            if error:
                problems.append(error)
            elif present:
                content[name] = value
        return content, problems

    def submit(self) -> None:
        content, problems = self.content()
        if problems:
            self.status.setText("; ".join(problems))
            self.status.setVisible(True)
            return
        self._finish("accept", content)

    def _finish(self, action: str, content: dict[str, Any] | None) -> None:
        from relavium_desktop.application.mcp_requests import ElicitationAnswer

        if self.answer is not None:
            return
        self.answer = ElicitationAnswer(action, content)  # type: ignore[arg-type]
        self.answered.emit(self.answer)
        super().done(QDialog.DialogCode.Accepted if action == "accept" else QDialog.DialogCode.Rejected)

    def reject(self) -> None:
        """Esc, Cancel and the window's close button: dismissed without an answer."""
        self._finish("cancel", None)

    def done(self, code: int) -> None:
        if self.answer is None:  # closed some other way (the parent went away)
            self._finish("cancel", None)
            return
        super().done(code)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            event.accept()  # never submit on Enter
            return
        super().keyPressEvent(event)
