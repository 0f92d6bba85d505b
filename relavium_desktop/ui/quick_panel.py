"""The "Process what I copied" quick panel.

A compact floating sheet (the design's ``quick.png``): a sunken strip says
what was copied (its kind and a two-line, masked preview), the clipboard
actions are numbered tiles in two columns -- a click or the tile's number
key (1-9) runs it -- and the result is rendered as Markdown in a tall area.
The footer's primary action is "Copy result"; "Continue in chat" hands the
prompt and result to the window (``open_in_chat``), which opens them as a
chat, and closes the panel so the chat is what the user sees.  Esc closes.

Running an action is delegated to ``runner`` (the chat view supplies one
that asks the configured provider, with no tools); without one the panel
explains why nothing runs.  When the run ends while the panel is not the
focused window, a notification says so (with no clipboard text in it: only
the action's title).

With an image on the clipboard the panel offers the image actions
("Explain this screenshot", "Extract the text") only when the chat's model
can see images (``ImageAware.image_support``); otherwise a muted line names
a configured model that could.  It never reads the image itself -- not even
for a preview: ``image_runner`` runs the action as a model turn that asks for
the image through ``read_clipboard``, so the permission dialog comes before
the image is read, exactly as in a chat.

The clipboard text and the model's result are untrusted: both are shown by the one display rule
(``engine/display_text.py``) with styled markers -- the result's Markdown is rendered from its
display form, with raw HTML escaped -- while Copy and Continue in chat pass on the result exactly
as the model wrote it.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from relavium_desktop.engine.agent.session import title_for_action
from relavium_desktop.engine.display_text import show_block, show_line
from relavium_desktop.engine.tools.masking import mask_text
from relavium_desktop.ui.clipboard_actions import ClipboardAction, offered
from relavium_desktop.ui.error_text import error_text
from relavium_desktop.ui.qt import (
    QDialog,
    QFrame,
    QGridLayout,
    QGuiApplication,
    QHBoxLayout,
    QKeyEvent,
    QLabel,
    QPalette,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    Qt,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
    Signal,
)
from relavium_desktop.ui.tasks import spawn
from relavium_desktop.ui.theme import set_surface, set_tone, set_variant
from relavium_desktop.ui.theme.tokens import SPACE_1, SPACE_2, SPACE_3, SPACE_4
from relavium_desktop.ui.untrusted import fill_shown

if TYPE_CHECKING:
    from relavium_desktop.application.desktop_os import DesktopOs
    from relavium_desktop.ui.clipboard_image_run import ImageRunner, ImageSupport
    from relavium_desktop.ui.theme import Theme

log = logging.getLogger(__name__)
PREVIEW_CHARS = 2_000
PREVIEW_LINES = 2  # the strip shows the first two lines of what was copied
PANEL_WIDTH = 640  # the design's quick panel (mockups/quick.html, .qp)
RESULT_MIN_HEIGHT = 220  # room for a real answer, not a four-line box
MAX_NUMBERED = 9  # keys 1-9
ClipboardRunner = Callable[[ClipboardAction, str], Awaitable[str]]


class ActionTiles(QWidget):
    """The actions as numbered tiles in a two-column grid; ``triggered(row)`` when one is clicked.

    Selection mirrors a list's (``count``, ``item``, ``currentRow``, ``setCurrentRow``) so the panel
    and its callers can talk about "the chosen action" without knowing tiles are buttons.
    """

    triggered = Signal(int)
    currentRowChanged = Signal(int)  # the list-widget name it stands in for

    def __init__(self, titles: list[tuple[str, str]]) -> None:
        super().__init__()
        self.setObjectName("quickActions")
        self._tiles: list[QPushButton] = []
        self._row = -1
        grid = QGridLayout(self)
        grid.setContentsMargins(SPACE_4, SPACE_3, SPACE_4, SPACE_3)
        grid.setHorizontalSpacing(SPACE_2)
        grid.setVerticalSpacing(SPACE_2)
        for index, (title, description) in enumerate(titles):
            tile = QPushButton(title)
            tile.setObjectName(f"quickAction{index + 1}")
            tile.setCheckable(True)
            tile.setAutoDefault(False)
            set_variant(tile, "tile")
            tile.setToolTip(description)
            number = index + 1
            if number <= MAX_NUMBERED:
                tile.setAccessibleName(f"{title} (key {number})")
                hint = QLabel(str(number))
                hint.setObjectName("quickActionKey")
                hint.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
                hint.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)  # a click is the tile's
                set_variant(hint, "kbd")
                row = QHBoxLayout(tile)
                row.setContentsMargins(0, 0, SPACE_3, 0)
                row.addStretch(1)
                row.addWidget(hint, 0, Qt.AlignmentFlag.AlignVCenter)
            else:
                tile.setAccessibleName(title)
            tile.clicked.connect(lambda _checked=False, i=index: self._clicked(i))
            grid.addWidget(tile, index // 2, index % 2)
            self._tiles.append(tile)

    def count(self) -> int:
        return len(self._tiles)

    def item(self, row: int) -> QPushButton:
        return self._tiles[row]

    def currentRow(self) -> int:
        return self._row

    def setCurrentRow(self, row: int) -> None:
        """Choose ``row`` (its tile looks on) without running it."""
        if not 0 <= row < len(self._tiles):
            row = -1
        for index, tile in enumerate(self._tiles):
            tile.setChecked(index == row)
        if row != self._row:
            self._row = row
            self.currentRowChanged.emit(row)

    def _clicked(self, row: int) -> None:
        self.setCurrentRow(row)
        self._tiles[row].setChecked(True)  # a second click leaves it on
        self.triggered.emit(row)


def copied_kind(text: str, has_image: bool) -> str:
    """What the strip says was copied: "You copied · 3 lines of text", "… an image"."""
    if text:
        lines = len(text.splitlines()) or 1
        return f"You copied · {lines} line{'s' if lines != 1 else ''} of text"
    if has_image:
        return "You copied · an image"
    return "The clipboard is empty"


class QuickPanel(QDialog):
    open_in_chat = Signal(str, str, str)  # prompt, result, the chat's title (action: first words)
    finished_run = Signal(str)

    def __init__(
        self,
        text: str,
        actions: list[ClipboardAction],
        runner: ClipboardRunner | None = None,
        parent: QWidget | None = None,
        *,
        notifier: DesktopOs | None = None,
        has_image: bool = False,
        image_runner: ImageRunner | None = None,
        theme: Theme | None = None,
    ) -> None:
        super().__init__(parent)
        self._notifier = notifier
        self.last_notification_id: str | None = None
        self.setWindowTitle("Process what I copied")
        self.setObjectName("quickPanel")
        # A floating sheet: no title bar; the sheet inside draws the rounded card.
        self.setWindowFlag(Qt.WindowType.FramelessWindowHint, True)
        self.setAttribute(Qt.WidgetAttribute.WA_TranslucentBackground, True)
        self.setFixedWidth(PANEL_WIDTH + 2 * SPACE_4)  # the sheet, and room around it for its shadow
        self.text = text
        self.has_image = has_image
        self._runner = runner
        self._image_runner = image_runner
        self.image_support = self._image_support() if has_image else None
        sees = self.image_support is None or self.image_support.sees
        self.clip_actions = offered(
            actions if sees else [a for a in actions if not a.for_image], has_text=bool(text), has_image=has_image
        )
        self._busy = False
        self._prompt = ""
        self._title = ""
        self._result = ""  # as the model wrote it: what Copy and Continue in chat pass on

        # -- what was copied --------------------------------------------------------
        strip = QWidget()
        strip.setObjectName("quickClip")
        set_surface(strip, "sunken")
        self.kind_label = QLabel(copied_kind(text, has_image))
        self.kind_label.setTextFormat(Qt.TextFormat.PlainText)
        set_tone(self.kind_label, "muted")
        self.preview = QPlainTextEdit()
        self.preview.setObjectName("quickPreview")
        self.preview.setReadOnly(True)
        self.preview.setAccessibleName("What you copied")
        self.preview.setFrameShape(QFrame.Shape.NoFrame)
        self.preview.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.preview.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.preview.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the number keys stay the panel's
        shown = mask_text(text[:PREVIEW_CHARS])
        if len(text) > PREVIEW_CHARS:
            shown += f"\n… ({len(text) - PREVIEW_CHARS} more characters)"
        fill_shown(self.preview, shown if text else "")
        self.preview.setPlaceholderText(
            "The clipboard holds an image. It is read only when you run an action and allow the read."
            if has_image
            else "Copy some text, then open this panel again."
        )
        set_surface(self.preview, "sunken")
        self.preview.ensurePolished()  # the sheet's padding is in the contents margins once polished
        margins = self.preview.contentsMargins()
        line = self.preview.fontMetrics().lineSpacing()
        self.preview.setFixedHeight(
            line * PREVIEW_LINES + int(self.preview.document().documentMargin()) + margins.top() + margins.bottom()
        )
        clip_column = QVBoxLayout()
        clip_column.setSpacing(SPACE_1)
        clip_column.addWidget(self.kind_label)
        clip_column.addWidget(self.preview)
        strip_row = QHBoxLayout(strip)
        strip_row.setContentsMargins(SPACE_4, SPACE_4, SPACE_4, SPACE_3)
        strip_row.addLayout(clip_column)

        # -- the actions ----------------------------------------------------------------
        self.action_list = ActionTiles([(show_line(a.title), show_line(a.description)) for a in self.clip_actions])
        self.action_list.triggered.connect(self.run_row)
        self.action_list.currentRowChanged.connect(lambda _row: self._update_state())
        self.image_note = QLabel(self.image_support.note() if self.image_support is not None else "")
        self.image_note.setObjectName("quickImageNote")
        self.image_note.setTextFormat(Qt.TextFormat.PlainText)
        self.image_note.setWordWrap(True)
        set_tone(self.image_note, "muted")
        self.image_note.setVisible(bool(self.image_note.text()))

        # -- the result -------------------------------------------------------------------
        self.result_heading = QLabel("Result")
        self.result_heading.setTextFormat(Qt.TextFormat.PlainText)
        set_variant(self.result_heading, "group-label")
        self.result_view = QTextBrowser()
        self.result_view.setObjectName("quickResult")
        self.result_view.setAccessibleName("Result")
        self.result_view.setOpenLinks(False)
        self.result_view.setOpenExternalLinks(False)
        self.result_view.anchorClicked.connect(_open_link)
        self.result_view.setFrameShape(QFrame.Shape.NoFrame)
        self.result_view.setMinimumHeight(RESULT_MIN_HEIGHT)
        self.result_view.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.result_view.setPlaceholderText("Pick an action (or press its number); the result appears here.")

        # -- the footer -----------------------------------------------------------------
        self.status = QLabel()
        self.status.setObjectName("quickStatus")
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # an action's title or an error: never markup
        self.status.setWordWrap(True)
        set_tone(self.status, "muted")
        self.copy_button = QPushButton("Copy result")
        set_variant(self.copy_button, "primary")
        self.chat_button = QPushButton("Continue in chat")
        set_variant(self.chat_button, "secondary")
        self.chat_button.setToolTip("Opens this as a chat in the main window and closes the panel.")
        for b in (self.copy_button, self.chat_button):
            b.setEnabled(False)
            b.setAutoDefault(False)
        self.copy_button.clicked.connect(self._copy)
        self.chat_button.clicked.connect(self.continue_in_chat)
        foot = QHBoxLayout()
        foot.setContentsMargins(SPACE_4, SPACE_3, SPACE_4, SPACE_3)
        foot.setSpacing(SPACE_2)
        foot.addWidget(self.status, 1)
        foot.addWidget(self.chat_button)
        foot.addWidget(self.copy_button)

        out = QVBoxLayout()
        out.setContentsMargins(SPACE_4, SPACE_3, SPACE_4, SPACE_2)
        out.setSpacing(SPACE_1)
        out.addWidget(self.image_note)
        out.addWidget(self.result_heading)
        out.addWidget(self.result_view, 1)

        sheet = QFrame()
        sheet.setObjectName("quickSheet")
        set_surface(sheet, "sheet")
        column = QVBoxLayout(sheet)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(strip)
        column.addWidget(self.action_list)
        column.addWidget(_rule())
        column.addLayout(out, 1)
        column.addWidget(_rule())
        column.addLayout(foot)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(SPACE_4, SPACE_4, SPACE_4, SPACE_4)
        outer.addWidget(sheet)
        self.sheet = sheet
        theme = theme or _theme_of(parent)
        if theme is not None:
            theme.elevate(sheet, "overlay")  # floats over whatever is behind it

        if self.clip_actions:
            self.action_list.setCurrentRow(0)
        self._update_state()

    # -- choosing and running -----------------------------------------------------------

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """1-9 run the tile with that number (the tiles and the preview pass digits on to here)."""
        key = event.key()
        if Qt.Key.Key_1.value <= key <= Qt.Key.Key_9.value and not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            row = key - Qt.Key.Key_1.value
            if row < self.action_list.count() and self.action_list.isEnabled():
                self.action_list.item(row).click()
                return
        super().keyPressEvent(event)

    def _image_support(self) -> ImageSupport | None:
        """What the image runner knows of its model's sight; None when it cannot say (the run decides)."""
        from relavium_desktop.ui.clipboard_image_run import ImageAware

        if not isinstance(self._image_runner, ImageAware):
            return None
        try:
            return self._image_runner.image_support()
        except Exception as exc:  # noqa: BLE001 -- offer the actions; the run reports the real problem
            log.info("image support unknown: %s", type(exc).__name__)
            return None

    def selected_action(self) -> ClipboardAction | None:
        row = self.action_list.currentRow()
        return self.clip_actions[row] if 0 <= row < len(self.clip_actions) else None

    def _blocker(self, action: ClipboardAction | None) -> str | None:
        """Why ``action`` cannot run now, or None."""
        if action is None:
            return "Copy some text first, then try again." if not self.clip_actions else None
        if action.for_image:
            if self._image_runner is None:
                return "Running an action needs a configured provider (Settings → Providers)."
            return None if self.has_image else "Copy an image first, then try again."
        if self._runner is None:
            return "Running an action needs a configured provider (Settings → Providers)."
        return None if self.text else "Copy some text first, then try again."

    def _update_state(self) -> None:
        if self._busy:
            return  # the tiles come back when the running action ends
        blocker = self._blocker(self.selected_action())
        self.status.setText(blocker or "Press a number or click an action to run it. Esc closes.")
        set_tone(self.status, "muted")

    def run_row(self, row: int) -> None:
        """Run the action of tile ``row`` (a click or its number key)."""
        self.action_list.setCurrentRow(row)
        self._run()

    def _run(self) -> None:
        action = self.selected_action()
        if self._busy or action is None or self._blocker(action) is not None:
            self._update_state()
            return
        self._busy = True
        self.action_list.setEnabled(False)
        self.status.setText(f"Running “{show_line(action.title)}”…")
        set_tone(self.status, "muted")
        self.result_heading.setText(show_line(action.title))
        spawn(self._run_action(action))

    async def _run_action(self, action: ClipboardAction) -> None:
        self._prompt = action.render(self.text)
        try:
            if action.for_image:
                assert self._image_runner is not None
                self._title = title_for_action(action.title, "")
                result = await self._image_runner(action)
            else:
                assert self._runner is not None
                self._title = title_for_action(action.title, self.text)
                result = await self._runner(action, self.text)
        except Exception as exc:  # noqa: BLE001 -- shown to the user (masked)
            self._busy = False
            self.action_list.setEnabled(True)
            self.status.setText(f"“{show_line(action.title)}” failed: {error_text(exc, limit=300)}")
            set_tone(self.status, "danger")
            await self._notify_if_away(f"“{show_line(action.title)}” failed", "Open Relavium to see why.")
            return
        self._busy = False
        self.action_list.setEnabled(True)
        self._result = result
        self.result_view.setHtml(markdown_html(result))
        self.status.setText(f"“{show_line(action.title)}” finished.")
        self.copy_button.setEnabled(True)
        self.chat_button.setEnabled(True)
        self.copy_button.setFocus()
        self.finished_run.emit(action.id)
        await self._notify_if_away(f"“{show_line(action.title)}” is ready", "The result is in the quick panel.")

    async def _notify_if_away(self, title: str, body: str) -> None:
        if self._notifier is None or self.isActiveWindow():
            return
        try:
            result = await self._notifier.notify(title, body, [])
        except Exception as exc:  # noqa: BLE001 -- the result is on screen; a missing daemon is not fatal
            log.info("clipboard notification not shown: %s", type(exc).__name__)
            return
        self.last_notification_id = str(result.get("id", ""))

    # -- the footer --------------------------------------------------------------------------

    def _copy(self) -> None:
        QGuiApplication.clipboard().setText(self._result)
        self.status.setText("Copied.")
        set_tone(self.status, "success")

    def continue_in_chat(self) -> None:
        """Hand the prompt and result to the window's chat, then get out of the way."""
        if not self._result:
            return
        self.open_in_chat.emit(self._prompt, self._result, self._title)
        self.close()


