"""An answer streams in as rendered Markdown: no raw fence, pipe, bullet or emphasis marker ever shows.

A Transcript is built on its own (the light palette) and fed what the chat
view feeds it: ``stream`` for each token and ``end_stream`` at the end; each
chunk is flushed at once (as the coalescing timer would) so what the widgets
show can be read after every chunk.  What is read is what a person sees: the
plain text of every visible text view and every code block.
"""

from __future__ import annotations

import re

import pytest

from relavium_desktop.ui.chat.code_block import CodeBlock
from relavium_desktop.ui.chat.message_block import BUBBLE_MAX_WIDTH, MARK_SIZE, MessageBlock
from relavium_desktop.ui.chat.rich_text import FittedText
from relavium_desktop.ui.chat.stream_render import SEGMENT_CHARS
from relavium_desktop.ui.chat.transcript import Transcript
from relavium_desktop.ui.qt import QFont, QLabel, QTextCursor, QToolButton

LONG_LINES = "\n".join(f"Line {n} of a long paragraph keeps *going* with `n = {n}` in it." for n in range(8))
ANSWER = f"""The **pricing** rule uses `annual()` and a [guide](https://example.com/guide) to decide.

```python
def annual(price: int) -> int:
    return price * 10
```

| plan | monthly | annual |
|------|--------:|-------:|
| free | 0 | 0 |
| pro | 12 | 120 |

- first, with **bold**
- second, with `code`
* third

{LONG_LINES}

Done: see *above*.
"""


@pytest.fixture
def transcript(qtbot) -> Transcript:
    view = Transcript()
    qtbot.addWidget(view)
    view.resize(760, 600)
    view.show()
    return view


def chunks(text: str, offset: int) -> list[str]:
    """``text`` in pieces of 3 to 7 characters (the sizes cycle, shifted by ``offset``)."""
    sizes = [3, 4, 5, 6, 7]
    out, at, i = [], 0, offset
    while at < len(text):
        size = sizes[i % len(sizes)]
        out.append(text[at : at + size])
        at, i = at + size, i + 1
    return out


def shown(block: MessageBlock) -> str:
    """What the message's widgets show now: every visible text view's text and every code block's."""
    texts = []
    for part in block.parts:
        if isinstance(part, CodeBlock):
            texts.append(part.view.toPlainText())
        elif isinstance(part, FittedText) and part.isVisibleTo(block):
            texts.append(part.document().toPlainText())
    return "\n".join(texts)


def raw_markers(text: str) -> list[str]:
    found = [marker for marker in ("```", "|---", "|----", "**", "`") if marker in text]
    for line in text.split("\n"):
        if re.match(r"\s*\| ", line):
            found.append(f"table pipe: {line!r}")
        if re.match(r"\s*[-*] ", line):
            found.append(f"bullet: {line!r}")
    return found


def stream(transcript: Transcript, pieces: list[str]) -> list[tuple[str, str]]:
    """Stream ``pieces`` one flush each; return (text so far, what showed) whenever a raw marker showed."""
    seen: list[tuple[str, str]] = []
    so_far = ""
    for piece in pieces:
        transcript.stream(piece)
        transcript.flush()
        so_far += piece
        block = transcript.messages()[-1]
        if raw_markers(shown(block)):
            seen.append((so_far[-40:], shown(block)[-120:]))
    return seen


@pytest.mark.parametrize("offset", range(5))
def test_no_raw_markdown_marker_shows_after_any_chunk_and_the_end_reads_like_a_full_render(
    transcript, offset
) -> None:
    pieces = chunks(ANSWER, offset)
    # The chunking really cuts through a fence marker and through table rows.
    cuts = [sum(len(p) for p in pieces[: i + 1]) for i in range(len(pieces))]
    lines = ANSWER.split("\n")
    starts = [sum(len(x) + 1 for x in lines[:i]) for i in range(len(lines))]

    def cut_inside(prefix: str) -> bool:
        return any(
            s < c <= s + len(line)
            for s, line in zip(starts, lines, strict=True)
            if line.startswith(prefix)
            for c in cuts
        )

    fence_cut, row_cut = cut_inside("```"), cut_inside("|")
    assert fence_cut and row_cut

    assert stream(transcript, pieces) == []
    transcript.end_stream()
    streamed = transcript.messages()[-1]
    assert raw_markers(shown(streamed)) == []
    full = MessageBlock("assistant", ANSWER)
    full.complete = True
    assert streamed.shown_text() == full.shown_text()
    # The pieces are what they should be: prose, the highlighted code, prose (table, list, paragraphs).
    assert [type(p) for p in streamed.parts] == [FittedText, CodeBlock, FittedText]
    assert streamed.code_blocks()[0].code == "def annual(price: int) -> int:\n    return price * 10\n"
    assert "Done: see above." in streamed.shown_text() and "n = 7 in it." in streamed.shown_text()


