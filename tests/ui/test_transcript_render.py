"""The transcript as a reader sees it: Markdown, code blocks, copy, streaming, untrusted text.

A Transcript is built on its own (no window, the light palette) and fed the
same calls the chat view makes: ``stream`` / ``end_stream`` for an answer,
``add_message`` for a finished one.
"""

from __future__ import annotations

import pytest

from relavium_desktop.ui.chat.code_block import CodeBlock
from relavium_desktop.ui.chat.transcript import Transcript
from relavium_desktop.ui.qt import QApplication, QTextBrowser

ANSWER = """Prices by plan:

| plan | price |
|------|-------|
| free | 0 |
| pro  | 12 |

```python
def total(items):
    return sum(i.price for i in items)
```

Done with `total`.
"""


@pytest.fixture
def transcript(qtbot) -> Transcript:
    view = Transcript()
    qtbot.addWidget(view)
    view.resize(700, 500)
    view.show()
    return view


def test_a_table_and_a_fenced_block_render_as_a_table_and_a_highlighted_code_block(transcript, qtbot) -> None:
    block = transcript.add_message("assistant", ANSWER)
    prose = block.body.document()
    # The table is a real table: one QTextTable with the header and both rows.
    from relavium_desktop.ui.qt import QTextCursor

    cursor = QTextCursor(prose)
    tables = []
    while not cursor.atEnd():
        table = cursor.currentTable()
        if table is not None and table not in tables:
            tables.append(table)
        cursor.movePosition(QTextCursor.MoveOperation.NextBlock)
    assert len(tables) == 1 and (tables[0].rows(), tables[0].columns()) == (3, 2)
    (code,) = block.code_blocks()
    assert code.language == "python" and code.caption.text() == "python"
    # Highlighted: the keyword and the function name are coloured differently from plain text.
    assert len(colours(code.view.toHtml())) >= 3, code.view.toHtml()
    assert "def total(items):" in code.view.toPlainText()
    # The prose after the block is its own paragraph, with inline code kept.
    assert block.shown_text().rstrip().endswith("Done with total.")


def test_the_copy_button_puts_the_exact_code_on_the_clipboard(transcript, qtbot) -> None:
    block = transcript.add_message("assistant", ANSWER)
    (code,) = block.code_blocks()
    QApplication.clipboard().setText("something else")
    qtbot.mouseClick(code.copy_button, qtbot_left())
    assert QApplication.clipboard().text() == "def total(items):\n    return sum(i.price for i in items)\n"
    assert code.copy_button.text() == "Copied"
    qtbot.waitUntil(lambda: code.copy_button.text() == "Copy", timeout=3_000)


def test_a_fence_without_a_language_is_a_plain_code_block(transcript) -> None:
    block = transcript.add_message("assistant", "Run:\n\n```\nmake test\n```\n")
    (code,) = block.code_blocks()
    assert code.language == "" and code.code == "make test\n"
    assert len(colours(code.view.toHtml())) == 1  # the code surface's text colour, nothing highlighted


def test_streaming_appends_to_the_last_block_and_leaves_earlier_blocks_alone(transcript, qtbot) -> None:
    first = transcript.add_message("user", "Explain it")
    earlier = transcript.add_message("assistant", "An earlier answer with `code`.")
    earlier_parts = list(earlier.parts)
    earlier_html = earlier.body.toHtml()
    flushes: list[int] = []
    transcript.flushed.connect(flushes.append)
    for word in ("Here ", "is ", "**the** ", "answer ", "```py\nx = 1\n```\n"):
        transcript.stream(word)
        qtbot.waitUntil(lambda: not transcript._pending, timeout=2_000)
    streaming = transcript.messages()[-1]
    assert streaming is not earlier and len(transcript.blocks) == 3
    # While streaming: Markdown drawn as it arrives (the bold is bold, no raw marker shows).
    assert "Here is the answer" in streaming.body.toPlainText() and "**" not in streaming.shown_text()
    assert len(flushes) >= 2
    transcript.end_stream()
    # The finished answer rendered itself once: prose, then its code block.
    assert streaming.shown_text().startswith("Here is the answer")
    assert [type(p) for p in streaming.parts] == [type(streaming.body), CodeBlock]
    # The earlier blocks are the same widgets, untouched.
    assert transcript.blocks[:2] == [first, earlier]
    assert earlier.parts == earlier_parts and earlier.body.toHtml() == earlier_html


def test_model_html_is_shown_as_text_and_only_web_links_are_links(transcript, monkeypatch) -> None:
    from relavium_desktop.ui.chat import rich_text

    opened: list[str] = []
    monkeypatch.setattr(rich_text.QDesktopServices, "openUrl", lambda url: opened.append(url.toString()))
    text = ('<img src="/etc/passwd"><b>bold?</b> [run](javascript:alert(1)) [file](file:///etc/passwd) '
            "[docs](https://example.com/docs) ![pic](/home/me/secret.png)")
    block = transcript.add_message("assistant", text)
    shown = block.shown_text()
    assert '<img src="/etc/passwd"><b>bold?</b>' in shown
    assert "[image: pic]" in shown
    html = block.body.toHtml()
    assert "<img" not in html and "javascript:" not in html.replace("[run](javascript:alert(1))", "")
    anchors = [a for a in html.split("href=")[1:]]
    assert len(anchors) == 1 and anchors[0].startswith('"https://example.com/docs"')
    browser: QTextBrowser = block.body
    browser.anchorClicked.emit(rich_text.QUrl("https://example.com/docs"))
    browser.anchorClicked.emit(rich_text.QUrl("file:///etc/passwd"))
    assert opened == ["https://example.com/docs"]


