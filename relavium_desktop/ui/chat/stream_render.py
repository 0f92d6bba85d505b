"""An answer rendered as Markdown while it streams, one top-level block at a time.

Each coalesced flush re-parses only the tail of the text: from the start of
the open (last) block.  Blocks before it are final (Markdown never reopens a
block once the next has begun), so they are rendered once -- prose appended
to the current text view's document, a fence as its own ``CodeBlock`` -- and
never touched again.  The open block is drawn as far as it parses: an
unclosed fence is a code block growing line by line, a table shows its
complete rows, and a half-typed marker is held back (``markdown.hold_back``).

A long open paragraph would make every flush lay all of it out again (a
QTextBlock is laid out whole); so its complete lines are committed in
segments -- their own blocks, no margin between them -- once no inline
marker is open across them, and only the last segment is drawn again per
flush.  A newline in an answer is a line break (``markdown``'s ``breaks``),
so a paragraph in segments reads exactly like the one block a full render
gives.

The open block's common growth is drawn without the parser: an open fence's
new lines are appended to its code block (``_grow_fence``), an open table's
new rows to its drawn table (``_grow_table``).  Building a code block is the
costliest step of a flush, so a flush that builds one stops there and the
rest is drawn on the next turn of the event loop (``update`` says so).

Appending a block keeps the formats a one-shot ``setHtml`` of the same text
would give (block margins, lists, tables), so a finished stream reads exactly
like the same answer opened from history.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Protocol

from relavium_desktop.ui.chat.markdown import TopBlock, hold_back, render_blocks, render_inline, top_blocks
from relavium_desktop.ui.qt import (
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextDocumentFragment,
)

if TYPE_CHECKING:
    from relavium_desktop.ui.chat.code_block import CodeBlock
    from relavium_desktop.ui.chat.rich_text import FittedText
    from relavium_desktop.ui.qt import QTextTable

KEEP_LINES = 2  # an open paragraph's last lines, drawn again per flush; earlier ones are committed
SEGMENT_CHARS = 300  # an open paragraph's last segment is committed once it is this long
_CONTINUE = "x\n"  # parsed before an open paragraph's uncommitted lines: they stay a continuation
_FIRST = '<p style="margin-bottom: 0px">'
_MIDDLE = '<p style="margin-top: 0px; margin-bottom: 0px">'
_LAST = '<p style="margin-top: 0px">'
_ROW = re.compile(r" {0,3}\|.*\|[ \t]*$")  # a line that can only be another row of an open table


class Host(Protocol):
    """What the renderer needs from the message it draws into."""

    def prose_view(self) -> FittedText:
        """The text view prose goes into now (a new one after a code block)."""
        ...

    def add_code(self, code: str, language: str) -> CodeBlock: ...

    def paint(self, markup: str) -> str:
        """Rendered HTML with the palette's colours filled in."""
        ...


