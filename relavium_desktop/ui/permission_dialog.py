"""The permission dialog: the desktop host's answer to an approval request.

It shows only what the engine put in the (already masked) request -- tool,
action class, target preview, masked arguments -- plus, for ``write_file``,
a masked unified diff the controller prepared.  The line a user must read
comes first and large ("Write src/app.py", "Run npm test"); the diff is
coloured by line from the theme, and long arguments scroll in their own box.  Everything the model
controls is shown by the one display rule (``engine/display_text.py``): control, bidi and invisible
characters appear as styled markers, the headline is elided in the middle so the end of a path (its
extension) always shows, the target's kind is named ("a shell script", "outside the project"), and a
name that was marked says so -- the approval itself is of the raw target.  It never accepts by itself:
no button is a default button, Enter/Return are swallowed, and closing it
any other way (Esc, the window's close button) is a denial.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from relavium_desktop.engine.display_text import (
    MARKERS_NOTICE,
    Shown,
    elide_middle,
    kinds_sentence,
    show,
    show_line,
    show_value,
    target_kinds,
)
from relavium_desktop.engine.tools.masking import mask_text, mask_value
from relavium_desktop.engine.tools.tooldef import ApprovalDecision, ApprovalRequest
from relavium_desktop.ui.qt import (
    QCloseEvent,
    QDialog,
    QFontDatabase,
    QFormLayout,
    QHBoxLayout,
    QKeyEvent,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    Qt,
    QTextOption,
    QVBoxLayout,
    QWidget,
    Signal,
)
from relavium_desktop.ui.readable import readable
from relavium_desktop.ui.theme import set_surface, set_tone
from relavium_desktop.ui.theme.diff import colour_diff
from relavium_desktop.ui.theme.icons import icon
from relavium_desktop.ui.theme.palette import LIGHT, Palette
from relavium_desktop.ui.untrusted import paint_markers, set_shown

if TYPE_CHECKING:
    from relavium_desktop.ui.theme import Theme

ARGS_PREVIEW_CHARS = 8_000
ACTION_WORDS = {
    "fs_write": "write a file",
    "process": "run a program",
    "egress": "connect to the network",
    "os": "use the desktop (clipboard, notifications)",
    "read": "read",
}
# The headline's verb per action class (a write by another tool than write_file "changes").
HEADLINE_VERBS = {"fs_write": "Write", "process": "Run", "egress": "Connect to", "os": "Use", "read": "Read"}
ACTION_ICONS = {"fs_write": "file", "process": "terminal", "egress": "globe", "os": "clipboard", "read": "file"}
HEADLINE_CHARS = 160
PATH_CLASSES = ("fs_write", "read")  # targets that are paths: their kind is named


def headline_shown(request: ApprovalRequest) -> Shown:
    """The one line that says what will happen, as shown: "Write src/app.py", "Run npm test".

    The target is masked, then shown by the display rule and elided in the
    middle, so a long path keeps its last segment and extension.
    """
    action = str(request.action_class)
    target = mask_text(request.target).strip(" ")
    if not target:
        return show(f"{ACTION_WORDS.get(action, 'act').capitalize()} ({request.tool_id})")
    verb = HEADLINE_VERBS.get(action, "Use")
    if action == "fs_write" and request.tool_id != "write_file":
        verb = "Change"
    elif action == "egress" and target.startswith(("http://", "https://")):
        verb = "Fetch"
    shown = elide_middle(show(target), HEADLINE_CHARS)
    return Shown(((f"{verb} ", False), *shown.parts), shown.markers, shown.warnings)


def headline(request: ApprovalRequest) -> str:
    """The headline as plain text (markers in their brackets)."""
    return headline_shown(request).text


def target_notes(request: ApprovalRequest, *, outside: bool = False) -> list[str]:
    """The lines under the target: its kind, a notice when it was marked, mixed-script warnings."""
    target = mask_text(request.target)
    shown = show(target)
    notes = []
    if str(request.action_class) in PATH_CLASSES and target:
        sentence = kinds_sentence(target_kinds(target, outside=outside))
        if sentence:
            notes.append(sentence)
    if shown.changed:
        notes.append(MARKERS_NOTICE)
    notes.extend(f"Look-alike letters: {w}." for w in shown.warnings)
    return notes


class PermissionDialog(QDialog):
    decided = Signal(object)  # ApprovalDecision

    def __init__(
        self,
        request: ApprovalRequest,
        *,
        project: str,
        diff: str | None,
        grant_label: str | None,
        protected: bool,
        parent: QWidget | None = None,
        theme: Theme | None = None,
        outside: bool = False,
    ) -> None:
        super().__init__(parent)
        self._theme = theme
        self.request = request
        self.decision: ApprovalDecision | None = None
        self.setObjectName("permissionDialog")
        self.setWindowTitle(f"Allow {show_line(request.tool_id)}?")
        self.resize(640, 560 if diff is not None else 420)

        self.action_icon = QLabel()
        self.headline = QLabel()
        self.headline.setObjectName("permissionHeadline")
        self.headline.setWordWrap(True)
        self.headline.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        set_tone(self.headline, "title")
        top = QHBoxLayout()
        top.addWidget(self.action_icon, 0, Qt.AlignmentFlag.AlignTop)
        top.addWidget(self.headline, 1)
        heading = QLabel(f"An agent wants to {ACTION_WORDS.get(str(request.action_class), 'act')}.")
        heading.setWordWrap(True)
        set_tone(heading, "muted")

        form = QFormLayout()
        self.tool_label = QLabel()
        set_shown(self.tool_label, request.tool_id)
        self.class_label = QLabel(str(request.action_class))
        self.target_label = QLabel()
        self.target_label.setWordWrap(True)
        self.target_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form.addRow("Tool:", self.tool_label)
        form.addRow("Action:", self.class_label)
        form.addRow("Target:", self.target_label)
        if project:
            form.addRow("Project:", QLabel(project))
        # What kind of target this is, and whether its name was marked or mixes scripts.
        self.target_notes = QLabel("\n".join(target_notes(request, outside=outside)))
        self.target_notes.setObjectName("targetNotes")
        self.target_notes.setWordWrap(True)
        self.target_notes.setTextFormat(Qt.TextFormat.PlainText)
        set_surface(self.target_notes, "banner-warning")
        self.target_notes.setVisible(bool(self.target_notes.text()))

        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.args_view = QPlainTextEdit()
        self.args_view.setObjectName("argsView")
        self.args_view.setReadOnly(True)
        self.args_view.setFont(mono)
        # A long line (a URL, a one-line body) wraps anywhere and scrolls down, never off the side.
        self.args_view.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        set_surface(self.args_view, "code")
        # The engine already masked these; masking again costs nothing and keeps
        # the dialog safe even for a hook caller that forgot.  Read as "key: value"
        # with multi-line text as a block, not as JSON with its newlines escaped.
        # Every string is shown by the display rule before the layout splits it into lines.
        self.args_shown = show_value(mask_value(request.masked_args), "block", readable)
        if len(self.args_shown.text) > ARGS_PREVIEW_CHARS:
            self.args_shown = elide_end(self.args_shown, ARGS_PREVIEW_CHARS)
        self.args_view.setPlainText(self.args_shown.text)

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(heading)
        if protected:
            warn = QLabel("This is a protected path: it always asks, and cannot be allowed for longer.")
            warn.setWordWrap(True)
            warn.setObjectName("protectedWarning")
            set_surface(warn, "banner-warning")
            layout.addWidget(warn)
        layout.addLayout(form)
        layout.addWidget(self.target_notes)

        self.diff_view: QPlainTextEdit | None = None
        if diff is not None:
            self.diff_view = QPlainTextEdit()
            self.diff_view.setObjectName("diffView")
            self.diff_view.setReadOnly(True)
            self.diff_view.setFont(mono)
            self.diff_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
            set_surface(self.diff_view, "code")
            layout.addWidget(_caption("Change:"))
            layout.addWidget(self.diff_view, 2)
        self.diff_shown = show(diff, "block") if diff is not None else None
        if self.diff_view is not None and self.diff_shown is not None:
            self.diff_view.setPlainText(self.diff_shown.text)
        layout.addWidget(_caption("Arguments (credentials masked):"))
        layout.addWidget(self.args_view, 1)

        self.reason = QLineEdit()
        self.reason.setPlaceholderText("Reason for denying (optional, told to the agent)")
        layout.addWidget(self.reason)

        self.once_button = QPushButton("Allow once")
        self.session_button = QPushButton("Allow for this session")
        self.project_button = QPushButton("Always allow in this project")
        self.deny_button = QPushButton("Deny")
        if grant_label:
            self.project_button.setToolTip(f"Remembered for this project: {show_line(grant_label)}")
        else:
            self.project_button.setEnabled(False)
            self.project_button.setToolTip("This action cannot be allowed permanently; it will always ask.")
        if protected or not project:
            self.project_button.setEnabled(False)
        if protected:
            self.session_button.setEnabled(False)
        buttons = QHBoxLayout()
        for b in (self.once_button, self.session_button, self.project_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        buttons.addWidget(self.deny_button)
        layout.addLayout(buttons)
        for b in (self.once_button, self.session_button, self.project_button, self.deny_button):
            b.setAutoDefault(False)
            b.setDefault(False)
        self.once_button.clicked.connect(lambda: self.answer(ApprovalDecision(True, "once")))
        self.session_button.clicked.connect(lambda: self.answer(ApprovalDecision(True, "session")))
        self.project_button.clicked.connect(lambda: self.answer(ApprovalDecision(True, "project")))
        self.deny_button.clicked.connect(self.reject)
        # Focus starts on the reason field: a stray key press types, it never approves.
        self.reason.setFocus()
        self.repaint_theme()
        if theme is not None:
            theme.changed.connect(self.repaint_theme)

    @property
    def palette_in_force(self) -> Palette:
        return self._theme.palette if self._theme is not None else LIGHT

    def repaint_theme(self) -> None:
        """Colours drawn by hand (the diff's lines, markers, the action icon) from the current palette."""
        palette = self.palette_in_force
        self.action_icon.setPixmap(
            icon(ACTION_ICONS.get(str(self.request.action_class), "info"), palette, "muted").pixmap(28, 28)
        )
        set_shown(self.headline, headline_shown(self.request), palette)
        target = mask_text(self.request.target)
        set_shown(self.target_label, show(target) if target else show("—"), palette)
        paint_markers(self.args_view, self.args_shown, palette)
        if self.diff_view is not None and self.diff_shown is not None:
            colour_diff(self.diff_view, palette)
            paint_markers(self.diff_view, self.diff_shown, palette)

    def answer(self, decision: ApprovalDecision) -> None:
        if self.decision is not None:
            return
        self.decision = decision
        self.decided.emit(decision)
        self.done(QDialog.DialogCode.Accepted if decision.approved else QDialog.DialogCode.Rejected)

    def reject(self) -> None:
        """Esc, Deny and closing the window all deny."""
        if self.decision is None:
            reason = self.reason.text().strip() or None
            self.answer(ApprovalDecision(False, "once", reason))
            return
        super().reject()

    def done(self, code: int) -> None:
        if self.decision is None:  # e.g. the parent window closed under it
            self.decision = ApprovalDecision(False, "once", None)
            self.decided.emit(self.decision)
        super().done(code)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            event.accept()  # never approve (or deny) on Enter
            return
        super().keyPressEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.decision is None:
            self.reject()
        super().closeEvent(event)


def elide_end(shown: Shown, limit: int) -> Shown:
    """The first ``limit`` characters of ``shown`` (never half a marker), with a note that the rest is cut."""
    parts: list[tuple[str, bool]] = []
    used = 0
    for text, marker in shown.parts:
        if used + len(text) > limit:
            if not marker:
                parts.append((text[: limit - used], False))
            break
        parts.append((text, marker))
        used += len(text)
    parts.append(("\n… (arguments clipped)", False))
    return Shown(tuple(parts), shown.markers, shown.warnings)


def _caption(text: str) -> QLabel:
    label = QLabel(text)
    set_tone(label, "muted")
    return label
