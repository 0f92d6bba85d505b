"""The permission dialog: the desktop host's answer to an approval request, as the design's sheet.

It shows only what the engine put in the (already masked) request -- tool,
action class, target preview, masked arguments -- plus, for ``write_file``,
a masked unified diff the controller prepared.  The question comes first and
large ("Let the agent edit src/app.py?", "Run npm test in shop?"), with a
muted line saying who asks and where; a write shows its diff with old and
new line numbers; the scope is one segmented choice (only the scopes the
request allows) and there is one primary button.  Tool ids, action classes
and the raw arguments of a write sit in a collapsed "Details" section: the
words a person reads first are words, not identifiers.

Everything the model controls is shown by the one display rule
(``engine/display_text.py``): control, bidi and invisible characters appear
as styled markers, the question is elided in the middle so the end of a path
(its extension) always shows, the target's kind is named ("a shell script",
"outside the project"), and a name that was marked says so -- the approval
itself is of the raw target.

It never approves by accident: no button is a default button; Enter answers
with the primary button only once the dialog has been on screen (and
active) for :data:`ARM_SECONDS`, so a key typed into the composer as the
sheet pops up does nothing; Enter in the deny reason denies; closing it any
other way (Esc, the window's close button) is a denial.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

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
    QButtonGroup,
    QCloseEvent,
    QDialog,
    QEvent,
    QFormLayout,
    QHBoxLayout,
    QKeyEvent,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QShowEvent,
    QSizePolicy,
    Qt,
    QTextOption,
    QVBoxLayout,
    QWidget,
    Signal,
)
from relavium_desktop.ui.readable import readable
from relavium_desktop.ui.sheet_parts import question_row, sheet_badge
from relavium_desktop.ui.theme import set_surface, set_tone, set_variant
from relavium_desktop.ui.theme.diff import DiffView, change_counts, colour_diff
from relavium_desktop.ui.theme.fonts import mono_font
from relavium_desktop.ui.theme.icons import icon
from relavium_desktop.ui.theme.palette import LIGHT, Palette
from relavium_desktop.ui.theme.tokens import PAD_MAIN, SPACE_1, SPACE_2, SPACE_3, SPACE_4
from relavium_desktop.ui.untrusted import marked_html, paint_markers, set_shown

if TYPE_CHECKING:
    from relavium_desktop.ui.theme import Theme

ARGS_PREVIEW_CHARS = 8_000
DIFF_MAX_LINES = 14  # a longer change scrolls inside the sheet
ACTION_WORDS = {
    "fs_write": "write a file",
    "process": "run a program",
    "egress": "connect to the network",
    "os": "use the desktop (clipboard, notifications)",
    "read": "read",
}
# What the "Action" row of Details calls each class, in words (the class id stays beside it).
ACTION_ICONS = {
    "fs_write": "edit",
    "process": "terminal",
    "egress": "globe",
    "os": "clipboard",
    "read": "file",
}
HEADLINE_CHARS = 160
PATH_CLASSES = ("fs_write", "read")  # targets that are paths: their kind is named
# How long the sheet must have been on screen (and active) before Enter answers it: a key typed
# into another field as the sheet appears must not approve anything.
ARM_SECONDS = 0.8
# The one sentence under the diff or arguments: what happens next, per action class.
WHY = {
    "fs_write": "Nothing is written until you allow it; afterwards you can undo the edit from the chat.",
    "process": "The command runs in the project folder with your permissions.",
    "egress": "The agent reads whatever the server sends back.",
    "os": "The agent uses this part of your desktop once you allow it.",
    "read": "The agent reads this and may quote it in the chat.",
}


def project_name(project: str) -> str:
    """The project as a person names it: its folder's name, shown by the display rule."""
    return show_line(os.path.basename(project.rstrip("/\\")) or project)


def _question(request: ApprovalRequest, project: str, *, new_file: bool) -> tuple[str, str]:
    """(words before the target, words after it) of the question for ``request``."""
    action = str(request.action_class)
    where = f" in {project_name(project)}" if project else ""
    if action == "fs_write":
        if request.tool_id == "write_file":
            return ("Let the agent create " if new_file else "Let the agent edit "), "?"
        return "Let the agent change ", "?"
    if action == "process":
        return "Run ", f"{where}?"
    if action == "egress":
        return "Connect to ", "?"
    if action == "read":
        return "Let the agent read ", "?"
    return "Let the agent use ", "?"