class StreamRender:
    """The streaming state of one answer: how much is final, and the open block's drawing."""

    def __init__(self, host: Host) -> None:
        self._host = host
        self.done = 0  # where the open block starts in the text: everything before is final
        self._para_done = 0  # characters of the open paragraph already committed (after ``done``)
        self._open_view: FittedText | None = None
        self._open_mark = -1  # where the open block's drawing starts in ``_open_view``'s document
        self._open_code: CodeBlock | None = None
        self._fence: tuple[str, int] | None = None  # the open fence's marker character and indentation
        self._code_seen = 0  # where the open fence's unread lines start in the text
        self._shift = 0
        self.pending = False  # the last update stopped early (after building a code block)
        self._table: tuple[str, QTextTable, int] | None = None  # head lines, drawn QTextTable, rows read to

    def update(self, text: str, *, final: bool = False) -> bool:
        """Render ``text`` (the whole answer so far); ``final``: nothing more comes, render all of it.

        True when it stopped early -- it built a code block, the costliest
        step of a flush -- and the rest is to be drawn by another call soon
        (the message schedules one on the next turn of the event loop).
        """
        self.pending = False
        # One edit block: the document is laid out again once per flush, not once per insert.
        edit = QTextCursor(self._host.prose_view().document()) if self._open_view is not None else None
        if edit is not None:
            edit.beginEditBlock()
        try:
            self._update(text, final=final)
        finally:
            if edit is not None:
                edit.endEditBlock()
        return self.pending

    def _update(self, text: str, *, final: bool) -> None:
        if not final and (self._grow_fence(text) or self._grow_table(text)):
            return
        base = self.done + self._para_done
        cont = self._para_done > 0
        source = (_CONTINUE if cont else "") + text[base:]
        shift = base - (len(_CONTINUE) if cont else 0)  # source offset + shift = text offset
        drawn = self._table
        self._shift, self._fence, self._table = shift, None, None
        blocks = top_blocks(source)
        # A table that ended with every row drawn stays as drawn: rendering it again would cost the whole table.
        keep = (
            drawn is not None
            and bool(blocks)
            and blocks[0].kind == "table"
            and (len(blocks) > 1 or final)
            and shift + blocks[0].start == self.done
            and drawn[2] == shift + blocks[0].end
        )
        if keep:
            self._open_view = None
        else:
            self._wipe_open()
        for index, block in enumerate(blocks):
            if keep and index == 0:
                continue
            last = index == len(blocks) - 1 and not final
            if cont and index == 0:
                rest = block.inline[len(_CONTINUE) :] if block.kind == "paragraph" else ""
                if last:
                    self._open_paragraph(rest, source[len(_CONTINUE) :], continued=True, markup=block.html)
                else:  # the paragraph ended: its last segment, all of it
                    append_html(
                        self._view().document(), self._host.paint(f"{_LAST}{render_inline(rest)}</p>")
                    )
                    self._para_done = 0
                continue
            if last:
                self.done, self._para_done = shift + block.start, 0
                self._open(block, source)
                if self.pending:
                    return
            elif block.kind == "code" and self._open_code is None and not final:
                # A closed fence in one flush: its block is built now, its code drawn on the next call.
                self._open_code = self._host.add_code("", block.language)
                self.done, self._para_done, self.pending = shift + block.start, 0, True
                return
            else:
                self._commit(block)
        if final:
            self.done, self._para_done, self._open_code = len(text), 0, None
            self._fence, self._table = None, None
        elif not blocks and not cont:
            self.done = len(text) - len(text[base:].lstrip("\n"))

    # -- final blocks -----------------------------------------------------------

    def _commit(self, block: TopBlock) -> None:
        if block.kind == "code":
            code, self._open_code = self._open_code or self._host.add_code("", block.language), None
            code.set_code(block.code)
            code.settle()  # its pieces were lexed apart: lexed whole, off this flush
            return
        append_html(self._view().document(), self._host.paint(block.html))

    def _view(self) -> FittedText:
        return self._host.prose_view()

    # -- the open block -----------------------------------------------------------

    def _grow_fence(self, text: str) -> bool:
        """Append the lines an open fence grew by without parsing; False when a line may close it.

        A fence's lines are its content until a line made of its marker: so
        only a line starting with the marker character (or a tab, whose
        indentation markdown-it counts in columns) needs the parser.
        """
        if self._fence is None or self._open_code is None:
            return False
        char, indent = self._fence
        new = text[self._code_seen :]
        complete = new[: new.rfind("\n") + 1]
        if not complete:
            return True  # a partial line waits for its end
        if "\r" in complete or "\0" in complete:
            return False  # the parser normalises these; it draws such lines
        lines = complete.split("\n")[:-1]
        if any(line.lstrip(" ").startswith((char, "\t")) for line in lines):
            return False
        if indent:
            lines = [line[min(indent, len(line) - len(line.lstrip(" "))) :] for line in lines]
        self._open_code.set_code(self._open_code.code + "".join(f"{line}\n" for line in lines))
        self._code_seen += len(complete)
        return True

    def _wipe_open(self) -> None:
        view, self._open_view = self._open_view, None
        if view is None:
            return
        document = view.document()
        if self._open_mark < 0:
            document.clear()
            return
        cursor = QTextCursor(document)
        cursor.setPosition(self._open_mark)
        # Taking out the block separator after an empty block (a rule) would give it the removed block's format.
        kept = cursor.blockFormat()
        cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        cursor.setBlockFormat(kept)

    def _mark(self, view: FittedText) -> None:
        self._open_view = view
        document = view.document()
        self._open_mark = -1 if _blank(document) else document.characterCount() - 1

    def _open(self, block: TopBlock, source: str) -> None:
        own = source[block.start :]
        if block.kind == "code":
            if "\n" not in own:
                return  # the fence's first line (its language) is still arriving
            code = block.code[: block.code.rfind("\n") + 1]
            if self._open_code is None:
                self._open_code = self._host.add_code("", block.language)
                self.pending = True  # its code is drawn on the next call
                return
            self._open_code.set_code(code)
            opening = own[: own.find("\n")]
            marker = opening.lstrip(" ")
            if block.closed or not marker or marker[0] not in "`~":
                return  # an indented block (or a closed fence) has no fast path
            self._fence = (marker[0], len(opening) - len(marker))
            self._code_seen = self._shift + block.start + own.rfind("\n") + 1
            return
        if block.kind == "paragraph":
            self._open_paragraph(block.inline, own, continued=False, markup=block.html)
            return
        if block.kind == "table":
            shown = own[: own.rfind("\n") + 1]  # complete rows only
            markup = render_blocks(shown)
            if not markup.startswith("<table"):
                return  # its delimiter row is still arriving
            view = self._view()
            self._mark(view)
            append_html(view.document(), self._host.paint(markup))
            drawn = _last_table(view.document())
            head = "\n".join(own.split("\n")[:2]) + "\n"
            if drawn is not None:
                self._table = (head, drawn, self._shift + block.start + len(shown))
            return
        else:
            markup = render_blocks(hold_back(own))
        if markup:
            view = self._view()
            self._mark(view)
            append_html(view.document(), self._host.paint(markup))

    def _grow_table(self, text: str) -> bool:
        """Append the rows an open table grew by to its drawing; False when the parser must look.

        A blank line ends the table as drawn (the parser then starts after
        it); any other line that is not plainly a row goes to the parser.

        Each row is rendered under the table's own header (so cells read as
        in the whole table) and its cells copied into new rows of the drawn
        table: a flush costs the new rows, not the table so far.
        """
        if self._table is None:
            return False
        head, table, seen = self._table
        new = text[seen:]
        complete = new[: new.rfind("\n") + 1]
        if not complete:
            return True  # a partial row waits for its end
        lines = complete.split("\n")[:-1]
        count = 0
        while count < len(lines) and _ROW.match(lines[count]):
            count += 1
        ended = count < len(lines) and not lines[count].strip()  # a blank line ends a table
        if count < len(lines) and not ended:
            return False
        rows = "".join(f"{line}\n" for line in lines[:count])
        if rows and not self._append_rows(head, table, rows, count):
            return False
        seen += len(rows)
        if ended:  # the table is final as drawn; the parser goes on from the blank line
            self._table, self._open_view = None, None
            self.done, self._para_done = seen, 0
            return False
        self._table = (head, table, seen)
        return True

    def _append_rows(self, head: str, table: QTextTable, rows: str, count: int) -> bool:
        """Render ``rows`` under the table's header and copy their cells into new rows of ``table``."""
        scratch = QTextDocument()
        scratch.setHtml(self._host.paint(render_blocks(head + rows)))
        drawn = _last_table(scratch)
        if drawn is None or drawn.rows() != count + 1 or drawn.columns() != table.columns():
            return False
        at = table.rows()
        table.appendRows(count)
        for row in range(count):
            for column in range(table.columns()):
                source, target = drawn.cellAt(row + 1, column), table.cellAt(at + row, column)
                target.setFormat(source.format())
                selection = source.firstCursorPosition()
                selection.setPosition(source.lastCursorPosition().position(), QTextCursor.MoveMode.KeepAnchor)
                cursor = target.firstCursorPosition()
                cursor.setBlockFormat(selection.blockFormat())
                cursor.insertFragment(selection.selection())
        return True

    def _open_paragraph(self, inline: str, source: str, *, continued: bool, markup: str) -> None:
        """The open paragraph: commit a long segment of it once that is safe, draw the rest held back.

        ``markup`` is the paragraph as parsed (after ``_CONTINUE`` when ``continued``): drawn
        as it is when nothing is held back, so the tail is parsed once per flush, not twice.
        """
        view = self._view()
        lines = parsed = inline.split("\n")
        if len(lines) > KEEP_LINES + 1 and len(inline) >= SEGMENT_CHARS:
            keep = len(lines) - KEEP_LINES
            prefix = "\n".join(lines[:keep])
            if hold_back(prefix) == prefix:
                opening = _MIDDLE if continued else _FIRST
                append_html(view.document(), self._host.paint(f"{opening}{render_inline(prefix)}</p>"))
                self._para_done += sum(len(line) + 1 for line in source.split("\n")[:keep])
                lines, continued = lines[keep:], True
        whole = "\n".join(lines)
        held = hold_back(whole)
        if not held.strip():
            return
        self._mark(view)
        opening = _LAST if continued else "<p>"
        parsed_head = f"<p>{_CONTINUE[0]}<br />\n" if continued else "<p>"
        if held == whole and lines is parsed and markup.startswith(parsed_head):
            drawn = opening + markup[len(parsed_head) :]
        else:
            drawn = f"{opening}{render_inline(held)}</p>"
        append_html(view.document(), self._host.paint(drawn))