def test_finish_keeps_the_widgets_and_text_of_the_blocks_before_the_last(transcript) -> None:
    for piece in chunks(ANSWER.removesuffix("Done: see *above*.\n") + "Done: see *ab", 0):
        transcript.stream(piece)
        transcript.flush()
    block = transcript.messages()[-1]
    prose, code, rest = block.parts
    documents = [prose.document(), rest.document()]
    first_text = prose.document().toPlainText()
    table_cursor = QTextCursor(rest.document())
    while not table_cursor.atEnd() and table_cursor.currentTable() is None:
        table_cursor.movePosition(QTextCursor.MoveOperation.NextBlock)
    table = table_cursor.currentTable()
    assert table is not None and (table.rows(), table.columns()) == (3, 3)
    assert shown(block).endswith("Done: see")  # the unclosed emphasis is held back

    transcript.stream("ove*.\n")
    transcript.end_stream()
    # No re-render: the same widgets, the same documents, the same table object; only the end grew.
    assert block.parts == [prose, code, rest]
    assert [prose.document(), rest.document()] == documents
    assert prose.document().toPlainText() == first_text
    assert table_cursor.currentTable() is table and (table.rows(), table.columns()) == (3, 3)
    assert shown(block).endswith("Done: see above.")


def test_an_unclosed_fence_is_a_code_block_growing_line_by_line(transcript) -> None:
    transcript.stream("Try this:\n\n```bash\nmake te")
    transcript.flush()
    block = transcript.messages()[-1]
    (code,) = block.code_blocks()
    assert code.language == "bash" and code.code == ""  # the partial line waits for its end
    transcript.stream("st\nmake lint\n`")
    transcript.flush()
    assert block.code_blocks() == [code] and code.view.toPlainText() == "make test\nmake lint"
    transcript.stream("``\nAfter.")
    transcript.flush()
    assert code.code == "make test\nmake lint\n" and shown(block).endswith("After.")


def test_a_table_renders_as_soon_as_its_delimiter_row_arrives_and_grows_by_complete_rows(transcript) -> None:
    def tables(block: MessageBlock) -> list[tuple[int, int]]:
        found = []
        for part in block.parts:
            cursor = QTextCursor(part.document()) if isinstance(part, FittedText) else None
            while cursor is not None and not cursor.atEnd():
                table = cursor.currentTable()
                if table is not None and (table.rows(), table.columns()) not in found:
                    found.append((table.rows(), table.columns()))
                cursor.movePosition(QTextCursor.MoveOperation.NextBlock)
        return found

    transcript.stream("| a | b |\n|---|-")
    transcript.flush()
    block = transcript.messages()[-1]
    assert tables(block) == [] and shown(block).strip() == ""  # the header waits for its delimiter row
    transcript.stream("--|\n| 1 | 2")
    transcript.flush()
    assert tables(block) == [(1, 2)] and "1" not in shown(block)  # the partial row is held back
    transcript.stream(" |\n")
    transcript.flush()
    assert tables(block) == [(2, 2)]


def test_inline_markers_render_once_they_close_and_are_held_back_until_then(transcript) -> None:
    transcript.stream("Use **bo")
    transcript.flush()
    block = transcript.messages()[-1]
    assert shown(block) == "Use"
    transcript.stream("ld** and `co")
    transcript.flush()
    assert shown(block) == "Use bold and"
    transcript.stream("de` and [the do")
    transcript.flush()
    assert shown(block) == "Use bold and code and"
    transcript.stream("cs](https://example.com) now")
    transcript.flush()
    assert shown(block) == "Use bold and code and the docs now"
    document = block.body.document()
    bold = document.find("bold")
    assert bold.charFormat().fontWeight() == QFont.Weight.Bold
    assert 'href="https://example.com"' in block.body.toHtml()


def test_a_long_paragraph_is_re_parsed_only_from_its_last_lines(transcript) -> None:
    """Each flush's cost stays with the open block's end, not the whole answer."""
    for n in range(300):
        transcript.stream(f"streaming **token {n}** into the view. \n")
        transcript.flush()
    block = transcript.messages()[-1]
    render = block._stream  # the renderer's own bookkeeping: where the re-parsed tail starts
    assert len(block.text) - (render.done + render._para_done) < SEGMENT_CHARS + 100
    transcript.end_stream()
    full = MessageBlock("assistant", block.text)
    full.complete = True
    assert block.shown_text() == full.shown_text()
    assert "**" not in block.shown_text() and block.shown_text().count("token") == 300


