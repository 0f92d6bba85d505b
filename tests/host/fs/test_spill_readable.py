"""The model can read the spill file a truncation marker names, and never write there."""

from __future__ import annotations

import re
from pathlib import Path

from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS
from relavium_desktop.engine.tools.registry import ToolRegistry
from relavium_desktop.engine.tools.tooldef import ToolCall
from relavium_desktop.host.assembly import HostSettings, build_host
from tests.helpers import make_ctx


async def test_spill_named_in_the_marker_is_readable_not_writable(tmp_path: Path, relavium_home: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    big = "\n".join(f"line {i}" for i in range(5000))
    (workspace / "big.txt").write_text(big)
    host = build_host(HostSettings(workspace=workspace, tier="sandboxed", home=relavium_home))
    registry = ToolRegistry(BUILTIN_TOOLS, host)
    ctx = make_ctx("read_file", "write_file", "list_directory")

    first = await registry.dispatch(ToolCall("read_file", {"path": "big.txt"}), ctx)
    assert first.ok and first.truncated and first.spill is not None
    named = re.search(r"saved to (\S+) \.\.\.\]", str(first.model_facing))
    assert named and named.group(1) == first.spill.path

    again = await registry.dispatch(ToolCall("read_file", {"path": first.spill.path}), ctx)
    assert again.ok, again.error
    assert again.result["content"] == Path(first.spill.path).read_text()

    listed = await registry.dispatch(
        ToolCall("list_directory", {"path": str(Path(first.spill.path).parent)}), ctx
    )
    assert listed.ok, listed.error

    write = await registry.dispatch(
        ToolCall("write_file", {"path": first.spill.path, "content": "tampered"}), ctx
    )
    assert write.error is not None and write.error.reason == "outside_scope"
    assert Path(first.spill.path).read_text() != "tampered"
    # The rest of the data dir stays out of reach.
    (relavium_home / "history.db").write_text("x")
    other = await registry.dispatch(ToolCall("read_file", {"path": str(relavium_home / "history.db")}), ctx)
    assert other.error is not None and other.error.reason == "outside_scope"
