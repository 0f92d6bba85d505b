"""A form generated from a workflow's ``inputs`` declarations.

One field per input: a check box for booleans, a drop-down for ``enum``
validations, a line edit otherwise (numbers are typed as text and coerced
the way the CLI coerces ``--input k=v``).  The engine's admission stays the
one authority on what is valid -- the form only collects values, so a bad
value is refused by the same rule and message headless runs get.  Secret
inputs take a ``secret:NAME`` reference, never the secret itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from relavium_desktop.engine.workflow.inputs import coerce_text_inputs
from relavium_desktop.ui.qt import QCheckBox, QComboBox, QFormLayout, QLabel, QLineEdit, QWidget

if TYPE_CHECKING:
    from relavium_desktop.engine.workflow.models import InputDecl


class InputsForm(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("inputsForm")
        self.form = QFormLayout(self)
        self.form.setContentsMargins(0, 0, 0, 0)
        self.decls: list[InputDecl] = []
        self.fields: dict[str, QWidget] = {}

    def set_inputs(self, decls: list[InputDecl]) -> None:
        while self.form.rowCount():
            self.form.removeRow(0)
        self.decls = list(decls)
        self.fields = {}
        if not decls:
            self.form.addRow(QLabel("This workflow takes no inputs."))
            return
        for decl in decls:
            field = self._field_for(decl)
            field.setObjectName(f"input:{decl.name}")
            if decl.description:
                field.setToolTip(decl.description)
            label = decl.name + ("" if not decl.is_required or decl.default is not None else " *")
            self.form.addRow(label, field)
            self.fields[decl.name] = field

    def _field_for(self, decl: InputDecl) -> QWidget:
        enum = decl.validation.enum if decl.validation is not None else None
        if decl.type == "boolean":
            box = QCheckBox()
            box.setChecked(bool(decl.default))
            return box
        if enum:
            combo = QComboBox()
            for value in enum:
                combo.addItem(str(value), value)
            if decl.default in enum:
                combo.setCurrentIndex(list(enum).index(decl.default))
            return combo
        edit = QLineEdit()
        if isinstance(decl.default, str) and "{{" in decl.default:
            # A template default is rendered by the engine when the field is left empty.
            edit.setPlaceholderText(f"default: {decl.default}")
        elif decl.default is not None:
            edit.setText(str(decl.default))
        if decl.type == "secret":
            edit.setPlaceholderText("secret:NAME (a reference to a stored secret)")
        elif decl.description and not edit.placeholderText():
            edit.setPlaceholderText(decl.description)
        return edit

    def set_value(self, name: str, value: Any) -> None:
        """Fill one field (what a user typing or ticking does)."""
        field = self.fields[name]
        if isinstance(field, QCheckBox):
            field.setChecked(bool(value))
        elif isinstance(field, QComboBox):
            field.setCurrentIndex(max(0, field.findText(str(value))))
        elif isinstance(field, QLineEdit):
            field.setText(str(value))

    def values(self) -> dict[str, Any]:
        """The filled values, typed; empty text fields are left out (defaults then apply).

        Raises the engine's InputError for text that is not of the declared type.
        """
        text: dict[str, str] = {}
        out: dict[str, Any] = {}
        for decl in self.decls:
            field = self.fields[decl.name]
            if isinstance(field, QCheckBox):
                out[decl.name] = field.isChecked()
            elif isinstance(field, QComboBox):
                out[decl.name] = field.currentData()
            elif isinstance(field, QLineEdit) and field.text() != "":
                text[decl.name] = field.text()
        out.update(coerce_text_inputs(self.decls, text))
        return out