def test_a_question_is_a_bubble_on_the_right_and_an_answer_sits_beside_the_app_mark(
    transcript, qtbot
) -> None:
    question = transcript.add_message("user", "Can you simplify it?")
    answer = transcript.add_message("assistant", "Yes: one table of rules.")
    qtbot.waitUntil(lambda: question.bubble.width() > 0 and answer.mark.isVisible())
    # The bubble: a soft surface, at most the design's width, against the right of the column.
    assert question.bubble.property("surface") == "bubble"
    assert question.bubble.width() <= BUBBLE_MAX_WIDTH
    right = question.bubble.mapTo(question, question.bubble.rect().topRight()).x()
    assert question.width() - right <= 2 and question.bubble.width() < question.width() / 2
    # The answer: a small soft-accent mark at its left, the text beside it.
    assert (answer.mark.width(), answer.mark.height()) == (MARK_SIZE, MARK_SIZE) == (28, 28)
    assert answer.mark.property("surface") == "accent-soft" and not answer.mark.pixmap().isNull()
    assert answer.body.mapTo(answer, answer.body.rect().topLeft()).x() > answer.mark.width()
    # No "You" / "Assistant" titles shown; the roles are the blocks' accessible names.
    titles = [label.text() for block in (question, answer) for label in block.findChildren(QLabel)]
    assert "You" not in titles and "Assistant" not in titles
    assert (question.accessibleName(), answer.accessibleName()) == ("You", "Assistant")
    # The actions are small ghost icon buttons with names, under the text.
    answer.set_actions(regenerate=True)
    for button in (answer.copy_button, answer.regenerate_button, question.copy_button):
        assert (
            isinstance(button, QToolButton)
            and button.accessibleName()
            and button.property("variant") == "ghost"
        )
    below = answer.copy_button.mapTo(answer, answer.copy_button.rect().topLeft()).y()
    assert below >= answer.body.mapTo(answer, answer.body.rect().bottomLeft()).y()


def test_code_blocks_have_a_language_header_and_tables_no_grid(transcript) -> None:
    from relavium_desktop.ui.theme.palette import LIGHT

    block = transcript.add_message("assistant", ANSWER)
    (code,) = block.code_blocks()
    assert code.property("surface") == "code" and code.caption.text() == "python"
    assert code.copy_button.text() == "Copy" and code.copy_button.property("variant") == "ghost"
    html = block.parts[2].toHtml()
    assert 'border="1"' not in html and "border-bottom" in html.replace("border-bottom-", "border-bottom")
    # The header is in the muted role, the rules in the border role: palette colours, no literals here.
    header = block.parts[2].document().find("monthly")
    assert header.charFormat().foreground().color().name() == LIGHT["muted"].lower()


@pytest.mark.parametrize("text", ["---\n\nAfter a rule.\n", "Intro.\n\n---\n\nAfter a rule.\n"])
def test_a_horizontal_rule_streamed_a_character_at_a_time_stays_a_rule(transcript, text) -> None:
    from relavium_desktop.ui.qt import QTextBlockFormat

    def rules(block: MessageBlock) -> int:
        found = 0
        for part in block.parts:
            if isinstance(part, FittedText):
                line = part.document().begin()
                while line.isValid():
                    found += line.blockFormat().hasProperty(
                        QTextBlockFormat.Property.BlockTrailingHorizontalRulerWidth
                    )
                    line = line.next()
        return found

    for char in text:
        transcript.stream(char)
        transcript.flush()
    transcript.end_stream()
    streamed = transcript.messages()[-1]
    full = MessageBlock("assistant", text)
    assert rules(streamed) == rules(full) == 1
    assert streamed.shown_text() == full.shown_text()


def _table_cells(document) -> list[tuple[str, str, bool]]:
    """Every cell of a document's first table: its text, its alignment and whether it is bold."""
    cursor = QTextCursor(document)
    while not cursor.atEnd() and cursor.currentTable() is None:
        cursor.movePosition(QTextCursor.MoveOperation.NextBlock)
    table = cursor.currentTable()
    assert table is not None
    cells = []
    for row in range(table.rows()):
        for column in range(table.columns()):
            cell = table.cellAt(row, column)
            first = cell.firstCursorPosition()
            first.setPosition(cell.lastCursorPosition().position(), QTextCursor.MoveMode.KeepAnchor)
            inside = cell.firstCursorPosition()
            inside.movePosition(QTextCursor.MoveOperation.NextCharacter)
            cells.append(
                (
                    first.selectedText(),
                    str(first.blockFormat().alignment()),
                    inside.charFormat().fontWeight() == QFont.Weight.Bold,
                )
            )
    return cells