def markdown_html(text: str) -> str:
    """``text`` (a model's Markdown) as HTML for a QTextBrowser: from its display form, raw HTML escaped."""
    from relavium_desktop.ui.chat.markdown import Prose, segments

    parts: list[str] = []
    for piece in segments(show_block(text)):
        if isinstance(piece, Prose):
            parts.append(_task_boxes(piece.html))
        else:
            parts.append(f"<pre>{html.escape(piece.code)}</pre>")
    return "".join(parts)


def _task_boxes(prose: str) -> str:
    """GitHub-style task items ("- [ ] Ship", what a checklist action returns) as boxes, not brackets."""
    for opening in ("<li>", "<li>\n<p>"):
        prose = prose.replace(f"{opening}[ ] ", f"{opening}☐ ").replace(f"{opening}[x] ", f"{opening}☑ ")
        prose = prose.replace(f"{opening}[X] ", f"{opening}☑ ")
    return prose


def _open_link(url: object) -> None:
    from relavium_desktop.ui.chat.rich_text import open_web_link

    open_web_link(url)  # type: ignore[arg-type]


def _theme_of(parent: QWidget | None) -> Theme | None:
    """The window's theme (``MainWindow.context.theme``) when the panel has a window for a parent."""
    context = getattr(parent, "context", None)
    theme = getattr(context, "theme", None)
    from relavium_desktop.ui.theme import Theme

    return theme if isinstance(theme, Theme) else None


def _rule() -> QFrame:
    """A hairline between the panel's sections."""
    line = QFrame()
    line.setFrameShape(QFrame.Shape.HLine)
    line.setFrameShadow(QFrame.Shadow.Plain)
    line.setForegroundRole(QPalette.ColorRole.Mid)  # the palette's border colour, not the text's
    return line
