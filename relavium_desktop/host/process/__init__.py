"""The host's process capability: shell-free spawns in a built environment.

``ProcessHost`` implements :class:`relavium_desktop.engine.host.ProcessCapability`.
Modules: ``executables`` (host-controlled search path), ``environment`` (the
base and git environments), ``capture`` (bounded head/tail + streaming
spill), ``runner`` (spawn, timeout, cancellation), ``tree`` (process-group
and tree kills), ``guard`` (children die with this process, even on kill -9:
parent-death signal plus the ``guard_main`` watcher), ``git`` (the hardened
git runner), ``cwd`` (the fallback working-directory resolver).
"""

from __future__ import annotations

from relavium_desktop.host.process.cwd import CwdResolver, workspace_cwd_resolver
from relavium_desktop.host.process.executables import COMMAND_PATH_VAR, default_search_path
from relavium_desktop.host.process.host import ProcessHost

__all__ = [
    "COMMAND_PATH_VAR",
    "CwdResolver",
    "ProcessHost",
    "default_search_path",
    "workspace_cwd_resolver",
]