def test_rows_added_to_an_open_table_look_like_the_same_rows_rendered_at_once(transcript) -> None:
    head = "Prices:\n\n| plan | monthly | note |\n|:-----|--------:|------|\n"
    rows = [f"| p{n} | {10 + n} | **top** and `code` {n} |\n" for n in range(6)]
    transcript.stream(head)
    transcript.flush()
    block = transcript.messages()[-1]
    for count, row in enumerate(rows, start=1):
        for piece in chunks(row, count):
            transcript.stream(piece)
            transcript.flush()
            assert raw_markers(shown(block)) == []
        full = MessageBlock("assistant", head + "".join(rows[:count]))
        # Each row added to the drawn table reads, aligns and weighs like the table rendered whole.
        assert _table_cells(block.body.document()) == _table_cells(full.body.document())
    assert _table_cells(block.body.document())[-1][::2] == ("top and code 5", True)
    transcript.stream("\nAfter the table.\n")
    transcript.end_stream()
    full = MessageBlock("assistant", head + "".join(rows) + "\nAfter the table.\n")
    full.complete = True
    assert block.shown_text() == full.shown_text()


FENCE = '''Here:

  ~~~python
  def annual(price: int) -> int:
      """The yearly price:
      ten months, two free.
  ~~~~ not a close: a closing line has no words
      """
      return price * 10
  ~~~

Done.
'''


def _colours(code: CodeBlock) -> list[str]:
    """The colour of every character of a code block, in order."""
    document, out = code.view.document(), []
    cursor = QTextCursor(document)
    while not cursor.atEnd():
        cursor.movePosition(QTextCursor.MoveOperation.NextCharacter)
        out.append(cursor.charFormat().foreground().color().name())
    return out


def test_a_streamed_fence_reads_as_its_markdown_and_settles_to_the_colours_of_a_whole_highlight(
    transcript, qtbot
) -> None:
    from relavium_desktop.ui.chat.markdown import top_blocks

    so_far = ""
    for piece in chunks(FENCE, 2):
        transcript.stream(piece)
        transcript.flush()
        so_far += piece
        block = transcript.messages()[-1]
        assert raw_markers(shown(block)) == []
        opened = [b for b in top_blocks(so_far) if b.kind == "code"]
        if opened and not opened[0].closed and "\n" in so_far[opened[0].start :]:
            (code,) = block.code_blocks()  # the open fence shows exactly its complete lines, indent removed
            assert code.code == opened[0].code[: opened[0].code.rfind("\n") + 1]
    transcript.end_stream()
    (code,) = block.code_blocks()
    assert code.code == top_blocks(FENCE)[1].code and "\n~~~~ not a close" in code.code
    whole = CodeBlock(code.code, "python")
    # The docstring's middle lines came in apart from its opening quotes, so at first they look like code.
    assert not code.settled and _colours(code) != _colours(whole)
    qtbot.waitUntil(lambda: code.settled, timeout=5_000)
    assert code.view.toPlainText() == whole.view.toPlainText()
    assert _colours(code) == _colours(whole)
    full = MessageBlock("assistant", FENCE)
    full.complete = True
    assert block.shown_text() == full.shown_text()


def test_a_flush_that_builds_a_code_block_draws_its_code_on_the_next_turn_without_another_flush(
    transcript, qtbot
) -> None:
    transcript.stream("Intro.\n\n```python\nx = 1\ny = 2\n```\n\nAfter.\n\n```bash\nmake test\n")
    transcript.flush()
    block = transcript.messages()[-1]
    # Building a code block ends a flush's work; the rest follows on the loop's next turns, unasked.
    qtbot.waitUntil(lambda: len(block.code_blocks()) == 2 and block.code_blocks()[1].code == "make test\n")
    first = block.code_blocks()[0]
    assert first.code == "x = 1\ny = 2\n" and "After." in shown(block)
    assert raw_markers(shown(block)) == []


def test_a_fence_streamed_with_windows_line_ends_shows_the_code_the_parser_reads(transcript) -> None:
    text = "Run:\r\n\r\n```bash\r\nmake test\r\nmake lint\r\n```\r\n\r\nDone.\r\n"
    for piece in chunks(text, 1):
        transcript.stream(piece)
        transcript.flush()
        for code in transcript.messages()[-1].code_blocks():
            assert "\r" not in code.code and "\r" not in code.view.toPlainText()
    transcript.end_stream()
    block = transcript.messages()[-1]
    assert [c.code for c in block.code_blocks()] == ["make test\nmake lint\n"]
    full = MessageBlock("assistant", text)
    full.complete = True
    assert block.shown_text() == full.shown_text()
