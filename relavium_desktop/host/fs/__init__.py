"""The filesystem host: path policy, descriptor walk, floors, and the FsCapability.

``FsHost(PathPolicy.create(workspace, tier=..., surface=..., extra_roots=...))``
is what assembly wires; ``issue_scratch_root`` is the only way to a scratch
descriptor.
"""

from relavium_desktop.host.fs.fshost import FsHost
from relavium_desktop.host.fs.policy import PathPolicy, effective_tier
from relavium_desktop.host.fs.scratch import ScratchRefused, ScratchRoot, issue_scratch_root

__all__ = ["FsHost", "PathPolicy", "ScratchRefused", "ScratchRoot", "effective_tier", "issue_scratch_root"]
