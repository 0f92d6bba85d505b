"""The window's words for a provider test's result: what happened, then what to do on this page.

The test (``providers/check.py``) returns what happened and which next step
would fix it; the fix is worded here for the window -- the key field above
the result, the "Allow a local endpoint" box -- and in ``cli/providers_cmd.py``
for the terminal, so neither surface shows the other's wording.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from relavium_desktop.application.providers import ConnectionResult

APP_NEXT_STEPS = {
    "set_key": "Add or replace the API key {where}.",
    "allow_local": "Tick “Allow a local endpoint” to allow it.",
}


def shown_text(result: ConnectionResult, *, where: str = "above") -> str:
    """The result as the Settings page and the welcome flow show it; ``where`` the key field is from it."""
    step = APP_NEXT_STEPS.get(result.next_step) if result.next_step else None
    return f"{result.message} {step.format(where=where)}" if step else result.message
