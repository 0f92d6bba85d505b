"""A preview's head and tail never cut through a credential: a cut key is one no mask can find."""

from __future__ import annotations

from relavium_desktop.engine.tools.bounding import Measured, preview
from relavium_desktop.engine.tools.masking import mask_text
from relavium_desktop.engine.tools.tooldef import ResultLimits

KEY = "sk-proj-T5vznXXsV6QfVOkihflab6CgKypfPQNxqpjuIPCu"


def _pieces() -> set[str]:
    return {KEY[i:i + 8] for i in range(len(KEY) - 7)}


def test_no_cut_position_leaves_a_piece_of_a_key_after_masking() -> None:
    limits = ResultLimits(max_bytes=1_000, max_lines=2_000)
    for shift in range(0, 120, 3):  # slide the keys across both cut points
        row = f"{KEY[:20]}\n{KEY[20:]} and {KEY}\n"
        text = "." * shift + row * 60
        shown = mask_text(preview(Measured.of(text), limits, None))
        assert not any(p in shown for p in _pieces()), (shift, shown)
        assert "truncated" in shown


def test_text_without_credentials_is_cut_as_before() -> None:
    limits = ResultLimits(max_bytes=1_000, max_lines=2_000)
    text = "".join(f"line {i:04d} plain words\n" for i in range(400))
    shown = preview(Measured.of(text), limits, None)
    assert shown.startswith("line 0000") and shown.endswith("line 0399 plain words\n")