def test_a_user_message_stays_the_text_they_typed(transcript) -> None:
    block = transcript.add_message("user", "use *stars* and `ticks` as typed")
    assert block.shown_text() == "use *stars* and `ticks` as typed"
    assert block.code_blocks() == []


def colours(html: str) -> set[str]:
    import re

    return {c.lower() for c in re.findall(r"color:\s*(#[0-9a-fA-F]{6})", html.split("<body", 1)[1])}


def qtbot_left():
    from relavium_desktop.ui.qt import Qt

    return Qt.MouseButton.LeftButton


def _history(turns: int) -> list:
    from relavium_desktop.engine.llm.messages import Message, TextPart, ToolCallPart, ToolResultPart

    messages = []
    for n in range(turns):
        call = ToolCallPart("call_0", "read_file", {"path": f"src/m{n}.py"})  # ids repeat, as some providers send
        messages += [
            Message.user(f"question {n}"),
            Message("assistant", (call,)),
            Message("tool", (ToolResultPart("call_0", "read_file",
                                            f'{{"content": "x = {n}\\n", "sizeBytes": {6 + len(str(n))}}}'),)),
            Message("assistant", (TextPart(f"answer **{n}**"),)),
        ]
    return messages


def test_a_long_history_builds_what_is_in_view_and_the_rest_while_scrolling_up(transcript, qtbot) -> None:
    from relavium_desktop.ui.chat.transcript import HISTORY_PAGE

    transcript.show_history(_history(60))  # 180 blocks: question, card, answer
    assert len(transcript.blocks) == HISTORY_PAGE and transcript.unbuilt == 180 - HISTORY_PAGE
    # The newest turn is on screen, scrolled to the bottom.
    bar = transcript.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0 and bar.value() == bar.maximum())
    assert transcript.messages()[-1].shown_text() == "answer 59"
    anchor = transcript.blocks[0]
    bar.setValue(0)
    qtbot.waitUntil(lambda: transcript.blocks[0] is not anchor)  # a page went in above
    qtbot.wait(50)
    # The reader's place is kept: the block they were looking at did not move on screen.
    assert bar.value() > 0
    top = transcript.widget().layout().contentsMargins().top()  # the column's top padding
    assert abs(anchor.mapTo(transcript.viewport(), anchor.rect().topLeft()).y() - top) <= 2

    def scrolled_to_the_top() -> bool:
        bar.setValue(0)
        return transcript.unbuilt == 0

    qtbot.waitUntil(scrolled_to_the_top, timeout=10_000)
    # Earlier turns went in above, in order, each card with its own result.
    assert [m.shown_text() for m in transcript.messages()[:2]] == ["question 0", "answer 0"]
    assert [c.summary_text for c in transcript.cards()[:2]] == ["Read src/m0.py · 1 line", "Read src/m1.py · 1 line"]
    # Pages far below the screen let their widgets go; the newest turn is among them.
    qtbot.waitUntil(lambda: "answer 59" not in [m.shown_text() for m in transcript.messages()])
    assert transcript.released > 0 and len(transcript.blocks) < 180

    # Scrolled back down, they are built again, in place, with the last answer's actions.
    def scrolled_to_the_bottom() -> bool:
        bar.setValue(bar.maximum())
        return bool(transcript.messages()) and transcript.messages()[-1].shown_text() == "answer 59"

    qtbot.waitUntil(scrolled_to_the_bottom, timeout=10_000)
    last = transcript.messages()[-1]
    assert last.regenerate_button.isVisibleTo(last)
    shown = [m.shown_text() for m in transcript.messages()]
    assert shown == sorted(shown, key=lambda t: (int(t.split()[1]), t.startswith("answer")))


def test_switching_to_dark_recolours_code_diffs_and_cards_already_shown(
    make_window, chat, qtbot, llm_server
) -> None:
    from relavium_desktop.ui.theme.palette import DARK, LIGHT
    from tests.fixtures.llm_server import Reply
    from tests.ui.chat_driver import type_and_enter

    chat.window().context.set_mode("accept-edits")
    llm_server.script(Reply.call("write_file", {"path": "notes.md", "content": "one\n"}),
                      Reply.say("```python\nprint('hi')\n```\n"))
    with qtbot.waitSignal(chat.turn_finished, timeout=15_000):
        type_and_enter(qtbot, chat, "write and show")
    (code,) = chat.transcript.messages()[-1].code_blocks()
    (card,) = chat.transcript.cards()
    card.set_expanded(True)
    from relavium_desktop.ui.chat.highlight import highlight_html
    from relavium_desktop.ui.theme.palette import pygments_style_name

    def expected(palette) -> set[str]:
        return colours("<body>" + highlight_html("print('hi')\n", "python", style=pygments_style_name(palette),
                                                 colour=palette["code_text"]))

    light_code = colours(code.view.toHtml())
    assert light_code and light_code <= expected(LIGHT)
    assert LIGHT["diff_add_bg"] in card.result_view.findChild(QTextBrowser).toHtml()

    with qtbot.waitSignal(chat.window().context.theme.changed, timeout=2_000):
        chat.window().context.theme.set_choice("dark")
    dark_code = colours(code.view.toHtml())
    assert dark_code and dark_code <= expected(DARK) and dark_code.isdisjoint(light_code)
    diff = card.result_view.findChild(QTextBrowser).toHtml()
    assert DARK["diff_add_bg"] in diff and LIGHT["diff_add_bg"] not in diff
    assert card.expanded  # the open card stayed open, redrawn
