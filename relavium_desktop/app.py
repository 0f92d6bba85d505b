"""The GUI entry point (``relavium-desktop`` / ``python -m relavium_desktop``).

Qt runs on a qasync event loop so every engine call is awaited on the same
loop the window paints from.  Heavy imports stay inside ``main`` so the first
paint is not held up by modules the window does not need yet.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    from relavium_desktop.ui.shell import run_app

    return run_app(list(sys.argv if argv is None else argv))


if __name__ == "__main__":
    sys.exit(main())
