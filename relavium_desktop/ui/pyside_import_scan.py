"""Keep PySide6's per-import source scan out of ``linecache`` (and so out of idle memory).

Once PySide6 is imported it sees every later import: its ``__feature__``
support decides whether the new module may switch PySide features (snake_case,
true_property) by reading the module's whole source with
``inspect.getsource`` and looking for "PySide6" in it.  ``inspect`` reads
through ``linecache``, which keeps every line of every module imported after
Qt for the life of the process -- measured at ~8 M characters (~20 MB of
RSS) in a window that has loaded its chats, and a share of the time before
the first paint.

:func:`install` swaps in the same check reading the file directly, so the
answer for each module is unchanged and nothing is cached.  It is called by
the app's entry point; if a PySide6 release drops or renames the hook,
nothing is replaced and PySide6 behaves as it always did.
"""

from __future__ import annotations

import sys
from types import ModuleType

FEATURE_MODULE = "shibokensupport.feature"
HOOK = "_mod_uses_pyside"


def mentions_pyside(module: ModuleType) -> bool:
    """Whether ``module``'s source file mentions PySide6 (False without a source file, as PySide6 has it)."""
    path = getattr(module, "__file__", None)
    if not isinstance(path, str) or not path.endswith(".py"):
        return False
    try:
        with open(path, "rb") as source:
            return b"PySide6" in source.read()
    except OSError:
        return False


def install() -> bool:
    """Replace PySide6's scan with :func:`mentions_pyside`; False when PySide6 has no such hook."""
    import PySide6  # noqa: F401 -- loads shiboken and its feature support, as any Qt import does

    feature = sys.modules.get(FEATURE_MODULE)
    if feature is None or not callable(getattr(feature, HOOK, None)):
        return False
    setattr(feature, HOOK, mentions_pyside)
    return True
