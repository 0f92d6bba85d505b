"""Which secrets are set, asked of the keyring in a short-lived child process.

Why: the window checks provider readiness right after its first paint, and
asking the keyring in-process loads keyring's backend stack (the entry-point
scan, secretstorage, jeepney, cryptography: ~12 MB) into a window that may
then sit idle for hours without needing a key.  A child runs the very same
detection and lookup (:class:`~relavium_desktop.host.secrets.SecretStore`,
same environment) and answers only present / not present per name -- no
value ever crosses the pipe.  Once keyring is loaded in this process anyway
(a key was really needed), or in a frozen bundle (no ``python -m``), or when
the child fails in any way, the caller asks in-process instead.

    python -m relavium_desktop.host.secret_presence NAME...

prints one JSON object: ``{"present": {NAME: bool}}``, or
``{"unavailable": MESSAGE}`` when the keyring cannot be asked.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence

CHILD_TIMEOUT_S = 60.0  # a locked keyring may wait for the user to unlock it


class ChildFailed(Exception):
    """The child gave no usable answer: ask in-process instead."""


def child_usable() -> bool:
    """Whether a child is worth it: keyring not loaded here yet, and a Python to run it with."""
    return "keyring" not in sys.modules and not getattr(sys, "frozen", False)


def presence_in_child(names: Sequence[str]) -> dict[str, bool] | str:
    """``{name: present}``, or the keyring's unavailability message; raises :class:`ChildFailed`."""
    try:
        done = subprocess.run(
            [sys.executable, "-m", __name__, *names],
            capture_output=True,
            text=True,
            timeout=CHILD_TIMEOUT_S,
            check=False,
            stdin=subprocess.DEVNULL,
        )
        answer = json.loads(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else None
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        raise ChildFailed from None
    if isinstance(answer, dict) and isinstance(answer.get("unavailable"), str):
        return str(answer["unavailable"])
    present = answer.get("present") if isinstance(answer, dict) else None
    if not isinstance(present, dict) or set(present) != set(names):
        raise ChildFailed
    return {name: bool(present[name]) for name in names}


def _main(names: Sequence[str]) -> int:
    from relavium_desktop.host.secrets import SecretStore, SecretStoreError, SecretStoreUnavailable

    store = SecretStore()
    present: dict[str, bool] = {}
    for name in names:
        try:
            present[name] = store.has(name)  # no value read; no keyring created or unlocked
        except SecretStoreUnavailable as exc:
            print(json.dumps({"unavailable": str(exc)}))
            return 0
        except SecretStoreError:
            present[name] = False  # a name the keyring cannot hold is a key that is not there
    print(json.dumps({"present": present}))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
