"""The run dialog's input form and a template default: left empty, so the engine renders it.

Pre-filling the field with ``Notes on {{ inputs.topic }}`` would send that
text as the value; the form shows it as the placeholder instead, and an
untouched field leaves the input out so the default applies.
"""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from relavium_desktop.engine.workflow.inputs import admit_inputs
from relavium_desktop.engine.workflow.models import InputDecl
from relavium_desktop.ui.qt import QLineEdit
from relavium_desktop.ui.workflows.inputs_form import InputsForm


def test_a_template_default_is_a_placeholder_and_renders_when_left_empty(qtbot: QtBot) -> None:
    decls = [InputDecl(name="topic"), InputDecl(name="title", default="Notes on {{ inputs.topic }}"),
             InputDecl(name="tone", default="plain")]
    form = InputsForm()
    qtbot.addWidget(form)
    form.set_inputs(decls)
    title = form.fields["title"]
    assert isinstance(title, QLineEdit)
    assert title.text() == "" and title.placeholderText() == "default: Notes on {{ inputs.topic }}"
    tone = form.fields["tone"]
    assert isinstance(tone, QLineEdit) and tone.text() == "plain"  # a plain default is still pre-filled

    form.set_value("topic", "tides")
    assert admit_inputs(decls, form.values()) == {"topic": "tides", "title": "Notes on tides", "tone": "plain"}