def headline_shown(request: ApprovalRequest, project: str = "", *, new_file: bool = False) -> Shown:
    """The question as shown: "Let the agent edit src/app.py?", "Run npm test in shop?", "Fetch example.com?".

    The target is masked, then shown by the display rule and elided in the
    middle, so a long path keeps its last segment and extension.  A web
    address is asked about by its host (the whole address is in the arguments).
    """
    action = str(request.action_class)
    target = mask_text(request.target).strip(" ")
    if not target and request.tool_id.startswith("mcp_"):
        # An MCP tool has no target of its own: name the tool in words ("files add"), not by its id.
        return show(f"Let the agent use the MCP tool “{request.tool_id[4:].replace('_', ' ')}”?")
    if not target:
        return show(f"Let the agent {ACTION_WORDS.get(action, 'act')}?")
    before, after = _question(request, project, new_file=new_file)
    if action == "egress" and target.startswith(("http://", "https://")):
        before, target = "Fetch ", urlsplit(target).netloc or target
    shown = elide_middle(show(target), HEADLINE_CHARS)
    return Shown(((before, False), *shown.parts, (show_line(after), False)), shown.markers, shown.warnings)


def headline(request: ApprovalRequest, project: str = "") -> str:
    """The question as plain text (markers in their brackets)."""
    return headline_shown(request, project).text


def sub_line(request: ApprovalRequest, project: str, diff: str | None) -> str:
    """The muted line under the question: where, who asks, and how big a change is."""
    parts = []
    if project:
        parts.append(f"In {project_name(project)}")
    parts.append("asked by the chat's agent" if request.node_id == "chat" else "asked by a workflow step")
    if diff is not None:
        added, removed = change_counts(diff)
        if added and removed:
            parts.append(f"the change below replaces {_lines(removed)} with {added}")
        elif added:
            parts.append(f"the change below adds {_lines(added)}")
        elif removed:
            parts.append(f"the change below removes {_lines(removed)}")
    text = " · ".join(parts)
    return text[0].upper() + text[1:]


