"""Session titles as the sessions list shows them: short, readable, masked."""

from __future__ import annotations

from relavium_desktop.engine.agent.session import TITLE_CHARS, title_for_action, title_from
from relavium_desktop.engine.llm.messages import Message, TextPart

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4"


def test_the_title_is_the_first_user_message_cut_on_a_word_with_whitespace_collapsed() -> None:
    first = "Please   look at\n\nthe pricing module and tell me why the totals are wrong for refunds"
    title = title_from([Message("assistant", (TextPart("Hello!"),)), Message.user(first), Message.user("later")])
    assert title == "Please look at the pricing module and tell me…"
    assert len(title) <= TITLE_CHARS


def test_markdown_and_code_fences_do_not_reach_the_title() -> None:
    asked = "## Bug\n**Why** does `total()` fail? See [the log](https://ci.example/1)\n```python\nimport os\n```"
    assert title_from([Message.user(asked)]) == "Bug Why does total() fail? See the log"
    only_code = "```sql\nSELECT name FROM users WHERE id = 1\n```"
    assert title_from([Message.user(only_code)]) == "SELECT name FROM users WHERE id = 1"
    assert title_from([Message.user("rename snake_case_name to x")]) == "rename snake_case_name to x"


def test_a_credential_in_the_first_message_is_masked() -> None:
    title = title_from([Message.user(f"does {TOKEN} still work with the deploy script on staging?")])
    assert title == "does *** still work with the deploy script on…"


def test_a_message_without_words_leaves_the_default_title() -> None:
    assert title_from([Message.user("   \n ")]) == "New chat"
    assert title_from([]) == "New chat"


def test_a_chat_from_a_clipboard_action_is_titled_by_the_action_and_the_start_of_the_text() -> None:
    text = "The quarterly report shows that revenue grew by twelve percent while costs stayed flat"
    title = title_for_action("Summarize", text)
    assert title == "Summarize: The quarterly report shows that…"
    assert len(title) <= TITLE_CHARS
    assert title_for_action("Explain", "  ") == "Explain"
    assert title_for_action("Translate", f"my key {TOKEN}") == "Translate: my key ***"
