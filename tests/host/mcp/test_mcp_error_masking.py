"""An MCP server's error text is masked before it is cut, wherever the key sits."""

from __future__ import annotations

import mcp_types as types

from relavium_desktop.host.mcp.results import ERROR_TEXT_LIMIT, error_text, tool_error

KEY = "ghp_Lq2Wm4Ne6Rb8Tc0Yd2Uf4Ig6Oh8Pj0Ak2SlX"


def _result(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], isError=True)


def _pieces() -> set[str]:
    return {KEY[i:i + 8] for i in range(len(KEY) - 7)}


def test_a_key_at_the_cut_leaves_no_piece() -> None:
    for at in range(ERROR_TEXT_LIMIT - 40, ERROR_TEXT_LIMIT + 2, 3):
        text = error_text(_result("." * at + f" {KEY[:12]}\n{KEY[12:]} end"))
        assert not any(p in text for p in _pieces()), at


def test_a_key_split_across_lines_in_the_error_is_masked_in_the_tool_error() -> None:
    err = tool_error("srv", "t", _result(f"could not use\n{KEY[:20]}\n{KEY[20:]}\nplease check"))
    assert not any(p in err.message for p in _pieces())
    assert err.message.endswith("could not use\n***\nplease check")