def _lines(count: int) -> str:
    return f"{count} line" if count == 1 else f"{count} lines"


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
        self.project = project
        self.decision: ApprovalDecision | None = None
        self._armed_at = float("inf")
        self._new_file = diff is not None and diff.startswith("new file: ")
        self._fitted = False
        self._diff_lines = 0
        self.setObjectName("permissionDialog")
        set_surface(self, "sheet")
        self.setWindowTitle("Relavium needs your permission")
        self.resize(640, 560 if diff is not None else 440)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(PAD_MAIN, PAD_MAIN, PAD_MAIN, PAD_MAIN)
        layout.setSpacing(SPACE_4)

        # The question, who asks and where, beside a soft warning badge.
        self.action_icon = sheet_badge("permissionBadge", "Permission request", "banner-warning")
        self.headline = QLabel()
        self.headline.setObjectName("permissionHeadline")
        self.headline.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.sub = QLabel(sub_line(request, project, diff))
        self.sub.setObjectName("permissionSub")
        layout.addLayout(question_row(self.action_icon, self.headline, self.sub))

        if protected:
            warn = QLabel("This is a protected path: it always asks, and cannot be allowed for longer.")
            warn.setWordWrap(True)
            warn.setObjectName("protectedWarning")
            set_surface(warn, "banner-warning")
            layout.addWidget(warn)
        # What kind of target this is, and whether its name was marked or mixes scripts.
        self.target_notes = QLabel("\n".join(target_notes(request, outside=outside)))
        self.target_notes.setObjectName("targetNotes")
        self.target_notes.setWordWrap(True)
        self.target_notes.setTextFormat(Qt.TextFormat.PlainText)
        set_surface(self.target_notes, "banner-warning")
        self.target_notes.setVisible(bool(self.target_notes.text()))
        layout.addWidget(self.target_notes)

        mono = mono_font()
        self.args_view = QPlainTextEdit()
        self.args_view.setObjectName("argsView")
        self.args_view.setAccessibleName("What the agent sent (credentials masked)")
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

        # A write: the diff, under a header row naming the file and the size of the change.
        self.diff_view: DiffView | None = None
        self.diff_header: QLabel | None = None
        self.diff_shown = show(diff, "block") if diff is not None else None
        if diff is not None and self.diff_shown is not None:
            self.diff_view = DiffView()
            self.diff_view.setObjectName("diffView")
            self.diff_view.setAccessibleName("The change, with old and new line numbers")
            self.diff_view.setFont(mono)
            set_surface(self.diff_view, "code")
            self.diff_view.setPlainText(self.diff_shown.text)
            # As tall as the change (a short diff leaves no empty well), at most about 14 lines, then it
            # scrolls: fitted when shown (_fit_diff), once the frame and padding of the style are known.
            self._diff_lines = min(self.diff_shown.text.count("\n") + 1, DIFF_MAX_LINES)
            self.diff_view.setFixedHeight(self._diff_lines * self.diff_view.fontMetrics().lineSpacing() + SPACE_4)
            added, removed = change_counts(diff)
            # The file header row sits on the diff like a tab: the path on the left, +added −removed right.
            header_row = QWidget()
            header_row.setObjectName("diffHeaderRow")
            set_surface(header_row, "sunken")
            self.diff_header = QLabel()
            self.diff_header.setObjectName("diffHeader")
            set_variant(self.diff_header, "mono")
            self.diff_counts = QLabel()
            self.diff_counts.setObjectName("diffCounts")
            set_variant(self.diff_counts, "mono")
            header_row.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)  # a tab, never a well
            header_layout = QHBoxLayout(header_row)
            header_layout.setContentsMargins(SPACE_3, SPACE_1, SPACE_3, SPACE_1)
            header_layout.addWidget(self.diff_header, 1)
            header_layout.addWidget(self.diff_counts)
            self._diff_counts = (added, removed)
            block = QVBoxLayout()
            block.setSpacing(0)
            block.addWidget(header_row)
            block.addWidget(self.diff_view)
            layout.addLayout(block)
        else:
            layout.addWidget(self.args_view, 1)

        self.why = QLabel(WHY.get(str(request.action_class), "Nothing happens until you allow it."))
        self.why.setObjectName("permissionWhy")
        self.why.setWordWrap(True)
        set_tone(self.why, "muted")
        layout.addWidget(self.why)

        # Details: the identifiers (tool, action class, raw target) and, for a write, the arguments.
        self.details_toggle = QPushButton("Show details")
        self.details_toggle.setCheckable(True)
        set_variant(self.details_toggle, "ghost")
        self.details = QWidget()
        self.details.setObjectName("details")
        self.details.setProperty("details", True)
        form = QFormLayout(self.details)
        form.setContentsMargins(0, 0, 0, 0)
        self.tool_label = QLabel()
        set_shown(self.tool_label, request.tool_id)
        set_variant(self.tool_label, "mono")
        self.class_label = QLabel(str(request.action_class))
        set_variant(self.class_label, "mono")
        self.target_label = QLabel()
        self.target_label.setWordWrap(True)
        self.target_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form.addRow("Tool:", self.tool_label)
        form.addRow("Action:", self.class_label)
        form.addRow("Target:", self.target_label)
        if project:
            form.addRow("Project:", QLabel(show_line(project)))
        if self.diff_view is not None:
            form.addRow("Arguments (credentials masked):", QWidget())
            form.addRow(self.args_view)
        self.details.setVisible(False)
        self.details_toggle.toggled.connect(self._show_details)
        toggle_row = QHBoxLayout()
        toggle_row.addWidget(self.details_toggle)
        toggle_row.addStretch(1)
        layout.addLayout(toggle_row)
        layout.addWidget(self.details)

        # Deny…: an optional reason, told to the agent, then Deny (Enter in the field denies too).
        self.reason = QLineEdit()
        self.reason.setObjectName("denyReason")
        self.reason.setPlaceholderText("Why not? (optional, told to the agent)")
        self.reason.setAccessibleName("Reason for denying")
        self.reason.returnPressed.connect(self.reject)
        self.deny_confirm_button = QPushButton("Deny")
        set_variant(self.deny_confirm_button, "danger")
        self.deny_confirm_button.clicked.connect(self.reject)
        self.reason_row = QWidget()
        self.reason_row.setObjectName("denyReasonRow")
        reason_layout = QHBoxLayout(self.reason_row)
        reason_layout.setContentsMargins(0, 0, 0, 0)
        reason_layout.setSpacing(SPACE_2)
        reason_layout.addWidget(self.reason, 1)
        reason_layout.addWidget(self.deny_confirm_button)
        self.reason_row.setVisible(False)
        layout.addWidget(self.reason_row)

        # The actions: Deny… on the left; the scope as one segmented choice and the one primary button.
        self.deny_button = QPushButton("Deny…")
        set_variant(self.deny_button, "secondary")
        self.deny_button.clicked.connect(self.ask_reason)
        self.once_button = _segment("Once")
        self.session_button = _segment("This session")
        self.session_button.setToolTip("Until Relavium closes, for this exact target in this project.")
        self.project_button = _segment(f"Always in {project_name(project)}" if project else "Always")
        if grant_label:
            self.project_button.setToolTip(f"Remembered for this project: {show_line(grant_label)}")
        else:
            self.project_button.setEnabled(False)
            self.project_button.setToolTip("This action cannot be allowed permanently; it will always ask.")
        if protected or not project:
            self.project_button.setEnabled(False)
        if protected:
            self.session_button.setEnabled(False)
        self.scope = QButtonGroup(self)
        self.scope.setExclusive(True)
        self.scope_row = QWidget()
        self.scope_row.setObjectName("scopeChoice")
        self.scope_row.setAccessibleName("How long to allow it")
        scope_layout = QHBoxLayout(self.scope_row)
        scope_layout.setContentsMargins(0, 0, 0, 0)
        scope_layout.setSpacing(0)
        for button, scope in (
            (self.once_button, "once"),
            (self.session_button, "session"),
            (self.project_button, "project"),
        ):
            button.setProperty("scope", scope)
            button.setVisible(button.isEnabled())  # only the scopes this request allows
            self.scope.addButton(button)
            scope_layout.addWidget(button)
        shown = [b for b in (self.once_button, self.session_button, self.project_button) if b.isEnabled()]
        for index, button in enumerate(shown):  # the outline is rounded at the ends of the visible ones
            position = "first" if index == 0 else "last" if index == len(shown) - 1 else "middle"
            button.setProperty("position", position)
        self.once_button.setChecked(True)
        # One choice is no choice: the segmented control shows only when there is something to pick.
        self.scope_row.setVisible(self.session_button.isEnabled() or self.project_button.isEnabled())
        self.allow_button = QPushButton("Allow edit" if str(request.action_class) == "fs_write" else "Allow")
        self.allow_button.setObjectName("allowButton")
        set_variant(self.allow_button, "primary")
        self.allow_button.clicked.connect(self.allow)
        buttons = QHBoxLayout()
        buttons.setSpacing(SPACE_2)
        buttons.addWidget(self.deny_button)
        buttons.addStretch(1)
        buttons.addWidget(self.scope_row)
        buttons.addSpacing(SPACE_1)
        buttons.addWidget(self.allow_button)
        layout.addLayout(buttons)
        for b in (
            self.once_button,
            self.session_button,
            self.project_button,
            self.deny_button,
            self.deny_confirm_button,
            self.allow_button,
            self.details_toggle,
        ):
            b.setAutoDefault(False)
            b.setDefault(False)
        # Focus starts on the scope choice (a stray Space only re-picks it), never on Allow.
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        (self.once_button if self.scope_row.isVisible() else self).setFocus()
        self.repaint_theme()
        if theme is not None:
            theme.changed.connect(self.repaint_theme)

    @property
    def palette_in_force(self) -> Palette:
        return self._theme.palette if self._theme is not None else LIGHT

    def repaint_theme(self) -> None:
        """Colours drawn by hand (the diff's lines and numbers, markers, the badge) from the current palette."""
        palette = self.palette_in_force
        self.action_icon.setPixmap(
            icon(ACTION_ICONS.get(str(self.request.action_class), "info"), palette, "warning").pixmap(
                SPACE_4, SPACE_4
            )
        )
        set_shown(self.headline, headline_shown(self.request, self.project, new_file=self._new_file), palette)
        target = mask_text(self.request.target)
        set_shown(self.target_label, show(target) if target else show("—"), palette)
        paint_markers(self.args_view, self.args_shown, palette)
        if self.diff_view is not None and self.diff_shown is not None:
            colour_diff(self.diff_view, palette)
            paint_markers(self.diff_view, self.diff_shown, palette)
        if self.diff_header is not None:
            self._paint_diff_header(palette)

    def _paint_diff_header(self, palette: Palette) -> None:
        """ "src/app.py · +9 −31": the file in the text colour, the counts in success and danger."""
        assert self.diff_header is not None
        added, removed = self._diff_counts
        name = elide_middle(show(mask_text(self.request.target)), HEADLINE_CHARS)
        counts = (
            f'<span style="color: {palette["success"]}">+{added}</span> '
            f'<span style="color: {palette["danger"]}">\u2212{removed}</span>'
        )
        self.diff_header.setTextFormat(Qt.TextFormat.RichText)
        self.diff_header.setText(marked_html(name, palette))
        self.diff_counts.setText(counts)
        self.diff_header.setAccessibleName(f"{name.text}: {added} lines added, {removed} removed")

    def question(self) -> str:
        """The sheet's question as plain text (markers in their brackets), e.g. for a notification."""
        return headline_shown(self.request, self.project, new_file=self._new_file).text

    def selected_scope(self) -> str:
        """The scope picked in the segmented choice ("once", "session" or "project")."""
        button = self.scope.checkedButton()
        return str(button.property("scope")) if button is not None else "once"

    def armed(self) -> bool:
        """Whether Enter may answer yet: the sheet has been on screen, active, for ARM_SECONDS."""
        return time.monotonic() - self._armed_at >= ARM_SECONDS

    def allow(self) -> None:
        """The primary button: allow, for the scope picked."""
        scope = self.selected_scope()
        if scope == "session":
            self.answer(ApprovalDecision(True, "session"))
        elif scope == "project":
            self.answer(ApprovalDecision(True, "project"))
        else:
            self.answer(ApprovalDecision(True, "once"))

    def ask_reason(self) -> None:
        """Deny…: show the optional reason field (and its Deny button) and put the cursor in it."""
        self.reason_row.setVisible(True)
        self.deny_button.setVisible(False)  # its Deny is now beside the reason
        self.reason.setFocus()

    def _show_details(self, shown: bool) -> None:
        self.details.setVisible(shown)
        self.details_toggle.setText("Hide details" if shown else "Show details")

    def answer(self, decision: ApprovalDecision) -> None:
        if self.decision is not None:
            return
        self.decision = decision
        self.decided.emit(decision)
        self.done(QDialog.DialogCode.Accepted if decision.approved else QDialog.DialogCode.Rejected)

    def reject(self) -> None:
        """Esc, Deny and closing the window all deny (with the reason, if one was typed)."""
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

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._armed_at = time.monotonic()
        if not self._fitted:
            self._fitted = True
            self._fit_diff()

    def _fit_diff(self) -> None:
        """The diff exactly as tall as its lines (up to the cap), and the sheet as tall as its content.

        Why here: the style's frame and padding around the text are known only
        once the sheet is laid out; guessed at construction, a nine-line diff
        scrolled and the file's header row took the spare height instead.
        """
        view = self.diff_view
        if view is None:
            return
        chrome = view.height() - view.viewport().height()
        block, text = view.document().firstBlock(), 0.0
        for _line in range(self._diff_lines):  # the laid-out lines, in the font the style really gave them
            if not block.isValid():
                break
            text += view.blockBoundingRect(block).height()
            block = block.next()
        view.setFixedHeight(int(text + 2 * view.document().documentMargin()) + chrome + 2)
        layout = self.layout()
        if layout is not None:
            layout.activate()
            wraps = layout.hasHeightForWidth()  # wrapped lines: the height at this width, not at the hint's
            self.resize(self.width(), layout.totalHeightForWidth(self.width()) if wraps
                        else layout.totalSizeHint().height())

    def changeEvent(self, event: QEvent) -> None:
        # Coming back to the sheet from elsewhere re-arms it: the typing that brought focus here is not an answer.
        if event.type() == QEvent.Type.ActivationChange and self.isActiveWindow():
            self._armed_at = time.monotonic()
        super().changeEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            event.accept()
            if self.focusWidget() is self.reason:
                return  # the field's own Enter denies (returnPressed)
            if self.armed() and self.allow_button.isEnabled():
                self.allow()
            return
        super().keyPressEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.decision is None:
            self.reject()
        super().closeEvent(event)


def _segment(text: str) -> QPushButton:
    button = QPushButton(text)
    button.setCheckable(True)
    set_variant(button, "segment")
    return button


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
