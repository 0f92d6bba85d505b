"""Settings → Providers → "Test connection": re-exported from :mod:`relavium_desktop.providers.check`.

The test itself moved below the UI so ``relavium providers test`` runs the
very same request; these names stay importable here for the settings page.
"""

from __future__ import annotations

from relavium_desktop.providers.check import (
    DEFAULT_TEST_MODELS,
    OPT_IN_HINT,
    TEST_TIMEOUT_S,
    ConnectionResult,
    Outcome,
    classify,
    effective_entry,
    pick_test_model,
    run_connection_test,
)

__all__ = [
    "DEFAULT_TEST_MODELS",
    "OPT_IN_HINT",
    "TEST_TIMEOUT_S",
    "ConnectionResult",
    "Outcome",
    "classify",
    "effective_entry",
    "pick_test_model",
    "run_connection_test",
]
