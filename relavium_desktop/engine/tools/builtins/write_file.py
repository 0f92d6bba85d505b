"""write_file: atomic write or O_APPEND append inside the allowed folders.

The result is ``{path, bytesWritten, linesAdded, linesRemoved}``: the line
counts are exact, from a line diff of the file's old and new content (an
append adds its lines and changes an unterminated last line).  On a host
that keeps checkpoints it also carries ``checkpointId``, the record that
lets this write be undone (``relavium undo``, a tool card's Undo).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.tools.builtins.base import ToolArgs
from relavium_desktop.engine.tools.registry import require
from relavium_desktop.engine.tools.tooldef import (
    ByteBound,
    PolicyClass,
    PolicyTarget,
    ToolDef,
    ToolDispatchContext,
)

CONTENT_MAX_BYTES = 8 * 1024 * 1024


class WriteFileArgs(ToolArgs):
    path: str = Field(description="File path relative to the workspace.")
    content: str = Field(description="Text to write (UTF-8).")
    append: bool = Field(default=False, description="Append instead of replacing the file.")
    createParents: bool = Field(default=False, description="Create missing parent folders.")

    @field_validator("path")
    @classmethod
    def _names_a_file(cls, value: str) -> str:
        # "notes/" names a folder: writing it as a file called "notes" (createParents or not)
        # is never what the caller meant.
        if value.replace("\\", "/").rsplit("/", 1)[-1] in ("", ".", ".."):
            raise ValueError("names a folder, not a file (it ends with '/', '.' or '..', or is empty); "
                             "give a file name")
        return value


async def _dispatch(args: WriteFileArgs, host: ToolHost, ctx: ToolDispatchContext) -> Any:
    fs = require(host.fs, "write_file", "filesystem")
    return await fs.write_file(
        args.path, args.content, append=args.append, create_parents=args.createParents
    )


TOOL = ToolDef(
    id="write_file",
    description="Write or append text to a file inside the allowed folders.",
    args_model=WriteFileArgs,
    dispatch=_dispatch,
    policy=PolicyClass(fs_scoped=True, fs_write=True),
    policy_target=lambda a: PolicyTarget(path=a.path),
    byte_bounds={"content": ByteBound(CONTENT_MAX_BYTES)},
)
