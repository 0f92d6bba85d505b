"""The entry points' first question: is this process one of Relavium's own helper programs?

In the installed bundle the orphan watcher and the sandbox launcher run as
``relavium --relavium-helper NAME ...`` (there is no interpreter to run their
scripts with); both entry points ask here before anything else.
"""

from __future__ import annotations

from relavium_desktop.host.process.helper_programs import HELPER_FLAG, run_helper_if_asked

__all__ = ["HELPER_FLAG", "run_helper_if_asked"]
