"""KnownTools: plain ids plus ``mcp_<server>_*`` for configured servers, and nothing for ``mcp:``."""

from __future__ import annotations

from relavium_desktop.engine.tools.known_ids import KnownTools, as_known, mcp_prefix


def test_ids_and_configured_mcp_servers_resolve() -> None:
    known = KnownTools(frozenset({"read_file"}), frozenset({"files", "my.server"}))
    assert "read_file" in known and "write_file" not in known
    assert "mcp_files_search" in known and "mcp_my_server_fetch" in known
    assert "mcp_files_" not in known  # a server prefix alone names no tool
    assert "mcp_other_search" not in known and "mcp:files/search" not in known
    assert list(known) == ["read_file"] and len(known) == 1


def test_extending_keeps_the_original() -> None:
    base = as_known(["a"])
    more = base.with_ids(["b"]).with_servers(["s"])
    assert "b" not in base and "b" in more and "mcp_s_x" in more and "mcp_s_x" not in base
    assert mcp_prefix("a b/c") == "mcp_a_b_c_"