def append_html(document: QTextDocument, markup: str) -> None:
    """Append rendered blocks to ``document`` with the formats ``setHtml`` would give them.

    ``insertHtml`` merges the first new block into the block at the cursor,
    losing its format; so a block is opened first with the fragment's own
    first-block format (lists and tables open their own), and the empty block
    Qt puts before an inserted table is taken out again.
    """
    if not markup:
        return
    scratch = QTextDocument()
    scratch.setHtml(markup)
    first = scratch.begin()
    second = first.next()
    table = QTextCursor(scratch).currentTable() is not None or (
        first.length() == 1 and second.isValid() and QTextCursor(second).currentTable() is not None
    )
    cursor = QTextCursor(document)
    cursor.movePosition(QTextCursor.MoveOperation.End)
    after_table = (
        cursor.block().length() == 1
        and cursor.block().previous().isValid()
        and QTextCursor(cursor.block().previous()).currentTable() is not None
    )
    if _blank(document):
        cursor.setBlockFormat(first.blockFormat())
        cursor.setBlockCharFormat(first.charFormat())
    elif (first.textList() is None and not table) or after_table:
        cursor.insertBlock(first.blockFormat(), first.charFormat())
    elif first.textList() is not None and cursor.block().textList() is not None:
        # A list after a list (another bullet starts a new one): it would join the last item.
        cursor.insertBlock(QTextBlockFormat(), QTextCharFormat())
        after_table = True
    before = cursor.position()
    cursor.insertFragment(QTextDocumentFragment(scratch))
    if (table or (after_table and first.textList() is not None)) and before > 0:
        fix = QTextCursor(document)
        fix.setPosition(before)
        if fix.block().length() == 1 and fix.block().previous().isValid():
            fix.deletePreviousChar()


def _last_table(document: QTextDocument) -> QTextTable | None:
    """The table a document ends with (Qt keeps an empty block after it), if it ends with one."""
    end = document.lastBlock()
    if end.length() == 1 and end.previous().isValid():
        end = end.previous()
    return QTextCursor(end).currentTable()


def _blank(document: QTextDocument) -> bool:
    """Nothing drawn yet: one empty block that is not a rule (a rule is a block without text)."""
    rule = QTextBlockFormat.Property.BlockTrailingHorizontalRulerWidth
    return (
        document.isEmpty()
        and document.blockCount() == 1
        and not document.begin().blockFormat().hasProperty(rule)
    )
